/**
 * The careful import: every line read on its own (the usual lines by the fast reader, the others
 * by JSON.parse and the schema, which say what is wrong), checked against the ledger
 * (line-checks.ts), then checked across lines (order.ts). It says every bad line
 * with all its reasons, or writes every line; what it stores is what the streamed import
 * (stream.ts) stores.
 */
import { AppError, because } from '../../contract/errors'
import { SerialError } from '../../../game-core/serial'
import type { Db } from '../../ledger/db'
import { jsonValues } from '../../ledger/dialect'
import { unitKey } from '../../ledger/unit-key'
import type { Catalog } from '../catalog'
import { fastPlayCode, packFastPlayInto, readFeedLineFast } from './feed-line'
import type { FeedDeps, ImportOutcome, KeySpan } from './context'
import { GoodLines, PlayBytes, type FastLine, type FeedLine, type ReadLine, type StoredSale } from './lines'
import { bad, checkLine, holdPlace, soldBlockOf, unitOf, zonesOf, type CarefulRun, type Recorded } from './line-checks'
import { checkOrder, claimUnits } from './order'
import { describeZodIssue, feedLineSchema, jsonProblem, type Problem } from './problems'
import { importOutcome, readEmission, SERIAL_SHAPE, type EmissionInfo } from './rules'

/** Sale ids looked up in one query. */
const ID_CHUNK = 5000

/** A feed refused for its lines: how many it has, and each bad line's reasons. */
export interface LineRefusal {
  refused: { lines: number; problems: Map<number, Problem[]> }
}

/** The careful import of a feed (UTF-8, checked before), in the caller's transaction: written whole, or its bad lines. */
export type CarefulImport = (content: Buffer) => ImportOutcome | LineRefusal

type Statement = ReturnType<Db['prepare']>

/** What every careful import uses: its deps, and its statements, prepared once. */
interface CarefulContext extends FeedDeps {
  /** the sales recorded under a chunk's sale ids */
  byIds: Statement
  /** the units a chunk's lines name, read in one query: on PostgreSQL each statement is a round trip */
  byKeys: Statement
}

const SALE_COLUMNS = 's.unit_key, s.sale_id, p.name AS player, s.sold_at, s.stake_cents, s.play, s.events'

export function createCarefulImport(deps: FeedDeps): CarefulImport {
  const { db } = deps
  const byIds = db.prepare(`SELECT ${SALE_COLUMNS}
                            FROM sales s JOIN players p ON p.id = s.player_id WHERE s.sale_id IN (SELECT value FROM ${jsonValues(db)})`)
  const byKeys = db.prepare(`SELECT ${SALE_COLUMNS}
                            FROM sales s JOIN players p ON p.id = s.player_id
                            WHERE s.unit_key IN (SELECT CAST(value AS BIGINT) FROM ${jsonValues(db)})`)
  const ctx: CarefulContext = { ...deps, byIds, byKeys }
  return (content) => careful(ctx, content)
}

/** Each emission and its blocks, read once per import (null: no such emission). */
function emissionCache(catalog: Catalog): (n: number) => EmissionInfo | null {
  const emissions = new Map<number, EmissionInfo | null>()
  return (n) => {
    if (!emissions.has(n)) {
      try {
        emissions.set(n, readEmission(catalog, n))
      } catch (e) {
        if (!(e instanceof AppError) || e.code !== 'NOT_FOUND') throw e
        emissions.set(n, null)
      }
    }
    return emissions.get(n)!
  }
}

/** A careful import's state, with room for as many lines as the file has line breaks, and one. */
function startRun(ctx: CarefulContext, content: Buffer): CarefulRun {
  let breaks = 0
  for (let at = content.indexOf(0x0a); at >= 0; at = content.indexOf(0x0a, at + 1)) breaks++
  // a packed event takes 6 bytes, and at least 40 in JSON: room for the usual plays from the start
  const plays = new PlayBytes(Math.ceil(content.length / 6) + 64 * 6)
  const good = new GoodLines(breaks + 1, plays)
  const emissionOf = emissionCache(ctx.catalog)
  return {
    now: ctx.clock().getTime(),
    problems: new Map(),
    emissionOf,
    plays,
    good,
    idsSeen: new Map(),
    lines: 0,
    already: 0,
    unplaced: 0,
  }
}

function careful(ctx: CarefulContext, content: Buffer): ImportOutcome | LineRefusal {
  const run = startRun(ctx, content)
  readLines(ctx, run, content)
  if (run.lines === 0)
    throw new AppError('BAD_ARGUMENTS', 'the file holds no sales (no non-empty line): choose the sales feed itself', {
      field: 'content',
      ...because('FEED_EMPTY'),
    })

  const report = (line: number, p: Problem) => bad(run, line, p)
  const { runs, kept, placed } = claimUnits(run.good, report)
  checkOrder(run.good, placed, run.unplaced, run.emissionOf, report)

  // all or nothing
  if (run.problems.size > 0) return { refused: { lines: run.lines, problems: run.problems } }

  // every line checked, in this transaction: written per emission in unit order, as columns
  let imported = 0
  const spans: KeySpan[] = []
  for (const { emission, from, to } of runs) {
    imported += ctx.sales.sellChecked(emission, run.good.columns(kept, from, to))
    if (to > from) spans.push({ from: run.good.key[kept[from]], to: run.good.key[kept[to - 1]] })
  }
  const serials = {
    first: kept.length ? run.good.serial[kept[0]] : null,
    last: kept.length ? run.good.serial[kept[kept.length - 1]] : null,
  }
  return importOutcome(run.lines, imported, run.already, serials, null, spans)
}

/** Every line read, and checked a chunk at a time (the sales already recorded read per chunk). */
function readLines(ctx: CarefulContext, run: CarefulRun, content: Buffer): void {
  let chunk: ReadLine[] = []
  let lineNo = 0
  // a byte order mark, which a decoder would drop
  let pos = content[0] === 0xef && content[1] === 0xbb && content[2] === 0xbf ? 3 : 0
  while (pos <= content.length) {
    let end = content.indexOf(0x0a, pos)
    if (end < 0) end = content.length
    const start = pos
    pos = end + 1
    lineNo++
    if (chunk.length >= ID_CHUNK) {
      checkLines(ctx, run, chunk)
      chunk = []
    }
    const line = readLine(run, content, start, end, lineNo)
    if (line !== null) chunk.push(line)
  }
  checkLines(ctx, run, chunk)
}

/**
 * One line read: by the fast reader (its play packed), else by JSON.parse and the schema; null
 * for a blank line, and for one refused before its unit can be read (said, and counted unplaced).
 */
function readLine(run: CarefulRun, content: Buffer, start: number, end: number, n: number): ReadLine | null {
  // the usual line starts with its brace; any other is decoded (blank, or for the full path)
  const fast = content[start] === 0x7b ? readFeedLineFast(content, start, end) : null
  if (fast === null && content.toString('utf8', start, end).trim() === '') return null
  run.lines++
  if (fast) {
    if (fast.play === null) return { n, l: fast as FastLine, packed: null }
    const unit = unitOf(fast.serial)
    const def = zonesOf(run, unit)
    const { plays } = run
    // at most 64 events of 6 bytes
    const length = packFastPlayInto(fast.play, def.winningCells, def.yoursCells, plays.room(64 * 6), plays.length)
    if (length >= 0) {
      const packed = { code: fastPlayCode(fast.play), from: plays.length, to: plays.length + length }
      plays.length += length
      fast.play = null
      return { n, l: fast as FastLine, packed, unit }
    }
  }
  return readFullLine(run, content.toString('utf8', start, end), n)
}

/** A line read by JSON.parse and the schema, which say what is wrong with it. */
function readFullLine(run: CarefulRun, lineText: string, n: number): ReadLine | null {
  let value: unknown
  try {
    value = JSON.parse(lineText)
  } catch (e) {
    bad(run, n, jsonProblem(e, lineText))
    run.unplaced++
    return null
  }
  const parsed = feedLineSchema.safeParse(value)
  if (parsed.success) return { n, l: parsed.data, packed: undefined }
  for (const issue of parsed.error.issues) bad(run, n, describeZodIssue(issue, value))
  const serial = value !== null && typeof value === 'object' ? (value as { serial?: unknown }).serial : undefined
  if (typeof serial === 'string') return { n, l: null, packed: undefined, held: serial }
  run.unplaced++
  return null
}

/** Every line of a chunk on its own (the sales already recorded under their ids, or on their units, read in one query each). */
function checkLines(ctx: CarefulContext, run: CarefulRun, chunk: ReadLine[]): void {
  const recorded = recordedFor(ctx, run, chunk)
  for (const line of chunk) {
    if (line.l === null) holdPlace(run, line.n, line.held!)
    else checkLine(run, line as ReadLine & { l: FeedLine }, recorded)
  }
}

/** The sales recorded under a chunk's sale ids, and on the units it names among those already sold. */
function recordedFor(ctx: CarefulContext, run: CarefulRun, chunk: ReadLine[]): Recorded {
  const byId = new Map<string, StoredSale>()
  const ids: string[] = []
  for (const { l } of chunk) if (l !== null && !SERIAL_SHAPE.test(l.saleId)) ids.push(l.saleId)
  if (ids.length) for (const row of ctx.byIds.all(JSON.stringify(ids)) as StoredSale[]) byId.set(row.sale_id!, row)
  const keys: number[] = []
  for (const { l, unit } of chunk) {
    if (l === null) continue
    const parsed = unit ?? unitOf(l.serial)
    if (!(parsed instanceof SerialError) && soldBlockOf(run, parsed))
      keys.push(unitKey(parsed.emission, parsed.block, parsed.unit))
  }
  const onUnit = new Map<number, StoredSale>()
  if (keys.length) for (const row of ctx.byKeys.all(JSON.stringify(keys)) as StoredSale[]) onUnit.set(row.unit_key, row)
  return { byId, onUnit }
}
