import type { GlobalThemeOverrides } from 'naive-ui'
import type { ThemeName } from '../stores/prefs'

/**
 * The colours that carry text, per theme, chosen for WCAG AA (4.5:1) on the surfaces they sit
 * on: Naive UI's own greys (#767c82, or #333639 at the old 0.65 opacity) and its status colours
 * (#18a058 green at 2.75:1 in a tag) were below it. theme.test.ts checks every pair.
 */
export interface Palette {
  /** Page background and card surface. */
  page: string
  surface: string
  /** Secondary text: captions, statistic labels, hints, empty states. */
  muted: string
  success: string
  warning: string
  error: string
  info: string
  primary: string
  /** The outline of whatever has the keyboard focus. */
  focus: string
}

export const PALETTES: Record<ThemeName, Palette> = {
  light: {
    page: '#f4f6fa',
    surface: '#ffffff',
    muted: '#5c6066',
    success: '#096b39',
    warning: '#875000',
    error: '#b0233a',
    info: '#1a57c0',
    primary: '#1f57c3',
    focus: '#1f57c3',
  },
  // Naive UI's dark status colours already pass; only its greys (white at 38%) are too dim.
  dark: {
    page: '#101014',
    surface: '#18181c',
    muted: '#a3a3a8',
    success: '#63e2b7',
    warning: '#f2c97d',
    error: '#e88080',
    info: '#70c0e8',
    primary: '#4c7ee0',
    focus: '#8cb1f8',
  },
}

/** How strongly Naive UI tints a tag's background with its type's colour (light, dark). */
export const TAG_TINT: Record<ThemeName, number> = { light: 0.12, dark: 0.16 }

function statusColours(p: Palette, dark: boolean): GlobalThemeOverrides['common'] {
  if (dark) return {}
  return {
    successColor: p.success,
    successColorHover: '#0b7d43',
    successColorPressed: '#075a30',
    successColorSuppl: p.success,
    warningColor: p.warning,
    warningColorHover: '#9c5c00',
    warningColorPressed: '#6e4100',
    warningColorSuppl: p.warning,
    errorColor: p.error,
    errorColorHover: '#c22a43',
    errorColorPressed: '#921d30',
    errorColorSuppl: p.error,
    infoColor: p.info,
    infoColorHover: '#2a68d0',
    infoColorPressed: '#15479e',
    infoColorSuppl: p.info,
  }
}

export function themeOverrides(theme: ThemeName): GlobalThemeOverrides {
  const dark = theme === 'dark'
  const p = PALETTES[theme]
  return {
    common: {
      primaryColor: p.primary,
      // In the dark theme a deeper blue keeps white text on buttons and the active menu item readable.
      primaryColorHover: dark ? '#6a95ea' : '#3a6fd6',
      primaryColorPressed: dark ? '#3d6bc6' : '#17449c',
      primaryColorSuppl: p.primary,
      textColor3: p.muted,
      ...statusColours(p, dark),
      borderRadius: '6px',
      fontFamily: 'Inter, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif',
    },
    Button: dark
      ? {
          textColorPrimary: '#fff',
          textColorHoverPrimary: '#fff',
          textColorPressedPrimary: '#fff',
          textColorFocusPrimary: '#fff',
          // a text button in the primary colour reads as the links do (styles.css): #4c7ee0 was 3.9:1
          textColorTextPrimary: '#8cb1f8',
          textColorTextHoverPrimary: '#a9c4fa',
          textColorTextPressedPrimary: '#8cb1f8',
          textColorTextFocusPrimary: '#a9c4fa',
        }
      : {},
    Empty: { textColor: p.muted },
    Layout: { siderColor: dark ? '#141821' : '#0f2350', headerColor: dark ? '#18181c' : '#ffffff', color: p.page },
  }
}

/** The same colours for the app's own CSS (styles.css reads them as custom properties). */
export function cssVariables(theme: ThemeName): Record<string, string> {
  const p = PALETTES[theme]
  return {
    '--carats-surface': p.surface,
    '--carats-muted': p.muted,
    '--carats-success': p.success,
    '--carats-warning': p.warning,
    '--carats-error': p.error,
    '--carats-focus': p.focus,
  }
}
