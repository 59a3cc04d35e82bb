import { usePrefsStore } from '../stores/prefs'
import * as f from '../format'

/** The format functions bound to the user's current language. */
export function useFormat() {
  const prefs = usePrefsStore()
  return {
    money: (cents: number) => f.formatMoney(cents, prefs.locale),
    int: (n: number) => f.formatInteger(n, prefs.locale),
    dec: (n: number, digits?: number) => f.formatDecimal(n, prefs.locale, digits),
    /** A share as a percentage: `digits` decimals at most, `minDigits` at least. */
    pct: (x: number, digits?: number, minDigits?: number) => f.formatPercent(x, prefs.locale, digits, minDigits),
    odds: (n: number) => f.formatOdds(n, prefs.locale),
    dateTime: (iso: string | null | undefined) => f.formatDateTime(iso, prefs.locale),
    day: (d: string | null | undefined) => f.formatDay(d, prefs.locale),
    clock: f.formatClock,
    hash: f.shortHash,
  }
}
