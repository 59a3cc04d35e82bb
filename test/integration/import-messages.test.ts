/**
 * A broken feed's refusal, from the importer to the screen's sentences: every bad line of
 * test/fixtures/sales-bad.jsonl (one of each kind) said in French without English words, raw
 * ISO times or "block 0", and in English.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { smallDefinition } from '../support/game-fixtures'
import { AppError } from '../../electron/contract/errors'
import type { ImportLineError } from '../../electron/contract/types'
import { createImporter } from '../../electron/services/import'
import { openLedgerFixture, TEST_ACTOR, type LedgerFixture } from '../support/simulator-world'
import { createAppI18n } from '../../renderer/src/i18n'
import { formatDateTime, formatDay, formatInteger, formatMoney } from '../../renderer/src/format'
import { describeLine } from '../../renderer/src/views/emissions/importProblems'
import { leftovers } from '../../renderer/src/views/emissions/importProblems.fixtures'

const FIXTURES = join(__dirname, '../fixtures')
const NOW = Date.parse('2025-03-20T15:00:00Z')
let f: LedgerFixture
let details: ImportLineError[]

beforeAll(async () => {
  f = openLedgerFixture({ definition: smallDefinition(), clock: () => new Date(NOW) })
  await f.openEmission({ startsOn: '2025-03-01' })
  f.emissions.create(TEST_ACTOR, { blocks: 1 })
  const importer = createImporter({ db: f.db, clock: f.clock, catalog: f.catalog, sales: f.sales, audit: f.audit })
  importer.importContent(TEST_ACTOR, readFileSync(join(FIXTURES, 'sales-valid.jsonl')), 'valid.jsonl')
  // one line of each kind the importer refuses, and a few more kinds of shape
  const extra = [
    '{"saleId":"S-X1","serial":"0001-001-0000040-0","player":"p","soldAt":"2025-03-05T10:00:00Z","stakeCents":"cinq","play":null}',
    '{"saleId":" S-X2","serial":"0001-001-0000041-0","player":"p","soldAt":"2025-03-05T10:00:00Z","stakeCents":5.5,"play":{"mode":"x","status":"complete","events":[]}}',
    '[1,2]',
  ]
  try {
    importer.importContent(
      TEST_ACTOR,
      Buffer.concat([readFileSync(join(FIXTURES, 'sales-bad.jsonl')), Buffer.from(extra.join('\n') + '\n')]),
      'bad.jsonl',
    )
    throw new Error('the broken feed was imported')
  } catch (e) {
    if (!(e instanceof AppError) || e.code !== 'IMPORT_REJECTED') throw e
    details = e.extras.details as ImportLineError[]
  }
})
afterAll(() => f?.close())

function say(locale: 'fr' | 'en', l: ImportLineError): string {
  const i18n = createAppI18n(locale)
  const fmt = {
    money: (c: number) => formatMoney(c, locale),
    int: (n: number) => formatInteger(n, locale),
    dateTime: (s: string) => formatDateTime(s, locale),
    day: (d: string) => formatDay(d, locale),
  }
  return describeLine(
    l,
    (k, p) => i18n.global.t(k, p ?? {}),
    (k) => i18n.global.te(k),
    fmt,
  )
}

describe("a broken feed's refusal on screen", () => {
  it('holds every kind of problem, each with its code', () => {
    const codes = new Set(details.flatMap((d) => d.problems.map((p) => p.code)))
    for (const c of [
      'JSON',
      'FIELD_MISSING',
      'FIELD_UNKNOWN',
      'FIELD_TYPE',
      'FIELD_VALUE',
      'TEXT_SPACES',
      'STAKE_NOT_WHOLE',
      'SERIAL',
      'SOLD_AT_FUTURE',
      'SOLD_AT_EARLY',
      'RECORDED_OTHER',
      'STAKE',
      'OUT_OF_ORDER',
    ])
      expect(codes, c).toContain(c)
  })

  it('is said in French without an English word, a raw ISO time or "block 0"', () => {
    for (const d of details) {
      const text = say('fr', d)
      expect(leftovers(text), `line ${d.line}: ${text}`).toEqual([])
      expect(text).not.toBe(d.reason)
    }
  })

  it('is said in English, times in the English way too', () => {
    const future = details.find((d) => d.problems.some((p) => p.code === 'SOLD_AT_FUTURE'))!
    expect(say('en', future)).toMatch(
      /^the sale time, (1 Jan 2099|Jan 1, 2099).*, is in the future \(it is (20 Mar 2025|Mar 20, 2025)/,
    )
  })
})
