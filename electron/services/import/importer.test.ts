import { createHash } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeAll, afterAll, describe, expect, it } from 'vitest'
import { smallDefinition } from '../../../test/support/game-fixtures'
import { BAD_LINES } from '../../../test/fixtures/make-feeds'
import { AppError } from '../../contract/errors'
import type { ImportLineError } from '../../contract/types'
import { testEngine } from '../../../test/support/ledger-engine'
import { cloneTestLedger } from '../../../test/support/test-ledgers'
import { unpackPlay } from '../../ledger/play-codec'
import { formatSerial } from '../../../game-core/serial'
import { createImporter, type Importer } from './importer'
import { feedLine } from './feed'
import { createSalesGenerator } from '../simulator'
import { openLedgerFixture, TEST_ACTOR, type LedgerFixture } from '../../../test/support/simulator-world'

const FIXTURES = join(__dirname, '../../../test/fixtures')
const validFeed = readFileSync(join(FIXTURES, 'sales-valid.jsonl'), 'utf8')
const badFeed = readFileSync(join(FIXTURES, 'sales-bad.jsonl'), 'utf8')
const NOW = Date.parse('2025-03-20T15:00:00Z')

interface Setup {
  f: LedgerFixture
  importer: Importer
}

/** Emission 1 open (sales from 2025-03-01), emission 2 created only: what the fixtures expect. */
async function setup(streamFrom: number): Promise<Setup> {
  const f = openLedgerFixture({ definition: smallDefinition(), clock: () => new Date(NOW) })
  await f.openEmission({ startsOn: '2025-03-01' })
  f.emissions.create(TEST_ACTOR, { blocks: 1 })
  return {
    f,
    importer: createImporter({
      db: f.db,
      clock: f.clock,
      catalog: f.catalog,
      sales: f.sales,
      audit: f.audit,
      streamFrom,
    }),
  }
}

/** Everything an import may write, to show that a rejected one wrote nothing. */
/**
 * What a ledger holds, its rows' numbering aside: players by name (PostgreSQL's identity columns
 * leave gaps where a transaction rolled back, SQLite's do not; neither is shown to anyone).
 */
function snapshot(f: LedgerFixture) {
  const all = (sql: string) => f.db.prepare(sql).all() as Record<string, unknown>[]
  const withoutId = (rows: Record<string, unknown>[], ...keys: string[]) =>
    rows.map((r) => Object.fromEntries(Object.entries(r).filter(([k]) => !keys.includes(k))))
  return {
    sales: withoutId(
      all('SELECT s.*, p.name AS player FROM sales s JOIN players p ON p.id = s.player_id ORDER BY s.unit_key'),
      'player_id',
    ),
    blocks: all('SELECT emission, block, units_sold FROM blocks ORDER BY emission, block'),
    tiers: all('SELECT * FROM block_tiers ORDER BY emission, block, tier'),
    players: withoutId(all('SELECT * FROM players ORDER BY name'), 'id'),
    days: all('SELECT * FROM daily_sales ORDER BY day, emission'),
    batches: withoutId(all('SELECT * FROM import_batches ORDER BY id'), 'id'),
  }
}

function rejection(fn: () => unknown): AppError {
  try {
    fn()
  } catch (e) {
    if (e instanceof AppError) return e
    throw e
  }
  throw new Error('the import was not rejected')
}

const open: LedgerFixture[] = []
afterEach(() => {
  while (open.length) open.pop()!.close()
})
async function freshWith(streamFrom: number): Promise<Setup> {
  const s = await setup(streamFrom)
  open.push(s.f)
  return s
}

/**
 * Every test twice: on the importer's thread alone (as a small feed is read), and streamed with
 * a reader thread (as a feed of 4 MiB or more is), which must store and refuse exactly the same.
 */
for (const [mode, streamFrom] of [
  ['on one thread', Infinity],
  ['streamed, read on a second thread', 0],
] as const) {
  describe(mode, () => {
    const fresh = () => freshWith(streamFrom)

    describe('importing a valid feed', () => {
      it('stores every line once, with its play, batch record and audit entry', async () => {
        const { f, importer } = await fresh()
        expect(importer.importContent(TEST_ACTOR, validFeed, 'sales-valid.jsonl')).toEqual({
          lines: 20,
          imported: 20,
          alreadyImported: 0,
        })
        const rows = f.db
          .prepare(
            'SELECT s.unit_key, s.sale_id, p.name AS player, s.sold_at, s.stake_cents, s.play, s.events FROM sales s JOIN players p ON p.id = s.player_id ORDER BY unit_key',
          )
          .all() as {
          unit_key: number
          sale_id: string
          player: string
          sold_at: number
          stake_cents: number
          play: number | null
          events: Buffer | null
        }[]
        const lines = validFeed
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l))
        expect(rows.length).toBe(20)
        rows.forEach((r, i) => {
          expect(r.unit_key).toBe(10_010_000_000 + i)
          expect(r.sale_id).toBe(lines[i].saleId)
          expect(r.player).toBe(lines[i].player)
          expect(new Date(r.sold_at).toISOString()).toBe(lines[i].soldAt)
          expect(unpackPlay(r.play, r.events)).toEqual(lines[i].play)
        })
        expect(f.catalog.block(1, 1).units_sold).toBe(20)
        const batch = f.db.prepare('SELECT * FROM import_batches').get() as Record<string, unknown>
        expect(batch).toMatchObject({
          file_name: 'sales-valid.jsonl',
          lines: 20,
          imported: 20,
          already: 0,
          actor: 'tester',
        })
        // the file's own digest, as sha256sum gives it
        expect(batch.file_sha256).toBe(
          createHash('sha256')
            .update(readFileSync(join(FIXTURES, 'sales-valid.jsonl')))
            .digest('hex'),
        )
        const audit = f.db.prepare("SELECT object, details FROM audit WHERE action = 'sales.import'").get() as {
          object: string
          details: string
        }
        expect(audit.object).toBe(`import:${batch.id}`)
        expect(JSON.parse(audit.details)).toMatchObject({ imported: 20, firstSerial: '0001-001-0000000-7' })
        expect(f.audit.verify().ok).toBe(true)
      })

      it('is a no-op the second time: every line already imported', async () => {
        const { f, importer } = await fresh()
        importer.importContent(TEST_ACTOR, validFeed)
        const before = snapshot(f)
        expect(importer.importContent(TEST_ACTOR, validFeed)).toEqual({ lines: 20, imported: 0, alreadyImported: 20 })
        const after = snapshot(f)
        expect(after.sales).toEqual(before.sales)
        expect(after.players).toEqual(before.players)
        expect(after.tiers).toEqual(before.tiers)
        expect(after.batches.length).toBe(2)
      })

      it('imports the new part of a feed that repeats lines already imported', async () => {
        const { f, importer } = await fresh()
        const lines = validFeed.trim().split('\n')
        importer.importContent(TEST_ACTOR, lines.slice(0, 12).join('\n'))
        expect(importer.importContent(TEST_ACTOR, lines.join('\n'))).toEqual({
          lines: 20,
          imported: 8,
          alreadyImported: 12,
        })
        expect(f.catalog.block(1, 1).units_sold).toBe(20)
      })

      it('takes the lines in any order, as long as the units form an unbroken run', async () => {
        const { f, importer } = await fresh()
        const lines = validFeed.trim().split('\n')
        const shuffled = [...lines.slice(10), ...lines.slice(0, 10).reverse()]
        expect(importer.importContent(TEST_ACTOR, `\n${shuffled.join('\n')}\n\n`)).toEqual({
          lines: 20,
          imported: 20,
          alreadyImported: 0,
        })
        const ids = f.db.prepare('SELECT sale_id FROM sales ORDER BY unit_key').pluck().all()
        expect(ids).toEqual(lines.map((l) => JSON.parse(l).saleId))
        // each play stored with its own sale, though the file held them in another order
        const rows = f.db.prepare('SELECT play, events FROM sales ORDER BY unit_key').all() as {
          play: number | null
          events: Buffer | null
        }[]
        expect(rows.map((r) => unpackPlay(r.play, r.events))).toEqual(lines.map((l) => JSON.parse(l).play))
      })

      it('refuses a changed copy of an imported sale: same saleId, other content', async () => {
        const { f, importer } = await fresh()
        importer.importContent(TEST_ACTOR, validFeed)
        const line = JSON.parse(validFeed.split('\n')[4])
        const changed = JSON.stringify({ ...line, soldAt: '2025-03-19T10:00:00.000Z', play: null })
        const e = rejection(() => importer.importContent(TEST_ACTOR, changed))
        expect(e.code).toBe('IMPORT_REJECTED')
        expect(e.extras.details).toEqual([
          {
            line: 1,
            reason: `saleId ${line.saleId} is already recorded with other content (soldAt, play differ)`,
            problems: [{ code: 'RECORDED_OTHER', params: { saleId: line.saleId, fields: 'soldAt,play' } }],
          },
        ])
        expect(f.db.prepare('SELECT count(*) FROM sales').pluck().get()).toBe(20)
      })

      it('says where a line stops being JSON, as a column, and when it stops short', async () => {
        const { importer } = await fresh()
        const lines = validFeed.trim().split('\n').slice(0, 2)
        lines[0] = lines[0].slice(0, 30)
        const colon = lines[1].indexOf('"player":')
        lines[1] = lines[1].replace('"player":', '"player" ')
        const details = rejection(() => importer.importContent(TEST_ACTOR, lines.join('\n'))).extras
          .details as ImportLineError[]
        expect(details.map((d) => d.problems)).toEqual([
          [{ code: 'JSON', params: { detail: expect.any(String), column: 31, end: 1 } }],
          // the value's opening quote, where a colon should be before it
          [{ code: 'JSON', params: { detail: expect.any(String), column: colon + 10 } }],
        ])
      })

      it('refuses an empty file', async () => {
        const { importer } = await fresh()
        expect(() => importer.importContent(TEST_ACTOR, '\n  \n')).toThrow(/holds no sales/)
      })

      it("reads a file's bytes as its text would be read: a byte order mark and CRLF line ends are fine", async () => {
        const { f, importer } = await fresh()
        const bytes = Buffer.concat([
          Buffer.from([0xef, 0xbb, 0xbf]),
          Buffer.from(validFeed.trim().split('\n').join('\r\n') + '\r\n'),
        ])
        expect(importer.importContent(TEST_ACTOR, new Uint8Array(bytes), 'crlf.jsonl')).toEqual({
          lines: 20,
          imported: 20,
          alreadyImported: 0,
        })
        expect(f.catalog.block(1, 1).units_sold).toBe(20)
      })

      it('refuses bytes that are not UTF-8, naming the file, and stores nothing', async () => {
        const { f, importer } = await fresh()
        const before = snapshot(f)
        const latin1 = Buffer.from(validFeed.replace(/"player":"[^"]*"/, '"player":"Zo\u00e9"'), 'latin1')
        expect(() => importer.importContent(TEST_ACTOR, latin1, 'latin1.jsonl')).toThrow(
          /latin1\.jsonl is not UTF-8 text/,
        )
        expect(snapshot(f)).toEqual(before)
      })
    })

    describe('a feed with every kind of bad line', () => {
      let s: Setup
      let err: AppError
      let before: ReturnType<typeof snapshot>
      let details: ImportLineError[]

      beforeAll(async () => {
        s = await setup(streamFrom)
        s.importer.importContent(TEST_ACTOR, validFeed)
        before = snapshot(s.f)
        err = rejection(() => s.importer.importContent(TEST_ACTOR, badFeed, 'sales-bad.jsonl'))
        details = err.extras.details as ImportLineError[]
      })
      afterAll(() => s.f.close())

      it('is rejected as a whole, listing every bad line and only those', () => {
        expect(err.code).toBe('IMPORT_REJECTED')
        const expected = Object.entries(BAD_LINES)
          .filter(([, v]) => v !== null)
          .map(([k]) => Number(k))
        expect(details.map((d) => d.line)).toEqual(expected)
        expect(err.message).toMatch(
          new RegExp(`^${expected.length} bad lines of 30: nothing imported \\(first: line 2: not valid JSON`),
        )
      })

      it('stores nothing at all', () => {
        expect(snapshot(s.f)).toEqual(before)
        const last = s.f.db.prepare('SELECT action, details FROM audit ORDER BY seq DESC LIMIT 1').get() as {
          action: string
          details: string
        }
        expect(last.action).toBe('sales.import-rejected')
        expect(JSON.parse(last.details)).toMatchObject({ fileName: 'sales-bad.jsonl', badLines: details.length })
      })

      for (const [line, what] of Object.entries(BAD_LINES)) {
        if (what === null) continue
        it(`says why line ${line} is bad: ${what.kind}`, () => {
          const d = details.find((x) => x.line === Number(line))
          expect(d?.reason).toMatch(what.reason)
        })
      }

      it('gives each reason a stable code with its values, for the screens to say in French or English', () => {
        for (const d of details) {
          expect(d.problems.length).toBeGreaterThan(0)
          for (const p of d.problems) expect(p.code).toMatch(/^[A-Z_]+$/)
        }
        const codes = new Set(details.flatMap((d) => d.problems.map((p) => p.code)))
        for (const code of [
          'JSON',
          'FIELD_MISSING',
          'FIELD_UNKNOWN',
          'SERIAL',
          'EMISSION_UNKNOWN',
          'STAKE',
          'EVENT_YOURS_FIRST',
          'PLAY_INCOMPLETE',
          'EVENT_AUTO_DRAG',
          'PLAY_NOT_INTERRUPTED',
          'NOT_OPEN',
          'OUT_OF_ORDER',
        ])
          expect(codes).toContain(code)
        expect(
          details.find((d) => d.problems.some((p) => p.code === 'STAKE'))!.problems.find((p) => p.code === 'STAKE')!
            .params,
        ).toEqual({ expectedCents: 500, gotCents: expect.any(Number) })
      })

      it('imports once the bad lines are taken out, and the gap is filled', async () => {
        const { f, importer } = await fresh()
        importer.importContent(TEST_ACTOR, validFeed)
        const lines = badFeed.trim().split('\n')
        const good = lines.filter((_, i) => BAD_LINES[i + 1] === null)
        expect(importer.importContent(TEST_ACTOR, good.join('\n'))).toEqual({
          lines: 6,
          imported: 5,
          alreadyImported: 1,
        })
        expect(f.catalog.block(1, 1).units_sold).toBe(25)
      })
    })

    describe("each line's own checks", () => {
      const lines = validFeed.trim().split('\n')
      const edit = (i: number, over: Record<string, unknown>) => JSON.stringify({ ...JSON.parse(lines[i]), ...over })
      const problemsOf = (feed: string | Uint8Array) =>
        rejection(() => importer!.importContent(TEST_ACTOR, feed, 'feed.jsonl')).extras.details as ImportLineError[]
      let importer: Importer | null = null
      let f: LedgerFixture | null = null
      const ready = async () => ({ f, importer } = await fresh())

      it('refuses a soldAt on a day that does not exist, which a date reader would roll over into the next month', async () => {
        await ready()
        // 2025-02-30 would be read as 2 March, after the emission's first day
        for (const soldAt of [
          '2025-02-30T10:00:00Z',
          '2025-02-29T10:00:00.000Z',
          '2025-03-32T10:00:00Z',
          '2025-03-10T24:00:00Z',
          '2025-03-10T10:60:00Z',
          '2025-03-10T10:00:00+24:00',
        ]) {
          const d = problemsOf([...lines.slice(0, 4), edit(4, { soldAt }), ...lines.slice(5)].join('\n'))
          expect(d, soldAt).toEqual([
            {
              line: 5,
              reason: `soldAt ${JSON.stringify(soldAt)} names a day or a time that does not exist`,
              problems: [{ code: 'SOLD_AT_DATE', params: { soldAt } }],
            },
          ])
        }
        expect(f!.catalog.block(1, 1).units_sold).toBe(0)
      })

      it('refuses a sale before its emission was created when the emission has no first sale day', async () => {
        await ready()
        // emission 3, open, without a first day: created at the clock's time
        const e = await f!.openEmission()
        const created = f!.catalog.emission(e).created_at
        const feed = (soldAt: string, unit = 0) =>
          edit(unit, { serial: formatSerial({ emission: e, block: 1, unit }, 10_000), saleId: `E3-${unit}`, soldAt })
        expect(problemsOf([feed('2025-03-20T14:59:59.999Z'), feed('2025-03-20T15:00:00Z', 1)].join('\n'))).toEqual([
          {
            line: 1,
            reason: `soldAt 2025-03-20T14:59:59.999Z is before emission ${e} was created (${created}), and it has no first sale day`,
            problems: [
              {
                code: 'SOLD_AT_BEFORE_CREATION',
                params: { soldAt: '2025-03-20T14:59:59.999Z', emission: e, createdAt: created },
              },
            ],
          },
        ])
        expect(
          importer!.importContent(
            TEST_ACTOR,
            [feed('2025-03-20T15:00:00Z'), feed('2025-03-20T15:01:00Z', 1)].join('\n'),
          ),
        ).toEqual({ lines: 2, imported: 2, alreadyImported: 0 })
      })

      it('takes a time up to five minutes ahead of the clock (platform clocks drift), and refuses one beyond', async () => {
        await ready()
        const ahead = (ms: number) => new Date(NOW + ms).toISOString()
        const d = problemsOf([...lines.slice(0, 19), edit(19, { soldAt: ahead(5 * 60_000 + 1) })].join('\n'))
        expect(d).toEqual([
          {
            line: 20,
            reason: `soldAt ${ahead(5 * 60_000 + 1)} is in the future (now is ${ahead(0)}; clocks may differ by up to 5 minutes)`,
            problems: [
              { code: 'SOLD_AT_FUTURE', params: { soldAt: ahead(5 * 60_000 + 1), now: ahead(0), skewMinutes: 5 } },
            ],
          },
        ])
        expect(
          importer!.importContent(
            TEST_ACTOR,
            [...lines.slice(0, 19), edit(19, { soldAt: ahead(4 * 60_000) })].join('\n'),
          ),
        ).toEqual({ lines: 20, imported: 20, alreadyImported: 0 })
      })

      it('refuses a player id with a control, invisible or bidirectional formatting character or a lone surrogate, written as is or escaped', async () => {
        await ready()
        const KIND_WORDS = {
          bidi: 'a bidirectional formatting character',
          control: 'a control character',
          invisible: 'an invisible character',
          surrogate: 'half of a UTF-16 surrogate pair, which no ledger stores as it is',
        }
        const cases: [string, string, number, keyof typeof KIND_WORDS][] = [
          ['P12\u202E34', 'U+202E', 4, 'bidi'],
          ['\u2066P1\u2069', 'U+2066', 1, 'bidi'],
          ['P\u200E1', 'U+200E', 2, 'bidi'],
          ['P\u200F1', 'U+200F', 2, 'bidi'],
          ['P\u061C1', 'U+061C', 2, 'bidi'],
          ['P1\u007F', 'U+007F', 3, 'control'],
          ['P1\u0085', 'U+0085', 3, 'control'],
          ['P\u00011', 'U+0001', 2, 'control'],
          ['P\u202A1', 'U+202A', 2, 'bidi'],
          ['a\tb', 'U+0009', 2, 'control'],
          ['P\u00001', 'U+0000', 2, 'control'],
          ['P\u200B1', 'U+200B', 2, 'invisible'],
          ['P\uFEFF1', 'U+FEFF', 2, 'invisible'],
          ['P\uD8001', 'U+D800', 2, 'surrogate'],
          ['P1\uDC00', 'U+DC00', 3, 'surrogate'],
        ]
        for (const [player, char, position, kind] of cases) {
          // the character written as is (JSON.stringify escapes only the C0 controls), and as a JSON escape
          const raw = edit(4, { player })
          const escaped = raw.replace(
            /[\u007f-\u009f\u061c\u200b\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]/g,
            (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
          )
          for (const line of new Set([raw, escaped])) {
            const d = problemsOf([...lines.slice(0, 4), line, ...lines.slice(5)].join('\n'))
            const reason = `player: it holds ${char} at character ${position}, ${KIND_WORDS[kind]}: a player id may hold no control, invisible or bidirectional formatting character, nor half of a surrogate pair`
            expect(d, `${char} in ${line.slice(0, 80)}`).toEqual([
              { line: 5, reason, problems: [{ code: 'PLAYER_CHARS', params: { char, position, problem: kind } }] },
            ])
          }
        }
        // other scripts are fine
        expect(
          importer!.importContent(
            TEST_ACTOR,
            [...lines.slice(0, 4), edit(4, { player: 'Zoé-Ωμέγα-李-😀' }), ...lines.slice(5)].join('\n'),
          ),
        ).toEqual({ lines: 20, imported: 20, alreadyImported: 0 })
      })

      it('says the line and the byte where a file stops being UTF-8, with its offset in the file, and a stable reason', async () => {
        await ready()
        const start = Buffer.from([0xef, 0xbb, 0xbf, ...Buffer.from(lines.slice(0, 2).join('\n') + '\n')])
        const third = Buffer.from(lines[2])
        const at = third.indexOf('"player":"') + '"player":"'.length
        for (const badBytes of [
          [0xe9],
          [0xc3],
          [0xed, 0xa0, 0x80],
          [0xc0, 0xaf],
          [0xf8],
          [0x80],
          [0xf4, 0x90, 0x80, 0x80],
        ]) {
          const bytes = Buffer.concat([
            start,
            third.subarray(0, at),
            Buffer.from(badBytes),
            third.subarray(at),
            Buffer.from('\n' + lines.slice(3).join('\n')),
          ])
          const e = rejection(() => importer!.importContent(TEST_ACTOR, bytes, 'odd.jsonl'))
          const where = { line: 3, byte: at + 1, offset: start.length + at }
          expect(e.code).toBe('BAD_ARGUMENTS')
          expect(e.message).toBe(
            `odd.jsonl is not UTF-8 text: it stops being UTF-8 at line 3, byte ${where.byte} of that line (offset ${where.offset} in the file, counting from 0); a sales feed is JSON lines in UTF-8`,
          )
          expect(e.extras).toMatchObject({ field: 'content', reason: { key: 'FEED_NOT_UTF8', params: where } })
        }
        // on line 1, after a byte order mark, the mark is not counted in the line
        const e = rejection(() => importer!.importContent(TEST_ACTOR, Buffer.from([0xef, 0xbb, 0xbf, 0x7b, 0xff])))
        expect(e.extras.reason).toEqual({ key: 'FEED_NOT_UTF8', params: { line: 1, byte: 2, offset: 4 } })
        expect(f!.catalog.block(1, 1).units_sold).toBe(0)
      })

      it('names only the bad line of five, whatever is wrong with it: the next lines are not judged out of order because of it', async () => {
        await ready()
        const five = lines.slice(0, 5)
        const wrongCheck = (() => {
          const s = JSON.parse(five[1]).serial as string
          return s.slice(0, -1) + String((Number(s.at(-1)) + 1) % 10)
        })()
        const play = JSON.parse(five[1]).play
        const bad: [string, string][] = [
          ['a wrong stake', edit(1, { stakeCents: 400 })],
          [
            'a play that breaks the rules',
            edit(1, { play: { ...play, status: play.status === 'complete' ? 'interrupted' : 'complete' } }),
          ],
          ['a missing field', JSON.stringify({ ...JSON.parse(five[1]), player: undefined })],
          ['not JSON', five[1].slice(0, 50)],
          ['a mistyped serial', edit(1, { serial: wrongCheck })],
          ['a time in the future', edit(1, { soldAt: '2025-04-01T00:00:00Z' })],
          ['a time before the first day', edit(1, { soldAt: '2025-02-01T00:00:00Z' })],
          ['a day that does not exist', edit(1, { soldAt: '2025-02-30T00:00:00Z' })],
          ['a bidirectional override in the player', edit(1, { player: 'P\u202E1' })],
          ['an unknown field', edit(1, { channel: 'web' })],
        ]
        for (const [what, line] of bad) {
          const d = problemsOf([five[0], line, ...five.slice(2)].join('\n'))
          expect(
            d.map((x) => x.line),
            what,
          ).toEqual([2])
          expect(
            d[0].problems.map((p) => p.code),
            what,
          ).not.toContain('OUT_OF_ORDER')
        }
        expect(f!.catalog.block(1, 1).units_sold).toBe(0)
      })

      it('still names a real gap, once, though a bad line whose unit cannot be read might have filled one unit of it', async () => {
        await ready()
        // units 0, (not JSON), 2, 3, 4, then 8 and 9: units 5 to 7 are missing, more than the one unreadable line
        const feed = [lines[0], lines[1].slice(0, 40), ...lines.slice(2, 5), lines[8], lines[9]]
        const d = problemsOf(feed.join('\n'))
        expect(d.map((x) => [x.line, x.problems.map((p) => p.code)])).toEqual([
          [2, ['JSON']],
          [6, ['OUT_OF_ORDER']],
        ])
        expect(d[1].problems[0].params).toEqual({
          serial: JSON.parse(lines[8]).serial,
          next: JSON.parse(lines[5]).serial,
        })
      })

      it('names a bad line that is also out of order with both its reasons', async () => {
        await ready()
        // unit 7 at a wrong stake, after units 0 to 4: a gap, and a stake
        const d = problemsOf([...lines.slice(0, 5), edit(7, { stakeCents: 100 })].join('\n'))
        expect(d.map((x) => [x.line, x.problems.map((p) => p.code)])).toEqual([[6, ['STAKE', 'OUT_OF_ORDER']]])
      })
    })

    describe('all or nothing', () => {
      it('stores none of the good lines when one line is bad', async () => {
        const { f, importer } = await fresh()
        const lines = validFeed.trim().split('\n')
        const last = JSON.parse(lines[19])
        lines[19] = JSON.stringify({ ...last, stakeCents: 1000 })
        const before = snapshot(f)
        const e = rejection(() => importer.importContent(TEST_ACTOR, lines.join('\n')))
        expect(e.extras.details).toEqual([
          {
            line: 20,
            reason: 'stakeCents must be the unit price, 500, not 1000',
            problems: [{ code: 'STAKE', params: { expectedCents: 500, gotCents: 1000 } }],
          },
        ])
        expect(snapshot(f)).toEqual(before)
      })

      // SQLite's foreign_keys pragma: SQLite only (PostgreSQL checks foreign keys always)
      it.skipIf(testEngine() === 'postgres')(
        "leaves SQLite's foreign-key checks on after a good file and after a refused one (the import's own batch checks its players)",
        async () => {
          const { f, importer } = await fresh()
          const lines = validFeed.trim().split('\n')
          const fkOn = () => f.db.pragma('foreign_keys', { simple: true })
          importer.importContent(TEST_ACTOR, lines.slice(0, 5).join('\n'))
          expect(fkOn()).toBe(1)
          rejection(() => importer.importContent(TEST_ACTOR, ['not json', ...lines.slice(5)].join('\n')))
          expect(fkOn()).toBe(1)
          expect(f.db.pragma('foreign_key_check')).toEqual([])
        },
      )

      it('names a gap once, not every line after it', async () => {
        const { importer } = await fresh()
        const lines = validFeed.trim().split('\n')
        lines.splice(5, 1)
        const e = rejection(() => importer.importContent(TEST_ACTOR, lines.join('\n')))
        expect(e.extras.details).toEqual([
          {
            line: 6,
            reason: expect.stringMatching(
              /0001-001-0000006-\d is out of order.*next unit to sell here is 0001-001-0000005-\d/,
            ),
            problems: [
              {
                code: 'OUT_OF_ORDER',
                params: {
                  serial: expect.stringMatching(/^0001-001-0000006-\d$/),
                  next: expect.stringMatching(/^0001-001-0000005-\d$/),
                },
              },
            ],
          },
        ])
      })

      it('refuses a closed emission, but still recognises a re-import there', async () => {
        const { f, importer } = await fresh()
        const lines = validFeed.trim().split('\n')
        importer.importContent(TEST_ACTOR, lines.slice(0, 10).join('\n'))
        f.emissions.close(TEST_ACTOR, 1)
        expect(importer.importContent(TEST_ACTOR, lines.slice(0, 10).join('\n'))).toEqual({
          lines: 10,
          imported: 0,
          alreadyImported: 10,
        })
        const e = rejection(() => importer.importContent(TEST_ACTOR, lines.join('\n')))
        expect((e.extras.details as ImportLineError[]).length).toBe(10)
        expect((e.extras.details as ImportLineError[])[0].reason).toMatch(
          /emission 1 is not open for sale: it is closed/,
        )
      })
    })
  })
}

describe('a feed streamed through the reader thread', () => {
  /** Two ledgers set up alike: the feed imported carefully into one, streamed into the other when it can be. */
  async function both(prepare?: (s: Setup) => unknown) {
    const careful = await freshWith(Infinity)
    await prepare?.(careful)
    // the same ledger, block secrets included, copied for the streamed import
    if (testEngine() === 'sqlite') careful.f.db.pragma('wal_checkpoint(TRUNCATE)')
    const dir = mkdtempSync(join(tmpdir(), 'carats-streamed-'))
    const copy = cloneTestLedger({ location: careful.f.path, keyFile: careful.f.keyFile }, dir)
    const f = openLedgerFixture({
      definition: smallDefinition(),
      clock: () => new Date(NOW),
      path: copy.location,
      keyFile: copy.keyFile,
    })
    open.push({ ...f, close: () => (f.close(), rmSync(dir, { recursive: true, force: true })) })
    const reads: string[] = []
    const streamed: Setup = {
      f,
      importer: createImporter({
        db: f.db,
        clock: f.clock,
        catalog: f.catalog,
        sales: f.sales,
        audit: f.audit,
        streamFrom: 0,
        onRead: (how) => reads.push(how),
      }),
    }
    const outcome = (s: Setup, feed: string | Uint8Array) => {
      try {
        return s.importer.importContent(TEST_ACTOR, feed, 'feed.jsonl')
      } catch (e) {
        if (e instanceof AppError) return { code: e.code, message: e.message, details: e.extras.details }
        throw e
      }
    }
    const audits = (f: LedgerFixture) =>
      f.db.prepare("SELECT action, object, details FROM audit WHERE action LIKE 'sales.import%' ORDER BY seq").all()
    return {
      reads,
      /** Imports the feed into both, and expects the same outcome and the same ledger. */
      same(feed: string | Uint8Array) {
        const a = outcome(careful, feed)
        const b = outcome(streamed, feed)
        expect(b).toEqual(a)
        expect(snapshot(streamed.f)).toEqual(snapshot(careful.f))
        expect(audits(streamed.f)).toEqual(audits(careful.f))
        return a
      },
      streamed,
    }
  }
  const lines = validFeed.trim().split('\n')

  it('stores exactly what the careful import stores, and the SHA-256 of the file itself', async () => {
    const t = await both()
    const withMark = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(validFeed)])
    expect(t.same(withMark)).toEqual({ lines: 20, imported: 20, alreadyImported: 0 })
    expect(t.reads).toEqual(['streamed'])
    const batch = t.streamed.f.db.prepare('SELECT file_sha256 FROM import_batches').pluck().get()
    expect(batch).toBe(createHash('sha256').update(withMark).digest('hex'))
  })

  it('streams two emissions one after the other, and reads them interleaved carefully, with the same result', async () => {
    // emission 3 opened beside emission 1: ten units of each
    const feedOf = (emission: number, from: number) =>
      lines.slice(from, from + 10).map((l, i) =>
        JSON.stringify({
          ...JSON.parse(l),
          serial: formatSerial({ emission, block: 1, unit: i }, 10_000),
          saleId: `E${emission}-${i}`,
        }),
      )
    const one = feedOf(1, 0)
    const three = feedOf(3, 10)
    const inOrder = await both((s) => s.f.openEmission({ startsOn: '2025-03-01' }))
    expect(inOrder.same([...one, ...three].join('\n'))).toEqual({ lines: 20, imported: 20, alreadyImported: 0 })
    expect(inOrder.reads).toEqual(['streamed'])
    const interleaved = await both((s) => s.f.openEmission({ startsOn: '2025-03-01' }))
    expect(interleaved.same(one.flatMap((l, i) => [l, three[i]]).join('\n'))).toEqual({
      lines: 20,
      imported: 20,
      alreadyImported: 0,
    })
    expect(interleaved.reads).toEqual(['careful'])
    // the same ledger either way: each player's sales and newest sale the same
    const chained = (f: LedgerFixture) =>
      f.db
        .prepare(
          `SELECT s.unit_key, s.sale_id, p.name, p.last_key FROM sales s JOIN players p ON p.id = s.player_id
      ORDER BY s.unit_key`,
        )
        .all()
    expect(chained(interleaved.streamed.f)).toEqual(chained(inOrder.streamed.f))
  })

  it('reads carefully what it cannot take as it comes, and ends with what the careful import ends with', async () => {
    const spaced = lines.map((l) => JSON.stringify(JSON.parse(l), null, 0).replace(/,"/g, ', "'))
    const cases: [string, (s: Setup) => void, string][] = [
      ['every line already imported', (s) => void s.importer.importContent(TEST_ACTOR, validFeed), validFeed],
      [
        'half of it already imported',
        (s) => void s.importer.importContent(TEST_ACTOR, lines.slice(0, 10).join('\n')),
        validFeed,
      ],
      [
        'a sale id recorded with other content',
        (s) => void s.importer.importContent(TEST_ACTOR, lines.slice(0, 10).join('\n')),
        lines
          .slice(10)
          .map((l, i) => l.replace(/"saleId":"[^"]*"/, `"saleId":"S-00000${i + 1}"`))
          .join('\n'),
      ],
      ['lines out of order', () => {}, [...lines.slice(10), ...lines.slice(0, 10)].join('\n')],
      ['a gap', () => {}, [...lines.slice(0, 5), ...lines.slice(6)].join('\n')],
      [
        'a bad last line',
        () => {},
        [...lines.slice(0, 19), lines[19].replace('"stakeCents":500', '"stakeCents":400')].join('\n'),
      ],
      [
        'a sale id twice',
        () => {},
        [...lines.slice(0, 19), lines[19].replace(/"saleId":"[^"]*"/, '"saleId":"S-000001"')].join('\n'),
      ],
      ['spaces after commas', () => {}, spaced.join('\n')],
      ['a blank line made of spaces', () => {}, [...lines.slice(0, 10), '   ', ...lines.slice(10)].join('\n')],
      ['only line breaks', () => {}, '\n\n'],
    ]
    for (const [name, prepare, feed] of cases) {
      const t = await both(prepare)
      t.same(feed)
      expect(t.reads, name).toEqual(['careful'])
    }
  })

  it("refuses what the careful import refuses for a line's time and player, and streams a time within the clocks' skew", async () => {
    const edit = (i: number, over: Record<string, unknown>) => JSON.stringify({ ...JSON.parse(lines[i]), ...over })
    const withLine = (i: number, over: Record<string, unknown>) =>
      [...lines.slice(0, i), edit(i, over), ...lines.slice(i + 1)].join('\n')
    const cases: [string, string][] = [
      ['a time beyond the skew', withLine(19, { soldAt: new Date(NOW + 5 * 60_000 + 1).toISOString() })],
      ['a day that does not exist', withLine(3, { soldAt: '2025-02-30T10:00:00.000Z' })],
      ['a time before the first day', withLine(3, { soldAt: '2025-02-28T23:59:59.999Z' })],
      ['DEL in a player id', withLine(5, { player: 'P1\u007f' })],
      [
        'a bidirectional override in a player id, escaped',
        withLine(5, { player: 'P1' }).replace('"player":"P1"', '"player":"P1\\u202e"'),
      ],
      ['a C1 control in a player id', withLine(5, { player: 'P1\u0085' })],
    ]
    for (const [name, feed] of cases) {
      const t = await both()
      expect((t.same(feed) as { code?: string }).code, name).toBe('IMPORT_REJECTED')
      expect(t.reads, name).toEqual(['careful'])
    }
    // an emission without a first day: a time before its creation, and one after
    const third = (soldAt: string) => (unit: number) =>
      edit(unit, { serial: formatSerial({ emission: 3, block: 1, unit }, 10_000), saleId: `E3-${unit}`, soldAt })
    const before = await both((s) => s.f.openEmission())
    expect((before.same([0, 1, 2].map(third('2025-03-20T14:59:00Z')).join('\n')) as { code?: string }).code).toBe(
      'IMPORT_REJECTED',
    )
    expect(before.reads).toEqual(['careful'])
    const after = await both((s) => s.f.openEmission())
    expect(after.same([0, 1, 2].map(third('2025-03-20T15:00:00.000Z')).join('\n'))).toEqual({
      lines: 3,
      imported: 3,
      alreadyImported: 0,
    })
    expect(after.reads).toEqual(['streamed'])
    // four minutes ahead of the clock: within the skew, streamed through
    const ahead = await both()
    expect(ahead.same(withLine(19, { soldAt: new Date(NOW + 4 * 60_000).toISOString() }))).toEqual({
      lines: 20,
      imported: 20,
      alreadyImported: 0,
    })
    expect(ahead.reads).toEqual(['streamed'])
  })

  it('streams a feed longer than its ring, across blocks, as the careful import stores it', async () => {
    // 40,000 lines: the ring's 8 slots of 4,096 lines go round more than once, and 4 blocks of 10,000 units follow one another
    const count = 40_000
    const t = await both((s) => s.f.openEmission({ blocks: 4, startsOn: '2025-03-01' }))
    const gen = createSalesGenerator({
      seed: 5,
      players: 1_500,
      count,
      fromMs: Date.parse('2025-03-02T00:00:00Z'),
      toMs: Date.parse('2025-03-19T00:00:00Z'),
      zones: smallDefinition(),
    })
    const feed = Array.from({ length: count }, (_, i) => {
      const d = gen.next()
      const unit = { emission: 3, block: Math.floor(i / 10_000) + 1, unit: i % 10_000 }
      return feedLine({
        saleId: i % 3 === 0 ? formatSerial(unit, 10_000) : `F-${i}`,
        serial: formatSerial(unit, 10_000),
        player: d.player,
        soldAt: d.soldAt,
        stakeCents: 500,
        play: d.play,
      })
    })
    expect(t.same(feed.join('\n') + '\n')).toEqual({ lines: count, imported: count, alreadyImported: 0 })
    expect(t.reads).toEqual(['streamed'])
  }, 60_000)

  it("is refused while another workstation's lease holds the file, its reading stopped; streamed once the lease is gone", async () => {
    const t = await both()
    const { db } = t.streamed.f
    const subject = `feed:${createHash('sha256').update(validFeed).digest('hex')}`
    db.prepare(
      `INSERT INTO job_leases (kind, subject, holder, host, pid, started_at, heartbeat_at)
      VALUES ('import', ?, 'w7', 'workstation-7', 4242, ?, ?)`,
    ).run(subject, NOW, NOW)
    const held = t.streamed.importer.importContent.bind(null, TEST_ACTOR, validFeed, 'feed.jsonl')
    expect(rejection(held).extras.reason).toMatchObject({ key: 'LEASE_HELD', params: { kind: 'import', subject } })
    expect(db.prepare('SELECT count(*) FROM sales').pluck().get()).toBe(0)
    db.prepare('DELETE FROM job_leases').run()
    // the same file again (its hash made by the lease, not the reader): streamed, and recorded with the file's own hash
    expect(t.same(validFeed)).toEqual({ lines: 20, imported: 20, alreadyImported: 0 })
    expect(t.reads).toEqual(['streamed'])
    expect(db.prepare('SELECT file_sha256 FROM import_batches').pluck().get()).toBe(subject.slice('feed:'.length))
  })

  it('refuses bytes that are not UTF-8 as the careful import does', async () => {
    const t = await both()
    t.same(Buffer.concat([Buffer.from(lines[0].slice(0, 60)), Buffer.from([0xe9]), Buffer.from(lines[0].slice(61))]))
    expect(t.reads).toEqual(['careful'])
  })
})
