import { createI18n } from 'vue-i18n'
import fr, { type Messages } from './fr'
import en from './en'
import type { AppLocale } from '../format'

/**
 * French says 0 and 1 in the singular ("0 bloc engagé"): a message of two forms takes its first
 * below 2; one of three forms (none | one | more) names nothing first, as in English.
 */
export function frenchPlural(choice: number, choicesLength: number): number {
  const n = Math.abs(choice)
  if (choicesLength === 2) return n < 2 ? 0 : 1
  return n === 0 ? 0 : n < 2 ? 1 : Math.min(2, choicesLength - 1)
}

export function createAppI18n(locale: AppLocale = 'fr') {
  return createI18n<[Messages], AppLocale, false>({
    legacy: false,
    locale,
    fallbackLocale: 'fr',
    messages: { fr, en },
    pluralRules: { fr: frenchPlural },
    // Amounts and dates are formatted by format.ts, not by vue-i18n.
    missingWarn: false,
    fallbackWarn: false,
  })
}
