import { describe, expect, it } from 'vitest'
import type { Alert } from '../../../../electron/contract'
import { createAppI18n } from '../../i18n'
import { formatMoney } from '../../format'
import { describeAlert } from './alertText'

const say = (locale: 'fr' | 'en', a: Alert) => {
  const i18n = createAppI18n(locale)
  return describeAlert(
    a,
    (k, p) => i18n.global.t(k, p ?? {}),
    (c) => formatMoney(c, locale),
  ).replace(/[\u00a0\u202f]/g, ' ')
}
const top = {
  kind: 'top-prizes-sold-out',
  amountCents: 50_000_000,
  message: 'all 1 prizes of €500,000.00 of block 2/3 are sold',
  at: '2026-11-30T10:00:00Z',
} as const

describe("the dashboard's alerts", () => {
  it("are said in the user's language, not in the ledger's English sentence", () => {
    expect(say('fr', { ...top, emission: 2, block: 3 })).toBe('Tous les lots de 500 000 € du bloc 2/3 sont vendus')
    expect(say('fr', { ...top, emission: 2, block: null })).toBe(
      'Tous les lots de 500 000 € de l’émission 2 sont vendus',
    )
    expect(say('en', { ...top, emission: 2, block: 3 })).toMatch(
      /^All prizes of €500,000(\.00)? of block 2\/3 are sold$/,
    )
  })
})
