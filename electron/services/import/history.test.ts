import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { smallDefinition } from '../../../test/support/game-fixtures'
import { FEED_MAX_BYTES } from '../../contract/feed'
import { createImporter, type Importer } from './importer'
import { openLedgerFixture, TEST_ACTOR, type LedgerFixture } from '../../../test/support/simulator-world'
import { refusal } from '../../../test/support/refusal'

const FIXTURES = join(__dirname, '../../../test/fixtures')
const validFeed = readFileSync(join(FIXTURES, 'sales-valid.jsonl'))
const badFeed = readFileSync(join(FIXTURES, 'sales-bad.jsonl'))
const NOW = Date.parse('2025-03-20T15:00:00Z')
const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex')

const open: LedgerFixture[] = []
afterEach(() => {
  while (open.length) open.pop()!.close()
})

async function fresh(): Promise<{ f: LedgerFixture; importer: Importer }> {
  const f = openLedgerFixture({ definition: smallDefinition(), clock: () => new Date(NOW) })
  open.push(f)
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
      streamFrom: Infinity,
    }),
  }
}

describe('the import history', () => {
  it('lists every import, latest first: file, SHA-256 of its bytes, who, when, lines and result', async () => {
    const { importer } = await fresh()
    importer.importContent(TEST_ACTOR, validFeed, 'day-1.jsonl')
    importer.importContent(TEST_ACTOR, validFeed, 'day-1-again.jsonl')
    const e = refusal(() => importer.importContent(TEST_ACTOR, badFeed, 'day-2.jsonl'))
    expect(e.code).toBe('IMPORT_REJECTED')
    const bad = (e.extras.details as unknown[]).length
    const h = importer.history({ page: 1, pageSize: 50 })
    expect(h.total).toBe(3)
    expect(h.items.map((r) => [r.fileName, r.result, r.lines, r.imported, r.alreadyImported, r.badLines])).toEqual([
      ['day-2.jsonl', 'refused', badFeed.toString().trim().split('\n').length, 0, 0, bad],
      ['day-1-again.jsonl', 'already', 20, 0, 20, 0],
      ['day-1.jsonl', 'imported', 20, 20, 0, 0],
    ])
    for (const r of h.items) {
      expect(r.actor).toBe(TEST_ACTOR.name)
      expect(r.at).toBe(new Date(NOW).toISOString())
    }
    expect(h.items[2].sha256).toBe(sha(validFeed))
    expect(h.items[0].sha256).toBe(sha(badFeed))
    expect(h.items[2].bytes).toBe(validFeed.length)
    expect(h.items[2].firstSerial).toMatch(/^0001-001-0000000-\d$/)
    expect(importer.history({ page: 2, pageSize: 2 }).items.map((r) => r.fileName)).toEqual(['day-1.jsonl'])
  })

  it('records the refusal of a file itself: empty, not UTF-8, or too large, with its SHA-256', async () => {
    const { importer } = await fresh()
    expect(refusal(() => importer.importContent(TEST_ACTOR, new Uint8Array(0), 'empty.jsonl')).extras.reason).toEqual({
      key: 'FEED_EMPTY',
      params: {},
    })
    const latin1 = Buffer.concat([validFeed.subarray(0, 40), Buffer.from([0xe9]), validFeed.subarray(41)])
    expect(refusal(() => importer.importContent(TEST_ACTOR, latin1, 'latin1.jsonl')).extras.reason?.key).toBe(
      'FEED_NOT_UTF8',
    )
    const [notUtf8, empty] = importer.history({ page: 1, pageSize: 10 }).items
    expect(empty).toMatchObject({
      fileName: 'empty.jsonl',
      result: 'refused',
      refusal: 'FEED_EMPTY',
      lines: 0,
      badLines: 0,
      sha256: sha(new Uint8Array(0)),
    })
    expect(notUtf8).toMatchObject({
      fileName: 'latin1.jsonl',
      result: 'refused',
      refusal: 'FEED_NOT_UTF8',
      lines: null,
      sha256: sha(latin1),
    })
  })

  it('reads entries of earlier versions, which lacked the SHA-256 of a refusal, without failing', async () => {
    const { f, importer } = await fresh()
    f.audit.record('old-operator', 'sales.import-rejected', 'import:rejected', {
      fileName: 'old.jsonl',
      badLines: 3,
      first: { line: 1, reason: 'x', problems: [] },
    })
    expect(importer.history({ page: 1, pageSize: 10 }).items[0]).toMatchObject({
      fileName: 'old.jsonl',
      sha256: null,
      lines: null,
      result: 'refused',
      badLines: 3,
      actor: 'old-operator',
    })
  })
})

describe("a feed's bytes", () => {
  it('are imported as they are: a byte order mark and CRLF line ends are fine, and the SHA-256 is of the bytes sent', async () => {
    const { importer } = await fresh()
    const bytes = new Uint8Array(
      Buffer.concat([
        Buffer.from([0xef, 0xbb, 0xbf]),
        Buffer.from(validFeed.toString().trim().split('\n').join('\r\n') + '\r\n'),
      ]),
    )
    expect(importer.importContent(TEST_ACTOR, bytes, 'bom-crlf.jsonl')).toEqual({
      lines: 20,
      imported: 20,
      alreadyImported: 0,
    })
    expect(importer.history({ page: 1, pageSize: 1 }).items[0].sha256).toBe(sha(bytes))
  })

  it('that are not UTF-8 are refused with the line and byte where they stop being so', async () => {
    const { importer } = await fresh()
    const lines = validFeed.toString().split('\n')
    const second = Buffer.from(lines[1])
    const at = second.indexOf('"player":"') + 10
    const broken = Buffer.concat([
      Buffer.from(lines[0] + '\n'),
      second.subarray(0, at),
      Buffer.from([0xff]),
      second.subarray(at + 1),
      Buffer.from('\n' + lines.slice(2).join('\n')),
    ])
    const e = refusal(() => importer.importContent(TEST_ACTOR, broken, 'broken.jsonl'))
    expect(e.code).toBe('BAD_ARGUMENTS')
    expect(e.message).toMatch(/^broken\.jsonl is not UTF-8 text: .*line 2/)
    expect(e.extras.reason).toEqual({
      key: 'FEED_NOT_UTF8',
      params: { line: 2, byte: at + 1, offset: lines[0].length + 1 + at },
    })
  })

  it('of an empty file are refused, saying the file holds no sales', async () => {
    const { importer } = await fresh()
    for (const empty of [new Uint8Array(0), new TextEncoder().encode('\n\r\n  \n')]) {
      const e = refusal(() => importer.importContent(TEST_ACTOR, empty, 'empty.jsonl'))
      expect(e.code).toBe('BAD_ARGUMENTS')
      expect(e.message).toMatch(/holds no sales/)
      expect(e.extras.reason?.key).toBe('FEED_EMPTY')
    }
  })

  it('beyond the size an import takes are refused before they are read, saying the limit', async () => {
    const { f, importer } = await fresh()
    // a view longer than the limit, on memory never filled (nothing is read)
    const huge = new Uint8Array(new ArrayBuffer(FEED_MAX_BYTES + 1))
    const e = refusal(() => importer.importContent(TEST_ACTOR, huge, 'huge.jsonl'))
    expect(e.code).toBe('BAD_ARGUMENTS')
    expect(e.message).toBe('huge.jsonl is 512 MiB, more than the 512 MiB an import takes: split it into smaller files')
    expect(e.extras.reason).toEqual({ key: 'FEED_TOO_LARGE', params: { mib: 513, maxMib: 512 } })
    expect(f.db.prepare('SELECT count(*) FROM sales').pluck().get()).toBe(0)
    expect(importer.history({ page: 1, pageSize: 1 }).items[0]).toMatchObject({
      fileName: 'huge.jsonl',
      refusal: 'FEED_TOO_LARGE',
      bytes: FEED_MAX_BYTES + 1,
    })
  })
})
