import { describe, expect, it } from 'vitest'
import { createAppI18n } from '../i18n'
import { screenTitle } from './title'

describe('the window title', () => {
  const i18n = createAppI18n('fr')
  const t = i18n.global.t as (k: string, p?: Record<string, unknown>) => string

  it('names the screen, then the app, in the interface’s language', () => {
    expect(screenTitle({ name: 'emissions', params: {} }, t)).toBe('Émissions — 500 000 CARATS')
    expect(screenTitle({ name: 'block', params: { emission: '3', block: '12' } }, t)).toMatch(
      /^Bloc 012 .*0003 — 500 000 CARATS$/,
    )
    i18n.global.locale.value = 'en'
    expect(screenTitle({ name: 'emission', params: { emission: '7' } }, t)).toBe('Emission 0007 — 500 000 CARATS')
    expect(screenTitle({ name: 'login', params: {} }, t)).toBe('Sign in — 500 000 CARATS')
    expect(screenTitle({ name: 'claim', params: { serial: '0001-001-0000042-7' } }, t)).toBe(
      'Claim 0001-001-0000042-7 — 500 000 CARATS',
    )
    expect(screenTitle({ name: 'watch', params: {} }, t)).toBe('Improbable winners — 500 000 CARATS')
    expect(screenTitle({ name: 'parties', params: {} }, t)).toBe('Related parties — 500 000 CARATS')
    expect(screenTitle({ name: 'liability', params: {} }, t)).toBe('Prize liability — 500 000 CARATS')
  })

  it('is the app’s name alone on a route without a screen of its own', () => {
    expect(screenTitle({ name: 'home', params: {} }, t)).toBe('500 000 CARATS')
  })
})
