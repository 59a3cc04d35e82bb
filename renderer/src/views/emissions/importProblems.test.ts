import { describe, expect, it } from 'vitest'
import { createAppI18n } from '../../i18n'
import { formatDateTime, formatDay, formatInteger, formatMoney } from '../../format'
import { dammCheckDigit, formatSerial } from '../../../../game-core/serial'
import {
  IMPORT_PROBLEM_CODES,
  type ImportLineError,
  type ImportProblem,
  type ImportProblemCode,
} from '../../../../electron/contract'
import { countFeedLines, describeLine, describeProblem, feedSha256 } from './importProblems'
import { ENGLISH_WORDS, ISO_TIME, leftovers } from './importProblems.fixtures'

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

function speaker(locale: 'fr' | 'en') {
  const i18n = createAppI18n(locale)
  const t = (k: string, p?: Record<string, unknown>) => i18n.global.t(k, p ?? {})
  const te = (k: string) => i18n.global.te(k)
  const fmt = {
    money: (c: number) => formatMoney(c, locale),
    int: (n: number) => formatInteger(n, locale),
    dateTime: (s: string) => formatDateTime(s, locale),
    day: (d: string) => formatDay(d, locale),
  }
  // the no-break spaces of money and numbers as plain spaces, to compare
  const plain = (s: string) => s.replace(/[\u00a0\u202f]/g, ' ')
  return {
    say: (l: ImportLineError) => plain(describeLine(l, t, te, fmt)),
    one: (p: ImportProblem) => plain(describeProblem(p, t, te, fmt)),
  }
}
const fr = speaker('fr')
const en = speaker('en')
const one = (code: ImportProblemCode, params: Record<string, string | number>): ImportLineError => ({
  line: 4,
  reason: '(English)',
  problems: [{ code, params }],
})

/** Values of the kind each code names, as the importer sends them (import/problems.ts, import/careful.ts, game-core/play.ts). */
const SAMPLE: Record<string, string | number> = {
  detail: 'Unexpected token',
  column: 12,
  field: 'stakeCents',
  fields: '"channel"',
  where: '',
  expected: 'number',
  got: '"cinq"',
  values: '"play"|"auto"',
  max: 64,
  event: 3,
  t: '-1',
  last: 200,
  gesture: '"swipe"',
  zone: 'winning',
  cell: 9,
  mode: '"x"',
  status: 'closed',
  shown: 2,
  of: 6,
  cells: 30,
  count: 20,
  saleId: 'S-1',
  first: 2,
  serial,
  sale: 'S-2',
  emission: 42,
  block: 7,
  blocks: 1,
  unit: 12000,
  size: 10000,
  next: serial,
  soldAt: '2099-01-01T00:00:00Z',
  now: '2025-03-20T15:00:00.000Z',
  skewMinutes: 5,
  startsOn: '2025-03-01',
  createdAt: '2025-02-01T09:00:00.000Z',
  expectedCents: 500,
  gotCents: 200,
  char: 'U+202E',
  position: 4,
}

describe("a refused feed line's reasons on screen", () => {
  it('are said in French, money as money, the state in words, a mistyped serial explained as in the inspector', () => {
    expect(fr.say(line)).toBe(
      'la mise doit être le prix de l’unité, 5 €, et non 2,50 € ; l’émission 0001 n’est pas en vente (état : close) ; ' +
        `numéro de série « ${typo} » : La clé de contrôle ne correspond pas : un chiffre a été mal saisi ou deux chiffres ont été inversés. Comparez avec le ticket. ; ` +
        'partie, événement 3 : « vos numéros » grattés avant les numéros gagnants (2 sur 6 découverts)',
    )
  })

  it('are said in English too, and a line without codes keeps its own sentence', () => {
    expect(en.say(line)).toMatch(
      /^the stake must be the unit price, €5(\.00)?, not €2\.50; emission 0001 is not on sale \(status: closed\); serial ".*": .*; play, event 3: "your numbers" revealed before the winning numbers \(2 of 6 shown\)$/,
    )
    expect(fr.say({ line: 2, reason: 'not valid JSON', problems: [] })).toBe('not valid JSON')
  })

  it("say where a line stops being JSON, never JavaScript's English message", () => {
    const json = (params: Record<string, string | number>) => one('JSON', params)
    expect(fr.say(json({ detail: 'Unexpected end of JSON input', column: 61, end: 1 }))).toBe(
      'JSON incomplet : la ligne s’arrête à la colonne 61, avant la fin de l’objet',
    )
    expect(fr.say(json({ detail: 'Unexpected string in JSON at position 25', column: 26 }))).toBe(
      'la ligne n’est pas du JSON valide : erreur à la colonne 26',
    )
    expect(en.say(json({ detail: 'Unexpected string in JSON at position 25', column: 26 }))).toBe(
      'the line is not valid JSON: error at column 26',
    )
    expect(fr.say(json({ detail: 'Unexpected token \'o\', "not json" is not valid JSON' }))).toBe(
      'la ligne n’est pas du JSON valide',
    )
  })

  it('name the fields in words, say the times in the interface’s language, and the emissions and blocks as the screens number them', () => {
    expect(fr.say(one('FIELD_TYPE', { field: 'stakeCents', expected: 'number', got: '"cinq"' }))).toBe(
      'la mise doit être un nombre ; la ligne porte « "cinq" »',
    )
    expect(en.say(one('FIELD_TYPE', { field: 'stakeCents', expected: 'number', got: '"cinq"' }))).toBe(
      'the stake must be a number; the line holds ""cinq""',
    )
    expect(fr.say(one('FIELD_VALUE', { field: 'play.mode', values: '"play"|"auto"', got: '"x"' }))).toBe(
      'le mode de la partie doit valoir "play" ou "auto" ; la ligne porte « "x" »',
    )
    expect(fr.say(one('FIELD_MISSING', { field: 'player' }))).toBe(
      'il manque l’identifiant du joueur (champ « player »)',
    )
    expect(fr.say(one('TEXT_SPACES', { field: 'saleId' }))).toBe(
      'l’identifiant de vente commence ou finit par une espace',
    )
    expect(fr.say(one('RECORDED_OTHER', { saleId: 'S-3', fields: 'serial,player,soldAt', recordedFor: serial }))).toBe(
      `la vente « S-3 » est déjà enregistrée avec un autre contenu (diffèrent : le numéro de série (la vente est enregistrée pour ${serial}), l’identifiant du joueur, l’heure de vente)`,
    )
    const future = fr.say(
      one('SOLD_AT_FUTURE', { soldAt: '2099-01-01T00:00:00Z', now: '2025-03-20T15:00:00.000Z', skewMinutes: 5 }),
    )
    expect(future).toBe(
      `l’heure de vente, ${formatDateTime('2099-01-01T00:00:00Z', 'fr')}, est dans le futur (il est ${formatDateTime('2025-03-20T15:00:00.000Z', 'fr')} ; les horloges peuvent différer de 5 minutes au plus)`.replace(
        /[\u00a0\u202f]/g,
        ' ',
      ),
    )
    expect(future).not.toMatch(ISO_TIME)
    expect(
      fr.say(one('SOLD_AT_EARLY', { soldAt: '2025-02-01T10:00:00Z', emission: 1, startsOn: '2025-03-01' })),
    ).toMatch(/^l’heure de vente, .*2025.*, précède l’ouverture des ventes de l’émission 0001 \(le 1 mars 2025\)$/)
    expect(fr.say(one('BLOCK_NOT_SELLING', { emission: 2, block: 1, status: 'failed' }))).toMatch(
      /^le bloc 0002\/001 ne peut pas vendre \(état : /,
    )
  })

  it('never say "block 0": a serial out of range names its part in words', () => {
    const blockZero = `0001-000-0000504-${dammCheckDigit('00010000000504')}`
    const text = fr.say(one('SERIAL', { serial: blockZero }))
    expect(text).toBe(`numéro de série « ${blockZero} » : Numéro hors limites : bloc 000 (de 001 à 999).`)
    expect(text).not.toMatch(/\bblock\b/)
  })

  it('have a French and an English sentence for every reason the importer can give, with no value left unsaid and no English word in French', () => {
    for (const code of IMPORT_PROBLEM_CODES) {
      const p: ImportProblem = { code, params: SAMPLE }
      const f = fr.one(p)
      const e = en.one(p)
      expect(f, code).not.toMatch(/emissions\.importModal|\{\w+\}/)
      expect(e, code).not.toMatch(/emissions\.importModal|\{\w+\}/)
      expect(f, code).not.toBe(e)
      expect(leftovers(f), `${code}: ${f}`).toEqual([])
    }
    expect(ENGLISH_WORDS.test('the stake must be')).toBe(true)
  })
})

describe('a chosen feed file', () => {
  it('has its non-empty lines counted on its bytes, CRLF or LF, blank lines aside', () => {
    const enc = (s: string) => new TextEncoder().encode(s)
    expect(countFeedLines(enc('{"a":1}\n{"a":2}\n'))).toBe(2)
    expect(countFeedLines(enc('{"a":1}\r\n\r\n{"a":2}'))).toBe(2)
    expect(countFeedLines(enc(''))).toBe(0)
  })
})

describe("a chosen feed's SHA-256, sent with it", () => {
  it("is the file's own, as sha256sum gives it", async () => {
    const bytes = new TextEncoder().encode('{"saleId":"S1"}\n{"saleId":"S2"}\n')
    // printf '{"saleId":"S1"}\n{"saleId":"S2"}\n' | sha256sum
    expect(await feedSha256(bytes)).toBe('2b4046564734b2dec36ff857bf6d4c0efe68e9769493d72b7f879b2f6ddf615b')
  })
})
