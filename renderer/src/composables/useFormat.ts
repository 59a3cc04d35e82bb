import { computed } from 'vue'
import { usePrefsStore } from '../stores/prefs'
import * as f from '../format'

/** The format functions bound to the user's current language. */
export function useFormat() {
  const prefs = usePrefsStore()
  const l = computed(() => prefs.locale)
  return {
    money: (cents: number) => f.formatMoney(cents, l.value),
    int: (n: number) => f.formatInteger(n, l.value),
    dec: (n: number, digits?: number) => f.formatDecimal(n, l.value, digits),
    pct: (x: number, digits?: number) => f.formatPercent(x, l.value, digits),
    odds: (n: number) => f.formatOdds(n, l.value),
    dateTime: (iso: string | null | undefined) => f.formatDateTime(iso, l.value),
    day: (d: string | null | undefined) => f.formatDay(d, l.value),
    clock: f.formatClock,
    hash: f.shortHash,
  }
}
