import { createI18n } from 'vue-i18n'
import fr, { type Messages } from './fr'
import en from './en'
import type { AppLocale } from '../format'

export function createAppI18n(locale: AppLocale = 'fr') {
  return createI18n<[Messages], AppLocale, false>({
    legacy: false,
    locale,
    fallbackLocale: 'fr',
    messages: { fr, en },
    // Amounts and dates are formatted by format.ts, not by vue-i18n.
    missingWarn: false,
    fallbackWarn: false,
  })
}
