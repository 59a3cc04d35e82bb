import { describe, expect, it } from 'vitest'
import { formatSerial } from '../../../../game-core/serial'
import { createAppI18n } from '../../i18n'
import { formatInteger } from '../../format'
import { candidateText, kindsText, noneText } from './candidateText'
import type { Reach } from './candidates'
import { readSearchText } from './searchText'

const ALL: Reach = { ticket: true, player: true, claim: true, emission: true }
const serial = formatSerial({ emission: 1, block: 1, unit: 4242 })
const badCheck = serial.slice(0, -1) + String((Number(serial.slice(-1)) + 1) % 10)

function inLocale(locale: 'fr' | 'en') {
  const { t } = createAppI18n(locale).global
  const int = (n: number) => formatInteger(n, locale)
  return { t: t as (k: string, p?: Record<string, unknown>, n?: number) => string, int }
}

describe('the search in words', () => {
  it('names each candidate, in French by default and in English', () => {
    const { t, int } = inLocale('fr')
    expect(candidateText({ kind: 'player', key: 'p', player: 'P0001234', units: 1200 }, t, int)).toEqual({
      kind: 'Joueur',
      title: 'P0001234',
      detail: `${int(1200)} unités achetées`,
      demo: false,
    })
    const e = { kind: 'emission', key: 'e', emission: 2, code: 'P00', status: 'open', demo: true } as const
    expect(candidateText(e, t, int)).toEqual({
      kind: 'Émission',
      title: 'Émission 0002 · P00',
      detail: 'En vente',
      demo: true,
    })
    expect(candidateText({ kind: 'claim', key: 'c', serial, reference: 'VIR-1' }, t, int).detail).toBe(
      'Payée avec la référence VIR-1',
    )
    const en = inLocale('en')
    expect(candidateText({ kind: 'ticket', key: 't', serial }, en.t, en.int)).toEqual({
      kind: 'Ticket',
      title: serial,
      detail: 'Open in the ticket inspector',
      demo: false,
    })
  })

  it('says what a role may search, and only that', () => {
    const { t } = inLocale('fr')
    expect(kindsText(ALL, t, 'fr', 'what')).toBe(
      'un numéro de série, un joueur, une référence de paiement ou une émission',
    )
    const operator = { ticket: true, player: false, claim: false, emission: true }
    expect(kindsText(operator, t, 'fr', 'what')).toBe('un numéro de série ou une émission')
    const en = inLocale('en')
    expect(kindsText(operator, en.t, 'en', 'searched')).toBe('serial or emission (number or code)')
  })

  it('says clearly that nothing matches, and why a serial mistyped is none', () => {
    const { t } = inLocale('fr')
    expect(noneText(readSearchText(' zzz '), ALL, t, 'fr')).toBe(
      'Aucun résultat pour « zzz ». Cherché : numéro de série, identifiant de joueur, référence de paiement ou émission (numéro ou code).',
    )
    expect(noneText(readSearchText(badCheck), ALL, t, 'fr')).toMatch(
      /^Aucun résultat pour « .+ »\. .* Numéro de série : la clé de contrôle ne correspond pas/,
    )
    const en = inLocale('en')
    expect(noneText(readSearchText('zzz'), { ...ALL, player: false, claim: false }, en.t, 'en')).toBe(
      'No result for “zzz”. Searched: serial or emission (number or code).',
    )
  })
})
