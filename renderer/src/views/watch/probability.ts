/**
 * A claimant's probability as people read it: "1 chance sur 310 millions" / "1 in 310 million"
 * for 3.2e-9, a percentage from one chance in ten, and the raw value for a tooltip.
 */
import { formatDecimal, formatInteger, formatPercent, type AppLocale } from '../../format'

type Translate = (key: string, params?: Record<string, unknown>) => string

const INTL: Record<AppLocale, string> = { fr: 'fr-FR', en: 'en-GB' }
const SUPERSCRIPT = '⁰¹²³⁴⁵⁶⁷⁸⁹'
const superscript = (n: number) => [...String(n)].map((d) => SUPERSCRIPT[Number(d)]).join('')

/** Two significant digits: 312 500 000 → 310 000 000. */
function twoDigits(n: number): number {
  const scale = 10 ** Math.max(0, Math.floor(Math.log10(n)) - 1)
  return Math.round(n / scale) * scale
}

/**
 * "N" of "1 in N", to two significant digits: grouped up to a million ("12 000"), in words up to
 * a thousand million million ("310 millions", "1,5 milliard"), then a power of ten ("3,1 × 10¹⁵").
 */
export function oneInText(n: number, locale: AppLocale): string {
  if (n < 1e6) return formatInteger(twoDigits(n), locale)
  if (n < 1e15)
    return new Intl.NumberFormat(INTL[locale], {
      notation: 'compact',
      compactDisplay: 'long',
      maximumSignificantDigits: 2,
    }).format(n)
  let exponent = Math.floor(Math.log10(n))
  let mantissa = Math.round((n / 10 ** exponent) * 10) / 10
  if (mantissa >= 10) [mantissa, exponent] = [1, exponent + 1]
  return `${new Intl.NumberFormat(INTL[locale], { maximumFractionDigits: 1 }).format(mantissa)} × 10${superscript(exponent)}`
}

/** The probability in words, in the user's language. */
export function chanceText(p: number, locale: AppLocale, t: Translate): string {
  if (!(p > 0)) return t('watch.chance.nil')
  if (p >= 0.1) return formatPercent(p, locale, 0)
  return t('watch.chance.oneIn', { n: oneInText(1 / p, locale) })
}

/** The exact value, for a tooltip: "P = 3.20e-9". */
export const rawProbability = (p: number): string => `P = ${p === 0 ? '0' : p.toExponential(2)}`

/** Expected claims: to one decimal from one, else to two significant digits ("0,04", "0,0000042"). */
export function expectedText(n: number, locale: AppLocale): string {
  if (n === 0 || n >= 1) return formatDecimal(n, locale, 1)
  return formatDecimal(n, locale, Math.min(20, 1 - Math.floor(Math.log10(n))))
}
