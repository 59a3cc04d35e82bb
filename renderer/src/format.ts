/**
 * Money stays in integer cents until it reaches the screen; only these functions turn numbers
 * into text, in the user's language (French by default: "500 000 €").
 */
export type AppLocale = 'fr' | 'en'

const INTL: Record<AppLocale, string> = { fr: 'fr-FR', en: 'en-GB' }

const cache = new Map<string, Intl.NumberFormat>()
function nf(locale: AppLocale, key: string, options: Intl.NumberFormatOptions): Intl.NumberFormat {
  const k = `${locale}|${key}`
  let f = cache.get(k)
  if (!f) {
    f = new Intl.NumberFormat(INTL[locale], options)
    cache.set(k, f)
  }
  return f
}

/** Whole euros print without decimals ("500 000 €"), other amounts with two ("12,50 €"). */
export function formatMoney(cents: number, locale: AppLocale = 'fr'): string {
  const whole = cents % 100 === 0
  return nf(locale, whole ? 'eur0' : 'eur2', {
    style: 'currency',
    currency: 'EUR',
    minimumFractionDigits: whole ? 0 : 2,
    maximumFractionDigits: whole ? 0 : 2,
  }).format(cents / 100)
}

export function formatInteger(n: number, locale: AppLocale = 'fr'): string {
  return nf(locale, 'int', { maximumFractionDigits: 0 }).format(n)
}

/** A plain number with at most `digits` decimals ("0,5"). */
export function formatDecimal(n: number, locale: AppLocale = 'fr', digits = 2): string {
  return nf(locale, `dec${digits}`, { maximumFractionDigits: digits }).format(n)
}

/**
 * A fraction (0.7199975) as a percentage ("71,99975 %"), with at most `digits` decimals and at
 * least `minDigits` (a figure shown beside another with as many decimals: "69,00000 %" beside
 * "71,99975 %", not "69 %"). The one place every screen turns a share into text.
 *
 * French typography puts a narrow no-break space (U+202F) before the sign; Intl's fr-FR data
 * writes a full-width no-break space (U+00A0) there, so that space is narrowed here.
 */
export function formatPercent(fraction: number, locale: AppLocale = 'fr', digits = 2, minDigits = 0): string {
  const min = Math.min(minDigits, digits)
  const parts = nf(locale, `pct${digits}.${min}`, {
    style: 'percent',
    minimumFractionDigits: min,
    maximumFractionDigits: digits,
  }).formatToParts(fraction)
  return parts
    .map((p, i) =>
      p.type === 'literal' && parts[i + 1]?.type === 'percentSign' ? p.value.replace(/\s/g, '\u202f') : p.value,
    )
    .join('')
}

/** How many decimals (0 to `max`) the percentage of `fraction` needs to be written exactly: 5 for 0.7199975 (71,99975 %). */
export function percentDecimals(fraction: number, max = 5): number {
  const pct = fraction * 100
  for (let d = 0; d < max; d++) {
    const scale = 10 ** d
    if (Math.abs(Math.round(pct * scale) / scale - pct) < 1e-9) return d
  }
  return max
}

/** "1 sur 3,90" / "1 in 3.90". */
export function formatOdds(oneIn: number, locale: AppLocale = 'fr'): string {
  const n = nf(locale, oneIn < 100 ? 'odds2' : 'odds0', {
    minimumFractionDigits: oneIn < 100 ? 2 : 0,
    maximumFractionDigits: oneIn < 100 ? 2 : 0,
  }).format(oneIn)
  return locale === 'fr' ? `1 sur ${n}` : `1 in ${n}`
}

export function formatDateTime(iso: string | null | undefined, locale: AppLocale = 'fr'): string {
  if (!iso) return '—'
  const d = new Date(iso)
  if (Number.isNaN(d.getTime())) return iso
  return new Intl.DateTimeFormat(INTL[locale], { dateStyle: 'medium', timeStyle: 'medium' }).format(d)
}

/** A calendar day "YYYY-MM-DD", read as that day wherever the screen is (no time-zone shift). */
export function formatDay(day: string | null | undefined, locale: AppLocale = 'fr'): string {
  if (!day) return '—'
  const m = /^(\d{4})-(\d{2})-(\d{2})/.exec(day)
  if (!m) return day
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])))
  return new Intl.DateTimeFormat(INTL[locale], { dateStyle: 'medium', timeZone: 'UTC' }).format(d)
}

/** An emission's number as its serial prints it: "0007". */
export const emissionNo = (n: number): string => String(n).padStart(4, '0')

/** A block's number as its serial prints it: "012". */
export const blockNo = (n: number): string => String(n).padStart(3, '0')

/** Milliseconds of a replay as "m:ss.s". */
export function formatClock(ms: number): string {
  const t = Math.max(0, ms) / 1000
  const m = Math.floor(t / 60)
  const s = t - m * 60
  return `${m}:${s.toFixed(1).padStart(4, '0')}`
}

/** Long hex digests, cut in the middle for tables; the full value stays in a tooltip or print. */
export function shortHash(hex: string | null | undefined, keep = 10): string {
  if (!hex) return '—'
  return hex.length <= keep * 2 + 1 ? hex : `${hex.slice(0, keep)}…${hex.slice(-keep)}`
}
