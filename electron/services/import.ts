/**
 * The sales-feed importer. A feed is JSON lines, one sale each:
 *   {"saleId","serial","player","soldAt","stakeCents","play":{"mode","status","events":[…]}}
 * (`"play": null` when the platform recorded no reveal). A file is imported whole or not at all:
 * every line is checked first, and one bad line rejects the file with AppError('IMPORT_REJECTED')
 * whose details list every bad line by number with all its reasons; nothing is stored. A good
 * file is stored in one transaction, with its batch record and its audit entry.
 *
 * Order (SPEC §4: units sell in index order within a block, blocks in order). The lines of a
 * file may come in any order, but for each emission the units the file sells must be exactly the
 * run that starts at the emission's next unsold unit, without a gap; a block's last unit is
 * followed by the next block's first. A line whose unit leaves a gap is refused and named with
 * the unit expected there; the lines after a gap are judged from that line on (one gap, one
 * error, not a cascade). The order is judged over every line that names a unit, bad or not: a
 * line refused for its own reasons (its stake, its play, its time…) still holds its unit's
 * place, so the lines after it are not called out of order because of it. A bad line whose unit
 * cannot be read (not JSON, a malformed line, a mistyped serial) may be the one that fills a
 * gap: a gap is named only when it is wider than the unreadable lines left to fill it.
 *
 * Re-import: a line whose saleId is already recorded with the same content (unit, player,
 * soldAt, stake, play) is skipped and counted as already imported; the same saleId with any
 * other content is a bad line. A saleId with the shape of a serial must be the line's own serial
 * (the ledger stores such ids as the unit itself).
 *
 * soldAt: an ISO 8601 date-time with a zone, on a day and at a time that exist (contract/dates.ts:
 * 2026-02-30 is refused, not rolled over into March), not before the emission's first sale day
 * (or, when it has none, before the emission was created), and not more than SALE_CLOCK_SKEW_MS
 * (5 minutes) ahead of this machine's clock (platform clocks drift a little).
 *
 * player: an account id without control characters or bidirectional formatting characters
 * (contract/player-id.ts). The file itself must be UTF-8: one that is not is refused with the
 * line and the byte where it stops being UTF-8.
 */
import { isUtf8 } from 'node:buffer'
import { createHash } from 'node:crypto'
import { closeSync, fstatSync, openSync, readSync } from 'node:fs'
import { z } from 'zod'
import { isoDateTimeShaped } from '../contract/dates'
import { AppError, because } from '../contract/errors'
import { describePlayerIdProblem, playerIdProblem } from '../contract/player-id'
import { describeUtf8Stop, utf8Stop } from '../contract/utf8'
import type { ImportLineError, ImportProblem, ImportProblemCode, ImportResult } from '../contract/types'
import { playProblems, type Play } from '../../game-core/play'
import type { GameDefinition } from '../../game-core/rules'
import { formatSerial, parseSerial, SerialError, type UnitId } from '../../game-core/serial'
import type { Db } from '../ledger/db'
import { splitUnitKey, unitKey } from '../ledger/migrations'
import { isValidPlayFast, packEvents, playCode } from '../ledger/play-codec'
import type { AuditService } from './audit'
import type { BlockRow, Catalog, EmissionRow } from './catalog'
import { type Actor, type Clock, iso, SALE_CLOCK_SKEW_MS, saleFloorMs, toMillis } from './common'
import { describeStatus } from './emissions'
import { fastPlayCode, packFastPlayInto, readFeedLineFast } from './feed-line'
import { CTRL, LINE_FLAGS, READER, SLOT_LINES, SLOTS } from './feed-ring'
import { NO_PLAY, withoutKeyChecks, type CheckedSales, type CheckedStream, type SalesService } from './sales'
import { startFeedReader } from '../workers/feed-reader'

/** Bad lines listed in the error's details; the message counts them all. */
export const MAX_LISTED = 10_000
const MAX_TEXT = 64
const SERIAL_SHAPE = /^\d{4}-\d{3}-\d{7}-\d$/

const text = (what: string) =>
  z.string().min(1, `${what} is empty`).max(MAX_TEXT, `${what} is longer than ${MAX_TEXT} characters`).refine((s) => s.trim() === s, `${what} has spaces around it`)

/** One line's shape. The events are checked by the game's own rules (validatePlay), with their fields. */
export const feedLineSchema = z
  .object({
    saleId: text('saleId'),
    serial: z.string().max(40, 'serial is too long'),
    player: text('player'),
    soldAt: z.string().max(40, 'soldAt is too long'),
    stakeCents: z.number().int('stakeCents must be a whole number of cents'),
    play: z
      .object({
        mode: z.enum(['play', 'auto']),
        status: z.enum(['complete', 'interrupted']),
        events: z.array(z.unknown()).max(64, 'a play has at most 64 events'),
      })
      .strict()
      .nullable(),
  })
  .strict()

type FeedLineData = z.infer<typeof feedLineSchema>

/** Thrown by the streamed import at a line it does not take as it comes (see streamed). */
class Irregular extends Error {}

/** One reason to refuse a line: its code and values (for the screens), and its English sentence. */
type Problem = ImportProblem & { text: string }
const problem = (code: ImportProblemCode, params: ImportProblem['params'], text: string): Problem => ({ code, params, text })
/** Sale ids looked up in one query. */
const ID_CHUNK = 5000
const EVENT_KEYS = new Set(['t', 'zone', 'cell', 'gesture'])

export interface ImporterDeps {
  db: Db
  clock: Clock
  catalog: Catalog
  sales: SalesService
  audit: AuditService
  /** Feeds of at least this many bytes are read on a second thread while checked and written (feed-ring.ts). */
  streamFrom?: number
  /** Told how each import was read: streamed through, or carefully (small, or irregular, or refused). */
  onRead?: (how: 'streamed' | 'careful') => void
}

/** Below this size a feed is read on the importer's thread alone: the reader thread would not pay for itself. */
export const STREAM_FROM_BYTES = 4 << 20

export interface Importer {
  /**
   * Imports a feed given as text (the contract's sales:import) or as the bytes of its file (the
   * command line: no decoding of the whole file, and the hash is the file's own).
   */
  importContent(actor: Actor, content: string | Uint8Array, fileName?: string): ImportResult
}

/** A play packed as the ledger stores it (play-codec): its code, and its events at PlayBytes[from … to). */
type PackedPlay = { code: number; from: number; to: number }

/** The packed plays of a feed, end to end in one buffer that grows (no buffer per line). */
class PlayBytes {
  length = 0
  /** Room for `expected` bytes from the start (it grows beyond when needed). */
  constructor(expected: number, public buf = Buffer.allocUnsafe(Math.max(expected, 1 << 16))) {}

  /** Room for n more bytes after `length`. */
  room(n: number): Buffer {
    if (this.length + n > this.buf.length) {
      const more = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.length + n))
      this.buf.copy(more, 0, 0, this.length)
      this.buf = more
    }
    return this.buf
  }

  append(code: number, bytes: Uint8Array): PackedPlay {
    this.room(bytes.length).set(bytes, this.length)
    const from = this.length
    this.length += bytes.length
    return { code, from, to: this.length }
  }
}
/** A line read by the fast reader, its play packed apart. */
type FastLine = Omit<FeedLineData, 'play'> & { play: null }
/** A line read, before its checks: `packed` is undefined when the full path read it (its play still to check). */
interface ReadLine {
  n: number
  /** null for a line that its schema refused, whose serial (`held`) may still say which unit's place it holds */
  l: FeedLineData | FastLine | null
  packed: PackedPlay | null | undefined
  unit?: UnitId | SerialError
  held?: string
}

/**
 * The lines that claim a unit, as columns in the file's order (no object per line): those that
 * passed every check of their own (`ok`), and those refused only for their unit's state
 * (`refusal`, said unless a line before claimed the same unit).
 */
class GoodLines {
  count = 0
  readonly line: Int32Array
  // grown a line at a time (an Array made with room for a million slots would be a dictionary)
  readonly saleId: string[] = []
  readonly serial: string[] = []
  readonly emission: Int32Array
  readonly block: Int32Array
  readonly unit: Int32Array
  readonly key: Float64Array
  readonly player: string[] = []
  readonly soldAt: Float64Array
  /** play-codec's playCode, or NO_PLAY */
  readonly code: Uint8Array
  /** line i's packed events are plays[evStart[i] … evEnd[i]) */
  readonly evStart: Float64Array
  readonly evEnd: Float64Array
  readonly ok: Uint8Array
  readonly refusal: (Problem | null)[] = []

  /** Room for `most` lines. */
  constructor(most: number, private readonly plays: PlayBytes) {
    this.line = new Int32Array(most)
    this.emission = new Int32Array(most)
    this.block = new Int32Array(most)
    this.unit = new Int32Array(most)
    this.key = new Float64Array(most)
    this.soldAt = new Float64Array(most)
    this.code = new Uint8Array(most)
    this.evStart = new Float64Array(most)
    this.evEnd = new Float64Array(most)
    this.ok = new Uint8Array(most)
  }

  add(n: number, saleId: string, serial: string, id: UnitId, key: number, player: string, soldAt: number, play: PackedPlay | null, ok: boolean, refusal: Problem | null) {
    const i = this.count++
    this.line[i] = n
    this.saleId[i] = saleId
    this.serial[i] = serial
    this.emission[i] = id.emission
    this.block[i] = id.block
    this.unit[i] = id.unit
    this.key[i] = key
    this.player[i] = player
    this.soldAt[i] = soldAt
    this.code[i] = play ? play.code : NO_PLAY
    // no play: an empty range right after the line before, so that the lines stay end to end
    const after = i > 0 ? this.evEnd[i - 1] : 0
    this.evStart[i] = play ? play.from : after
    this.evEnd[i] = play ? play.to : after
    this.ok[i] = ok ? 1 : 0
    this.refusal[i] = refusal
  }

  /** The lines' places in unit order, a unit's lines in the file's order (a feed usually is in unit order already). */
  byKey(): number[] {
    const key = this.key
    const order = Array.from({ length: this.count }, (_, i) => i)
    for (let i = 1; i < this.count; i++) if (key[i] <= key[i - 1]) return order.sort((a, b) => key[a] - key[b] || a - b)
    return order
  }

  /** The lines at places[from … to) as sales.sellChecked takes them. */
  columns(places: readonly number[], from: number, to: number): CheckedSales {
    const count = to - from
    const players: string[] = new Array(count)
    const soldAt = new Float64Array(count)
    const codes = new Uint8Array(count)
    const ends = new Uint32Array(count)
    const saleIds: (string | null)[] = new Array(count)
    // the plays as they lie when the lines' plays follow one another (a feed in unit order), else copied
    let contiguous = true
    let size = 0
    for (let k = from; k < to; k++) {
      const g = places[k]
      if (k > from && this.evStart[g] !== this.evEnd[places[k - 1]]) contiguous = false
      size += this.evEnd[g] - this.evStart[g]
    }
    const base = count ? this.evStart[places[from]] : 0
    const events = contiguous ? this.plays.buf.subarray(base, base + size) : new Uint8Array(size)
    let o = 0
    for (let i = 0; i < count; i++) {
      const g = places[from + i]
      players[i] = this.player[g]
      soldAt[i] = this.soldAt[g]
      codes[i] = this.code[g]
      // a sale id shaped like a serial is the line's own serial (checked): stored as the unit's
      saleIds[i] = SERIAL_SHAPE.test(this.saleId[g]) ? null : this.saleId[g]
      const n = this.evEnd[g] - this.evStart[g]
      if (!contiguous) events.set(this.plays.buf.subarray(this.evStart[g], this.evEnd[g]), o)
      o += n
      ends[i] = o
    }
    return { count, players, soldAt, codes, ends, events, saleIds }
  }
}

interface StoredSale {
  unit_key: number
  sale_id: string | null
  player: string
  sold_at: number
  stake_cents: number
  play: number | null
  events: Buffer | null
}

function valueAt(root: unknown, path: readonly PropertyKey[]): { present: boolean; value: unknown } {
  let v: unknown = root
  for (const k of path) {
    if (v === null || typeof v !== 'object' || !Object.hasOwn(v, k)) return { present: false, value: undefined }
    v = (v as Record<PropertyKey, unknown>)[k]
  }
  return { present: true, value: v }
}

function describeZodIssue(issue: z.core.$ZodIssue, root: unknown): Problem {
  const path = issue.path.map(String).join('.')
  if (issue.code === 'unrecognized_keys') {
    const where = path ? ` in ${path}` : ''
    const fields = issue.keys.map((k) => `"${k}"`).join(', ')
    return problem('FIELD_UNKNOWN', { fields, where: path }, `unknown field${issue.keys.length > 1 ? 's' : ''} ${fields}${where}`)
  }
  if (issue.code === 'invalid_type' && !valueAt(root, issue.path).present) return problem('FIELD_MISSING', { field: path }, `missing field "${path}"`)
  const shape = (text: string) => problem('SHAPE', { detail: text }, text)
  if (issue.code === 'invalid_value' && path) return shape(`${path} must be ${issue.values.map((v) => JSON.stringify(v)).join(' or ')}`)
  if (issue.code === 'invalid_type') {
    const what = issue.expected === 'object' ? 'an object' : issue.expected === 'array' ? 'a list' : `a ${issue.expected}`
    return shape(`${path || 'the line'} must be ${what}${issue.expected === 'object' && path === 'play' ? ' or null' : ''}, not ${JSON.stringify(valueAt(root, issue.path).value)}`)
  }
  return shape(path && !issue.message.startsWith(path) ? `${path}: ${issue.message}` : issue.message)
}

/**
 * A line that JSON.parse refused: its sentence, and where it gave up as a column of the line
 * when its message says (`column`; `end` when the line stops before its JSON does), so that the
 * screens can say it in the user's language.
 */
function jsonProblem(e: unknown, line: string): Problem {
  const detail = e instanceof Error ? e.message : String(e)
  const params: ImportProblem['params'] = { detail }
  const at = /at position (\d+)/.exec(detail)
  const position = at ? Number(at[1]) : /end of JSON input/.test(detail) ? line.length : -1
  if (position >= 0) params.column = Math.min(position, line.length) + 1
  if (position >= line.length) params.end = 1
  return problem('JSON', params, `not valid JSON (${detail})`)
}

/** The events' own fields: validatePlay judges their values, this the keys it does not look at. */
function eventFieldProblems(events: unknown[]): Problem[] {
  const out: Problem[] = []
  events.forEach((e, i) => {
    if (e === null || typeof e !== 'object' || Array.isArray(e)) return
    const keys = Object.keys(e)
    const extra = keys.filter((k) => !EVENT_KEYS.has(k))
    const missing = [...EVENT_KEYS].filter((k) => !(k in e))
    const list = (ks: string[]) => ks.map((k) => `"${k}"`).join(', ')
    if (extra.length) out.push(problem('EVENT_FIELDS_UNKNOWN', { event: i + 1, fields: list(extra) }, `event ${i + 1}: unknown field${extra.length > 1 ? 's' : ''} ${list(extra)}`))
    if (missing.length) out.push(problem('EVENT_FIELDS_MISSING', { event: i + 1, fields: list(missing) }, `event ${i + 1}: missing field${missing.length > 1 ? 's' : ''} ${list(missing)}`))
  })
  return out
}

const fastEventKeys = (events: unknown[]): boolean => {
  for (const e of events) {
    if (e === null || typeof e !== 'object') return false
    let n = 0
    for (const k in e) {
      if (!EVENT_KEYS.has(k)) return false
      n++
    }
    if (n !== 4) return false
  }
  return true
}

export function createImporter({ db, clock, catalog, sales, audit, streamFrom = STREAM_FROM_BYTES, onRead }: ImporterDeps): Importer {
  const byIds = db.prepare(`SELECT s.unit_key, s.sale_id, p.name AS player, s.sold_at, s.stake_cents, s.play, s.events
                            FROM sales s JOIN players p ON p.id = s.player_id WHERE s.sale_id IN (SELECT value FROM json_each(?))`)
  const byKey = db.prepare(`SELECT s.unit_key, s.sale_id, p.name AS player, s.sold_at, s.stake_cents, s.play, s.events
                            FROM sales s JOIN players p ON p.id = s.player_id WHERE s.unit_key = ?`)
  const insertBatch = db.prepare('INSERT INTO import_batches (file_sha256, file_name, lines, imported, already, actor, at) VALUES (?, ?, ?, ?, ?, ?, ?)')
  const openEmissions = db.prepare("SELECT emission FROM emissions WHERE status = 'open' ORDER BY emission").pluck()

  /** The import's record and audit entry, once its sales are written. */
  function recordImport(actor: Actor, fileName: string | undefined, sha256: string, counts: ImportResult, firstSerial: string | null, lastSerial: string | null): ImportResult {
    const { lines, imported, alreadyImported } = counts
    const batchId = Number(insertBatch.run(sha256, fileName ?? null, lines, imported, alreadyImported, actor.name, iso(clock())).lastInsertRowid)
    audit.record(actor.name, 'sales.import', `import:${batchId}`, { fileName: fileName ?? null, sha256, lines, imported, alreadyImported, firstSerial, lastSerial })
    return counts
  }

  /**
   * The usual feed, read on a second thread (feed-ring.ts) while its lines are checked and
   * written here as they come, in the caller's transaction: lines in unit order, each its
   * emission's next unit, no sale id recorded before, nothing to refuse. At the first line that
   * is not so it throws Irregular (and the savepoint of streamTx drops what it wrote): the
   * careful import then starts again from the first line, and says what is wrong, if anything.
   * What a streamed import stores is what the careful one stores.
   */
  function streamed(actor: Actor, feed: Buffer, fileName: string | undefined): ImportResult {
    const latest = clock().getTime() + SALE_CLOCK_SKEW_MS
    /** `floor`: the earliest sale time (the first sale day, else the emission's creation) */
    type Open = { emission: number; def: GameDefinition; blocks: BlockRow[]; floor: number; next: number }
    const open = new Map<number, Open>()
    for (const emission of openEmissions.all() as number[]) {
      const row = catalog.emission(emission)
      const def = catalog.definition(emission)
      const blocks = catalog.blocks(emission)
      const firstOpen = blocks.find((b) => b.units_sold < def.blockSize)
      const next = firstOpen ? (firstOpen.block - 1) * def.blockSize + firstOpen.units_sold : blocks.length * def.blockSize
      open.set(emission, { emission, def, blocks, floor: saleFloorMs(row), next })
    }
    const shared = feed.buffer instanceof SharedArrayBuffer ? feed : copyShared(feed)
    const reader = startFeedReader(shared, [...open.values()].map((e) => [e.emission, e.def.winningCells, e.def.yoursCells]))
    const { ring } = reader
    const ctrl = ring.control
    try {
      let consumed = 0
      let current: Open | null = null
      let stream: CheckedStream | null = null
      let imported = 0
      let first: string | null = null
      let last = { emission: 0, block: 0, unit: 0, size: 0 }
      const names: string[] = []
      let waited = 0
      for (;;) {
        const state = Atomics.load(ctrl, CTRL.STATE)
        const produced = Atomics.load(ctrl, CTRL.PRODUCED)
        if (produced === consumed) {
          if (state === READER.DONE) break
          if (state !== READER.RUNNING) throw new Irregular()
          // a reader that says nothing for a minute has died
          if (Atomics.wait(ctrl, CTRL.PRODUCED, consumed, 1000) === 'timed-out' && ++waited >= 60) throw new Irregular()
          continue
        }
        waited = 0
        const s = consumed % SLOTS
        const base = s * SLOT_LINES
        const count = ring.count[s]
        const events = ring.slotEvents(s)
        for (let i = 0; i < count; ) {
          const emission = ring.emission[base + i]
          if (emission !== current?.emission) {
            // emissions in order, each once, as the careful import writes them
            const e = open.get(emission)
            if (!e || (current && emission < current.emission)) throw new Irregular()
            if (stream) imported += stream.finish()
            current = e
            stream = sales.checkedStream(emission)
          }
          const e = current
          const size = e.def.blockSize
          const price = e.def.unitPriceCents
          const players: string[] = []
          const saleIds: (string | null)[] = []
          let j = i
          for (; j < count && ring.emission[base + j] === emission; j++) {
            const at = base + j
            const block = ring.block[at]
            const unit = ring.unit[at]
            if (unit >= size || block > e.blocks.length || (block - 1) * size + unit !== e.next || e.blocks[block - 1].status !== 'verified') throw new Irregular()
            e.next++
            const soldAt = ring.soldAt[at]
            if (ring.stake[at] !== price || soldAt > latest || soldAt < e.floor) throw new Irregular()
            const flags = ring.flags[at]
            let saleId: string | null = null
            if ((flags & LINE_FLAGS.SERIAL_ID) === 0) saleId = feed.toString('latin1', ring.saleIdFrom[at], ring.saleIdTo[at])
            saleIds.push(saleId)
            const p = ring.player[at]
            if (flags & LINE_FLAGS.NEW_PLAYER) names[p] = feed.toString('latin1', ring.playerFrom[at], ring.playerTo[at])
            players.push(names[p])
            first ??= formatSerial({ emission, block, unit }, size)
            last = { emission, block, unit, size }
          }
          const from = i === 0 ? 0 : ring.eventsEnd[base + i - 1]
          const ends = ring.eventsEnd.subarray(base + i, base + j)
          stream!.add({
            count: j - i,
            players,
            saleIds,
            soldAt: ring.soldAt.subarray(base + i, base + j),
            codes: ring.code.subarray(base + i, base + j),
            ends: from === 0 ? ends : ends.map((end) => end - from),
            events: events.subarray(from),
          })
          i = j
        }
        consumed++
        Atomics.store(ctrl, CTRL.CONSUMED, consumed)
        Atomics.notify(ctrl, CTRL.CONSUMED)
      }
      const lines = Atomics.load(ctrl, CTRL.LINES)
      // an empty feed is the careful import's to refuse
      if (lines === 0) throw new Irregular()
      if (stream) imported += stream.finish()
      const sha256 = Buffer.from(ring.digest).toString('hex')
      return recordImport(actor, fileName, sha256, { lines, imported, alreadyImported: 0 }, first, first === null ? null : formatSerial(last, last.size))
    } catch (e) {
      // a sale id recorded before (the ledger's unique index refused it): the same sale again,
      // or a conflict, which the careful import tells apart
      if (e instanceof AppError && e.code === 'CONFLICT') throw new Irregular()
      throw e
    } finally {
      Atomics.store(ctrl, CTRL.CANCEL, 1)
      Atomics.notify(ctrl, CTRL.CONSUMED)
      reader.done()
    }
  }
  // a savepoint: an Irregular line drops what the streamed import wrote
  const streamTx = db.transaction(streamed)

  function run(actor: Actor, content: Buffer, fileName: string | undefined): ImportResult {
    if (content.length >= streamFrom) {
      try {
        const r = streamTx(actor, content, fileName)
        onRead?.('streamed')
        return r
      } catch (e) {
        if (!(e instanceof Irregular)) throw e
      }
    }
    onRead?.('careful')
    // fatal, as a decoder would be: a file that is not UTF-8 is refused rather than read with
    // replacement characters (a feed that streamed through is ASCII: the reader takes nothing wider)
    const notUtf8 = notUtf8Refusal(content, fileName)
    if (notUtf8) throw notUtf8
    const now = clock().getTime()
    const problems = new Map<number, Problem[]>()
    const bad = (line: number, p: Problem) => {
      const list = problems.get(line)
      if (list) list.push(p)
      else problems.set(line, [p])
    }

    // emissions and blocks, read once
    /** `floor`: the earliest sale time (the first sale day, else the emission's creation) */
    const emissions = new Map<number, { row: EmissionRow; def: GameDefinition; blocks: BlockRow[]; floor: number } | null>()
    const emissionOf = (n: number) => {
      if (!emissions.has(n)) {
        try {
          const row = catalog.emission(n)
          emissions.set(n, { row, def: catalog.definition(n), blocks: catalog.blocks(n), floor: saleFloorMs(row) })
        } catch (e) {
          if (!(e instanceof AppError) || e.code !== 'NOT_FOUND') throw e
          emissions.set(n, null)
        }
      }
      return emissions.get(n)!
    }

    // room for as many lines as the file has line breaks, and one
    let breaks = 0
    for (let at = content.indexOf(0x0a); at >= 0; at = content.indexOf(0x0a, at + 1)) breaks++
    // a packed event takes 6 bytes, and at least 40 in JSON: room for the usual plays from the start
    const plays = new PlayBytes(Math.ceil(content.length / 6) + 64 * 6)
    const good = new GoodLines(breaks + 1, plays)
    const idsSeen = new Map<string, number>()
    let lines = 0
    let already = 0
    /** Bad lines whose unit cannot be read (not JSON, malformed, a mistyped serial): each may be a unit that a gap lacks. */
    let unplaced = 0
    /** The serial read once per line: its unit, or why it is not a serial. */
    const unitOf = (serial: string): UnitId | SerialError => {
      try {
        return parseSerial(serial)
      } catch (e) {
        if (e instanceof SerialError) return e
        throw e
      }
    }
    /** The zones of the serial's emission, or of CARATS when the serial names none (the full path's choice). */
    const zonesOf = (id: UnitId | SerialError): Pick<GameDefinition, 'winningCells' | 'yoursCells'> =>
      (id instanceof SerialError ? null : emissionOf(id.emission)?.def) ?? { winningCells: 6, yoursCells: 24 }

    /**
     * A line refused by its schema, whose serial still names a unit that is for sale: it holds
     * that unit's place for the order's check (refused already, it is never written). One whose
     * serial cannot be read may be any unit: it counts among the unplaced lines.
     */
    const holdPlace = (n: number, serial: string) => {
      const id = unitOf(serial)
      if (id instanceof SerialError) {
        unplaced++
        return
      }
      const e = emissionOf(id.emission)
      const block = e?.blocks[id.block - 1]
      // a unit that does not exist, or one sold already, is no unit the file may lack
      if (!e || !block || id.unit >= e.def.blockSize || id.unit < block.units_sold) return
      good.add(n, '', formatSerial(id, e.def.blockSize), id, unitKey(id.emission, id.block, id.unit), '', NaN, null, false, null)
    }

    /** Every line on its own, a chunk of lines at a time (the sales already recorded under their ids read in one query). */
    const checkLines = (chunk: ReadLine[]) => {
      const recorded = new Map<string, StoredSale>()
      const ids: string[] = []
      for (const { l } of chunk) if (l !== null && !SERIAL_SHAPE.test(l.saleId)) ids.push(l.saleId)
      if (ids.length) for (const row of byIds.all(JSON.stringify(ids)) as StoredSale[]) recorded.set(row.sale_id!, row)

      for (const { n, l, packed, unit, held } of chunk) {
        if (l === null) {
          holdPlace(n, held!)
          continue
        }
        const before = problems.get(n)?.length ?? 0

        const earlier = idsSeen.get(l.saleId)
        if (earlier !== undefined) bad(n, problem('SALE_ID_TWICE', { saleId: l.saleId, first: earlier }, `saleId ${l.saleId} appears twice in the file (first at line ${earlier})`))
        else idsSeen.set(l.saleId, n)

        const parsed = unit ?? unitOf(l.serial)
        const id = parsed instanceof SerialError ? null : parsed
        if (parsed instanceof SerialError) {
          bad(n, problem('SERIAL', { serial: l.serial }, `serial ${JSON.stringify(l.serial)}: ${parsed.message}`))
          unplaced++
        }

        const playerProblem = playerIdProblem(l.player)
        if (playerProblem) bad(n, problem('PLAYER_CHARS', playerProblem, `player: ${describePlayerIdProblem(playerProblem)}`))

        const soldAt = toMillis(l.soldAt)
        if (Number.isNaN(soldAt)) {
          if (isoDateTimeShaped(l.soldAt)) bad(n, problem('SOLD_AT_DATE', { soldAt: l.soldAt }, `soldAt ${JSON.stringify(l.soldAt)} names a day or a time that does not exist`))
          else bad(n, problem('SOLD_AT_FORMAT', { soldAt: l.soldAt }, `soldAt ${JSON.stringify(l.soldAt)} is not an ISO 8601 date-time with a zone (e.g. 2025-03-01T12:30:00Z)`))
        } else if (soldAt > now + SALE_CLOCK_SKEW_MS) {
          const at = new Date(now).toISOString()
          bad(n, problem('SOLD_AT_FUTURE', { soldAt: l.soldAt, now: at, skewMinutes: SALE_CLOCK_SKEW_MS / 60_000 }, `soldAt ${l.soldAt} is in the future (now is ${at}; clocks may differ by up to ${SALE_CLOCK_SKEW_MS / 60_000} minutes)`))
        }

        let play: PackedPlay | null = null
        if (packed !== undefined) play = packed
        else if (l.play) {
          const p = l.play as Play
          const def = zonesOf(parsed)
          if (isValidPlayFast(p, def.winningCells, def.yoursCells) && fastEventKeys(l.play.events)) {
            play = plays.append(playCode(p), packEvents(p.events))
          } else {
            const why: Problem[] = [...eventFieldProblems(l.play.events), ...playProblems(p, def)]
            // one sentence in English: "the play breaks the rules: a; b"
            why.forEach((w, i) => bad(n, i === 0 ? { ...w, text: `the play breaks the rules: ${w.text}` } : w))
            if (why.length === 0) play = plays.append(playCode(p), packEvents(p.events))
          }
        }

        if (!id) continue
        const e = emissionOf(id.emission)
        if (!e) {
          bad(n, problem('EMISSION_UNKNOWN', { serial: l.serial, emission: id.emission }, `serial ${l.serial}: emission ${id.emission} does not exist`))
          continue
        }
        const blockSize = e.def.blockSize
        if (id.unit >= blockSize) {
          bad(n, problem('UNIT_BEYOND', { serial: l.serial, unit: id.unit, size: blockSize }, `serial ${l.serial}: unit ${id.unit} is beyond the block's ${blockSize} units`))
          continue
        }
        const block = e.blocks[id.block - 1]
        if (!block) {
          bad(n, problem('BLOCK_UNKNOWN', { serial: l.serial, emission: id.emission, block: id.block, blocks: e.blocks.length }, `serial ${l.serial}: emission ${id.emission} has no block ${id.block} (it has ${e.blocks.length})`))
          continue
        }
        if (l.stakeCents !== e.def.unitPriceCents) bad(n, problem('STAKE', { expectedCents: e.def.unitPriceCents, gotCents: l.stakeCents }, `stakeCents must be the unit price, ${e.def.unitPriceCents}, not ${l.stakeCents}`))
        // the canonical serial: the line's own when written so (it passed parseSerial, check digit included)
        const serial = SERIAL_SHAPE.test(l.serial) ? l.serial : formatSerial(id, blockSize)
        const idIsSerial = SERIAL_SHAPE.test(l.saleId)
        if (idIsSerial && l.saleId !== serial) bad(n, problem('SALE_ID_SERIAL', { saleId: l.saleId, serial: l.serial }, `saleId ${l.saleId} has the shape of a serial, so it must be the line's own serial ${l.serial}`))
        if (!Number.isNaN(soldAt) && soldAt < e.floor) {
          if (e.row.starts_on !== null) bad(n, problem('SOLD_AT_EARLY', { soldAt: l.soldAt, emission: id.emission, startsOn: e.row.starts_on }, `soldAt ${l.soldAt} is before emission ${id.emission} starts selling (${e.row.starts_on})`))
          else bad(n, problem('SOLD_AT_BEFORE_CREATION', { soldAt: l.soldAt, emission: id.emission, createdAt: e.row.created_at }, `soldAt ${l.soldAt} is before emission ${id.emission} was created (${e.row.created_at}), and it has no first sale day`))
        }
        const key = unitKey(id.emission, id.block, id.unit)

        // recorded before: the same sale again, or a conflict
        const prev = (idIsSerial ? null : recorded.get(l.saleId)) ?? null
        const onUnit = id.unit < block.units_sold ? ((byKey.get(key) as StoredSale | undefined) ?? null) : null
        const recordedAs = prev ?? (onUnit && onUnit.sale_id === null && l.saleId === serial ? onUnit : null)
        if (recordedAs) {
          const diff: string[] = []
          if (recordedAs.unit_key !== key) diff.push(`serial (recorded for ${formatSerial(splitUnitKey(recordedAs.unit_key), blockSize)})`)
          if (recordedAs.player !== l.player) diff.push('player')
          if (recordedAs.sold_at !== soldAt) diff.push('soldAt')
          if (recordedAs.stake_cents !== l.stakeCents) diff.push('stakeCents')
          if (!samePlay(recordedAs, play, plays)) diff.push('play')
          if (diff.length) bad(n, problem('RECORDED_OTHER', { saleId: l.saleId, fields: diff.join(', ') }, `saleId ${l.saleId} is already recorded with other content (${diff.join(', ')} differ)`))
          else if ((problems.get(n)?.length ?? 0) === before) already++
          continue
        }
        if (onUnit) {
          bad(n, problem('UNIT_SOLD', { serial: l.serial, sale: onUnit.sale_id ?? l.serial }, `unit ${l.serial} is already sold by sale ${onUnit.sale_id ?? l.serial}`))
          continue
        }
        // the line claims its unit; a second line on the same unit is found once all are read
        let refusal: Problem | null = null
        if (e.row.status !== 'open') refusal = problem('NOT_OPEN', { emission: id.emission, status: e.row.status }, `emission ${id.emission} is not open for sale: it is ${describeStatus(e.row.status)}`)
        else if (block.status !== 'verified') refusal = problem('BLOCK_NOT_SELLING', { emission: id.emission, block: id.block, status: block.status }, `block ${id.emission}/${id.block} cannot sell: it is ${block.status === 'failed' ? 'failed its verification' : block.status}`)
        good.add(n, l.saleId, serial, id, key, l.player, soldAt, play, (problems.get(n)?.length ?? 0) === before && refusal === null, refusal)
      }
    }

    // 1. every line read: the usual lines by the fast reader (their plays packed), the others by JSON.parse and the schema
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
        checkLines(chunk)
        chunk = []
      }
      // the usual line starts with its brace; any other is decoded (blank, or for the full path)
      const fast = content[start] === 0x7b ? readFeedLineFast(content, start, end) : null
      if (fast === null && content.toString('utf8', start, end).trim() === '') continue
      lines++
      const n = lineNo
      if (fast) {
        if (fast.play === null) {
          chunk.push({ n, l: fast as FastLine, packed: null })
          continue
        }
        const unit = unitOf(fast.serial)
        const def = zonesOf(unit)
        // at most 64 events of 6 bytes
        const length = packFastPlayInto(fast.play, def.winningCells, def.yoursCells, plays.room(64 * 6), plays.length)
        if (length >= 0) {
          const packed = { code: fastPlayCode(fast.play), from: plays.length, to: plays.length + length }
          plays.length += length
          fast.play = null
          chunk.push({ n, l: fast as FastLine, packed, unit })
          continue
        }
      }
      let value: unknown
      const lineText = content.toString('utf8', start, end)
      try {
        value = JSON.parse(lineText)
      } catch (e) {
        bad(n, jsonProblem(e, lineText))
        unplaced++
        continue
      }
      const parsed = feedLineSchema.safeParse(value)
      if (!parsed.success) {
        for (const issue of parsed.error.issues) bad(n, describeZodIssue(issue, value))
        const serial = value !== null && typeof value === 'object' ? (value as { serial?: unknown }).serial : undefined
        if (typeof serial === 'string') chunk.push({ n, l: null, packed: undefined, held: serial })
        else unplaced++
        continue
      }
      chunk.push({ n, l: parsed.data, packed: undefined })
    }
    checkLines(chunk)
    if (lines === 0) throw new AppError('BAD_ARGUMENTS', 'the file holds no sales (no non-empty line)', { field: 'content' })

    // 3. across lines, in unit order: one line per unit, and for each emission an unbroken run from its next unsold unit
    const order = good.byKey()
    const runs: { emission: number; from: number; to: number }[] = []
    const kept: number[] = []
    /** The first line on each unit, bad or not (its place in `good`): the order is judged over these. */
    const placed: number[] = []
    let lastKey = -1
    let claimedBy = 0
    for (const g of order) {
      const n = good.line[g]
      if (good.key[g] === lastKey) {
        bad(n, problem('UNIT_TWICE', { serial: good.serial[g], first: claimedBy }, `unit ${good.serial[g]} is also sold at line ${claimedBy}`))
        continue
      }
      lastKey = good.key[g]
      claimedBy = n
      placed.push(g)
      const refusal = good.refusal[g]
      if (refusal !== null) bad(n, refusal)
      if (good.ok[g] === 0) continue
      const emission = good.emission[g]
      const run = runs[runs.length - 1]
      if (run && run.emission === emission) run.to++
      else runs.push({ emission, from: kept.length, to: kept.length + 1 })
      kept.push(g)
    }
    // the order, over every line that holds a unit (in unit order, so each emission's lines follow one another)
    let spare = unplaced
    let expected = 0
    for (let k = 0; k < placed.length; k++) {
      const g = placed[k]
      const emission = good.emission[g]
      const e = emissionOf(emission)!
      const size = e.def.blockSize
      if (k === 0 || good.emission[placed[k - 1]] !== emission) {
        // the position of the emission's next unit, as block × size + unit
        const firstOpen = e.blocks.find((b) => b.units_sold < size)
        expected = firstOpen ? (firstOpen.block - 1) * size + firstOpen.units_sold : e.blocks.length * size
      }
      const at = (good.block[g] - 1) * size + good.unit[g]
      if (at !== expected) {
        // a gap that the lines whose unit cannot be read may fill is theirs to explain
        const gap = at - expected
        if (gap > 0 && gap <= spare) spare -= gap
        else {
          const soldOut = expected >= e.blocks.length * size
          const next = soldOut ? '' : formatSerial({ emission, block: Math.floor(expected / size) + 1, unit: expected % size }, size)
          const text = `unit ${good.serial[g]} is out of order: units sell in index order within a block, blocks in order, and the next unit to sell here is ${soldOut ? 'none: the emission is sold out' : next}, which the file does not carry`
          bad(good.line[g], soldOut ? problem('OUT_OF_ORDER_SOLD_OUT', { serial: good.serial[g] }, text) : problem('OUT_OF_ORDER', { serial: good.serial[g], next }, text))
        }
      }
      expected = at + 1
    }

    // 4. all or nothing
    if (problems.size > 0) {
      const details: ImportLineError[] = [...problems.entries()]
        .sort((a, b) => a[0] - b[0])
        .slice(0, MAX_LISTED)
        .map(([line, list]) => ({ line, reason: list.map((p) => p.text).join('; '), problems: list.map(({ code, params }) => ({ code, params })) }))
      const first = details[0]
      const message = `${problems.size} bad line${problems.size > 1 ? 's' : ''} of ${lines}: nothing imported (first: line ${first.line}: ${first.reason})`
      throw new AppError('IMPORT_REJECTED', message, { details })
    }

    // every line checked, in this transaction: written per emission in unit order, as columns
    let imported = 0
    for (const { emission, from, to } of runs) imported += sales.sellChecked(emission, good.columns(kept, from, to))
    const sha256 = createHash('sha256').update(content).digest('hex')
    return recordImport(actor, fileName, sha256, { lines, imported, alreadyImported: already }, kept.length ? good.serial[kept[0]] : null, kept.length ? good.serial[kept[kept.length - 1]] : null)
  }

  // IMMEDIATE: the checks read the sold counts and recorded sales that the write then relies on
  const importTx = db.transaction(run)

  return {
    importContent(actor, content, fileName) {
      let bytes: Buffer
      if (typeof content === 'string') bytes = Buffer.from(content, 'utf8')
      else if (content instanceof Uint8Array) {
        bytes = Buffer.isBuffer(content) ? content : Buffer.from(content.buffer, content.byteOffset, content.byteLength)
      } else throw new AppError('BAD_ARGUMENTS', 'the feed must be text', { field: 'content' })
      try {
        // the sales are written by sales.sellChecked, whose batch checks their players itself
        return withoutKeyChecks(db, () => importTx.immediate(actor, bytes, fileName))
      } catch (e) {
        if (e instanceof AppError && e.code === 'IMPORT_REJECTED') {
          const details = e.extras.details as ImportLineError[]
          audit.record(actor.name, 'sales.import-rejected', 'import:rejected', { fileName: fileName ?? null, badLines: details.length, first: details[0] })
        }
        throw e
      }
    },
  }
}

function samePlay(stored: StoredSale, play: PackedPlay | null, plays: PlayBytes): boolean {
  if (play === null) return stored.play === null
  if (stored.play === null || stored.events === null) return false
  return stored.play === play.code && Buffer.compare(stored.events, plays.buf.subarray(play.from, play.to)) === 0
}

/** A feed line for a sale, as the platform would send it (fixtures, benchmarks, the simulator's feeds). */
export function feedLine(sale: { saleId: string; serial: string; player: string; soldAt: number | string; stakeCents: number; play: Play | null }): string {
  return JSON.stringify({
    saleId: sale.saleId,
    serial: sale.serial,
    player: sale.player,
    soldAt: typeof sale.soldAt === 'number' ? new Date(sale.soldAt).toISOString() : sale.soldAt,
    stakeCents: sale.stakeCents,
    play: sale.play,
  })
}


/**
 * The refusal of a feed that is not UTF-8, saying where it stops being UTF-8 (its line, the
 * byte in that line and the offset in the file), or null when it is UTF-8. The importer's own
 * check, which the command line also makes before it starts.
 */
export function notUtf8Refusal(content: Uint8Array, fileName: string | undefined): AppError | null {
  if (isUtf8(content)) return null
  const stop = utf8Stop(content)!
  return new AppError('BAD_ARGUMENTS', `${fileName ?? 'the file'} is not UTF-8 text: ${describeUtf8Stop(stop)}; a sales feed is JSON lines in UTF-8`, {
    field: 'content',
    ...because('FEED_NOT_UTF8', { line: stop.line, byte: stop.byte, offset: stop.offset }),
  })
}

/** The bytes in memory that a worker thread can share. */
function copyShared(bytes: Uint8Array): Buffer {
  const shared = Buffer.from(new SharedArrayBuffer(bytes.length))
  shared.set(bytes)
  return shared
}

/**
 * A feed file's bytes in memory that the importer's reader thread can share (read as is, not
 * decoded), so that a large feed is not copied before it is read: the command line's way.
 */
export function readFeedFile(path: string): Buffer {
  const fd = openSync(path, 'r')
  try {
    const size = fstatSync(fd).size
    const bytes = Buffer.from(new SharedArrayBuffer(size))
    let at = 0
    while (at < size) {
      const n = readSync(fd, bytes, at, size - at, at)
      if (n === 0) break
      at += n
    }
    return at === size ? bytes : bytes.subarray(0, at)
  } finally {
    closeSync(fd)
  }
}
