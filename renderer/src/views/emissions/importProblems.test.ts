import { describe, expect, it } from 'vitest'
import { createAppI18n } from '../../i18n'
import { formatMoney } from '../../format'
import { formatSerial } from '../../../../game-core/serial'
import type { ImportLineError } from '../../../../electron/contract'
import { describeLine, readFeedText } from './importProblems'

const serial = formatSerial({ emission: 1, block: 1, unit: 5 })
const typo = serial.slice(0, -1) + String((Number(serial.slice(-1)) + 1) % 10)
const line: ImportLineError = {
  line: 7,
  reason: '(the English sentences)',
  problems: [
    { code: 'STAKE', params: { expectedCents: 500, gotCents: 250 } },
    { code: 'NOT_OPEN', params: { emission: 1, status: 'closed' } },
    { code: 'SERIAL', params: { serial: typo } },
    { code: 'EVENT_YOURS_FIRST', params: { event: 3, shown: 2, of: 6 } },
  ],
}

function say(locale: 'fr' | 'en', l: ImportLineError) {
  const i18n = createAppI18n(locale)
  // the no-break spaces of money as plain spaces, to compare
  return describeLine(l, (k, p) => i18n.global.t(k, p ?? {}), (c) => formatMoney(c, locale)).replace(/[\u00a0\u202f]/g, ' ')
}

describe("a refused feed line's reasons on screen", () => {
  it('are said in French, money as money, the state in words, a mistyped serial explained as in the inspector', () => {
    expect(say('fr', line)).toBe(
      'la mise doit être le prix de l’unité, 5 €, et non 2,50 € ; l’émission 1 n’est pas en vente (état : close) ; ' +
        `numéro de série « ${typo} » : La clé de contrôle ne correspond pas : un chiffre a été mal saisi ou deux chiffres ont été inversés. Comparez avec le ticket. ; ` +
        'partie, événement 3 : « vos numéros » grattés avant les numéros gagnants (2 sur 6 découverts)',
    )
  })

  it('are said in English too, and a line without codes keeps its own sentence', () => {
    expect(say('en', line)).toMatch(/^the stake must be the unit price, €5(\.00)?, not €2\.50; emission 1 is not on sale \(status: closed\); serial ".*": .*; play, event 3: "your numbers" revealed before the winning numbers \(2 of 6 shown\)$/)
    expect(say('fr', { line: 2, reason: 'not valid JSON', problems: [] })).toBe('not valid JSON')
  })

  it("say where a line stops being JSON instead of JavaScript's English message, when the importer knows the column", () => {
    const json = (params: Record<string, string | number>): ImportLineError => ({ line: 3, reason: 'not valid JSON (…)', problems: [{ code: 'JSON', params }] })
    expect(say('fr', json({ detail: 'Unexpected end of JSON input', column: 61, end: 1 }))).toBe('JSON incomplet : la ligne s’arrête à la colonne 61, avant la fin de l’objet')
    expect(say('fr', json({ detail: 'Unexpected string in JSON at position 25', column: 26 }))).toBe('JSON invalide à la colonne 26')
    expect(say('en', json({ detail: 'Unexpected string in JSON at position 25', column: 26 }))).toBe('not valid JSON at column 26')
    // without a column, its message as it came
    expect(say('fr', json({ detail: 'Unexpected token \'o\', "not json" is not valid JSON' }))).toBe('JSON invalide (Unexpected token \'o\', "not json" is not valid JSON)')
  })
})

describe("a feed's new reasons on screen", () => {
  const one = (code: ImportLineError['problems'][number]['code'], params: Record<string, string | number>): ImportLineError => ({ line: 4, reason: '(English)', problems: [{ code, params }] })

  it('say a day that does not exist, a sale before its emission was created, a time beyond the skew and a bad character in a player id, in French and English', () => {
    expect(say('fr', one('SOLD_AT_DATE', { soldAt: '2026-02-30T10:00:00Z' }))).toBe('soldAt « 2026-02-30T10:00:00Z » désigne un jour ou une heure qui n’existe pas')
    expect(say('en', one('SOLD_AT_DATE', { soldAt: '2026-02-30T10:00:00Z' }))).toBe('soldAt "2026-02-30T10:00:00Z" names a day or a time that does not exist')
    expect(say('fr', one('SOLD_AT_BEFORE_CREATION', { soldAt: 'T1', emission: 3, createdAt: 'T2' }))).toBe('soldAt T1 précède la création de l’émission 3 (T2), qui n’a pas de date d’ouverture des ventes')
    expect(say('en', one('SOLD_AT_FUTURE', { soldAt: 'T1', now: 'T0', skewMinutes: 5 }))).toBe('soldAt T1 is in the future (now is T0; clocks may differ by up to 5 minutes)')
    expect(say('fr', one('PLAYER_CHARS', { char: 'U+202E', position: 4 }))).toMatch(/^l’identifiant du joueur contient U\+202E au caractère 4 : /)
    expect(say('en', one('PLAYER_CHARS', { char: 'U+202E', position: 4 }))).toMatch(/^the player id holds U\+202E at character 4: /)
  })
})

describe('a chosen feed file', () => {
  it('is read as UTF-8 (its byte order mark dropped), or refused where it stops being UTF-8', () => {
    expect(readFeedText(new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode('{"player":"Zoé"}\n')]))).toEqual({ text: '{"player":"Zoé"}\n' })
    const latin1 = new Uint8Array([...new TextEncoder().encode('{"a":1}\n{"player":"Zo'), 0xe9, 0x22, 0x7d])
    expect(readFeedText(latin1)).toEqual({ stop: { line: 2, byte: 14, offset: 21 } })
    const i18n = createAppI18n('fr')
    expect(i18n.global.t('emissions.importModal.notUtf8', { name: 'ventes.jsonl', line: 2, byte: 14, offset: 21 })).toBe(
      'ventes.jsonl n’est pas un texte UTF-8 : il cesse de l’être à la ligne 2, à l’octet 14 de cette ligne (position 21 dans le fichier, en comptant depuis 0). Enregistrez-le en UTF-8 et choisissez-le à nouveau.',
    )
  })
})
