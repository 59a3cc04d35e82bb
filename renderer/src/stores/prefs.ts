import { defineStore } from 'pinia'
import { ref, watch } from 'vue'
import type { AppLocale } from '../format'

export type ThemeName = 'light' | 'dark'

const THEME_KEY = 'carats.theme'
const LOCALE_KEY = 'carats.locale'

function stored<T extends string>(key: string, allowed: readonly T[], fallback: T): T {
  try {
    const v = localStorage.getItem(key)
    return (allowed as readonly string[]).includes(v ?? '') ? (v as T) : fallback
  } catch {
    return fallback
  }
}

/** Theme and language, remembered on this workstation. */
export const usePrefsStore = defineStore('prefs', () => {
  const theme = ref<ThemeName>(stored(THEME_KEY, ['light', 'dark'] as const, 'light'))
  const locale = ref<AppLocale>(stored(LOCALE_KEY, ['fr', 'en'] as const, 'fr'))

  watch(theme, (v) => localStorage.setItem(THEME_KEY, v))
  watch(locale, (v) => localStorage.setItem(LOCALE_KEY, v))

  function toggleTheme() {
    theme.value = theme.value === 'dark' ? 'light' : 'dark'
  }

  return { theme, locale, toggleTheme }
})
