/**
 * The sales feed read on a second thread while the importer checks and writes on its own: the
 * reader (feed-reader-worker.ts) walks the feed's bytes, which both threads share, and hands
 * the lines over through a ring of slots in shared memory, each a few thousand lines as columns:
 * the offsets of their texts in the feed, their units, times and stakes as numbers, their plays
 * packed as the ledger stores them (play-codec). It also hashes the feed as it goes (the
 * SHA-256 that the import's record keeps), finds a sale id seen twice, and numbers the players
 * in order of first sale, so that the importer decodes each player's name once.
 *
 * The reader judges nothing: it hands over only the usual lines that it can read whole
 * (scanFeedLine: a canonical serial, an ISO time, a play that keeps the rules, a sale id not seen
 * before) and stops at the first other one, which it marks irregular. The importer then starts
 * again with its own careful reading, which says what is wrong, if anything.
 *
 * Each side waits for the other with Atomics.wait: the importer for a slot to fill, the reader
 * for a slot to be given back. The importer gives a slot back only once its lines are written,
 * so their packed plays are read from the slot itself.
 *
 * A feed still arriving (the browser host's upload, arrival.ts) is read as far as its bytes
 * have come: the reader waits with Atomics.wait for the bytes a line reaches, and stops (CUT) when
 * the upload stops short. The hash takes only bytes already read, so it is the whole file's.
 *
 * The reader's loop (readLines) keeps its hot state in locals; around it, named functions take
 * the read's state (FeedReader): openReader, publish, stop, cut, startOfFeed, finish. What it
 * reads with (the window on an arriving feed, the table of texts seen): feed-reading.ts.
 */
import { createHash, type Hash } from 'node:crypto'
import { canonicalSerialAt } from '../../../game-core/serial'
import { NO_PLAY } from '../../ledger/play-codec'
import { isoMillisAt } from '../common'
import { FeedArrival } from './arrival'
import { ByteTexts, FeedWindow, serialShaped } from './feed-reading'
import { fastPlayCode, packFastPlayInto, scanFeedLine, scanned } from './feed-line'

export { ByteTexts } from './feed-reading'

export const SLOTS = 8
export const SLOT_LINES = 4096
/** a play of at most 64 events of 6 bytes at most */
const LINE_EVENT_BYTES = 64 * 6

/** The control words (Int32) shared by the two threads. */
export const CTRL = {
  /** slots filled so far (the slot is this count modulo SLOTS) */
  PRODUCED: 0,
  /** slots given back by the importer */
  CONSUMED: 1,
  STATE: 2,
  /** set by the importer: stop reading */
  CANCEL: 3,
  /** the feed's lines that are not blank, once DONE */
  LINES: 4,
  /** the first line that the reader did not hand over, once IRREGULAR */
  STOPPED_AT: 5,
} as const
const CTRL_WORDS = 8

/** CUT: the feed's upload stopped short (arrival.ts): the bytes the reader reached will not come. */
export const READER = { RUNNING: 0, DONE: 1, IRREGULAR: 2, FAILED: 3, CUT: 4 } as const

/** Flags of a line handed over. */
export const LINE_FLAGS = {
  /** its sale id is its serial (stored as NULL) */
  SERIAL_ID: 1,
  /** its player's first line in the feed: the name is decoded from here */
  NEW_PLAYER: 2,
} as const

/** The shared memory of one read: what the importer posts to the reader. */
export interface FeedRingMemory {
  control: SharedArrayBuffer
  ints: SharedArrayBuffer
  floats: SharedArrayBuffer
  bytes: SharedArrayBuffer
}

const INT_COLUMNS = [
  'count',
  'line',
  'saleIdFrom',
  'saleIdTo',
  'player',
  'playerFrom',
  'playerTo',
  'emission',
  'block',
  'unit',
  'flags',
  'eventsEnd',
] as const
const FLOAT_COLUMNS = ['soldAt', 'stake'] as const

/** Views on a ring's memory, the same on both threads. Column c of slot s, line i: `c[s * SLOT_LINES + i]`. */
export class FeedRing {
  readonly control: Int32Array
  readonly digest: Uint8Array
  /** lines in each slot (the first SLOTS entries) */
  readonly count: Int32Array
  readonly line: Int32Array
  readonly saleIdFrom: Int32Array
  readonly saleIdTo: Int32Array
  /** the player's number, in order of first line */
  readonly player: Int32Array
  readonly playerFrom: Int32Array
  readonly playerTo: Int32Array
  readonly emission: Int32Array
  readonly block: Int32Array
  readonly unit: Int32Array
  readonly flags: Int32Array
  /** where the line's packed play ends in its slot's events (it starts where the line before's ends) */
  readonly eventsEnd: Uint32Array
  readonly soldAt: Float64Array
  readonly stake: Float64Array
  /** play-codec's play code, or NO_PLAY */
  readonly code: Uint8Array
  /** each slot's packed plays, SLOT_LINES × 384 bytes from s × that */
  readonly events: Uint8Array

  constructor(readonly memory: FeedRingMemory) {
    const n = SLOTS * SLOT_LINES
    this.control = new Int32Array(memory.control, 0, CTRL_WORDS)
    this.digest = new Uint8Array(memory.control, CTRL_WORDS * 4, 32)
    const ints = INT_COLUMNS.map((_, k) => new Int32Array(memory.ints, k * n * 4, n))
    ;[
      this.count,
      this.line,
      this.saleIdFrom,
      this.saleIdTo,
      this.player,
      this.playerFrom,
      this.playerTo,
      this.emission,
      this.block,
      this.unit,
      this.flags,
    ] = ints
    this.eventsEnd = new Uint32Array(memory.ints, (INT_COLUMNS.length - 1) * n * 4, n)
    ;[this.soldAt, this.stake] = FLOAT_COLUMNS.map((_, k) => new Float64Array(memory.floats, k * n * 8, n))
    this.code = new Uint8Array(memory.bytes, 0, n)
    this.events = new Uint8Array(memory.bytes, n, n * LINE_EVENT_BYTES)
  }

  static create(): FeedRing {
    const n = SLOTS * SLOT_LINES
    return new FeedRing({
      control: new SharedArrayBuffer(CTRL_WORDS * 4 + 32),
      ints: new SharedArrayBuffer(INT_COLUMNS.length * n * 4),
      floats: new SharedArrayBuffer(FLOAT_COLUMNS.length * n * 8),
      bytes: new SharedArrayBuffer(n + n * LINE_EVENT_BYTES),
    })
  }

  /** Slot s's packed plays. */
  slotEvents(s: number): Uint8Array {
    const size = SLOT_LINES * LINE_EVENT_BYTES
    return this.events.subarray(s * size, (s + 1) * size)
  }
}

/** What the importer asks of the reader: the feed (in shared memory), the ring, and each emission's zones. */
export interface FeedReadJob {
  feed: Uint8Array
  memory: FeedRingMemory
  /** [emission, winning cells, yours cells] of every emission in the ledger */
  zones: [number, number, number][]
  /** The feed is still arriving (an upload): FeedArrival's memory. The reader waits for the bytes it reaches. */
  arrival?: SharedArrayBuffer
  /** The feed's SHA-256 is already known (the import's lease hashed the whole file): the reader does not hash it again. */
  hashed?: boolean
}

/** Lines hashed at a time, while their bytes are still in the cache. */
const HASH_LINES = 32
/** How long the reader waits for a slot to be given back before looking at CANCEL again, in ms. */
const WAIT_MS = 1000

/** One read's state beside its loop: the ring, the feed as far as it has arrived, its zones, and the slots handed over. */
interface FeedReader {
  ring: FeedRing
  ctrl: Int32Array
  feed: Buffer
  zones: Map<number, { w: number; y: number }>
  /** null: the feed's hash is known already */
  hash: Hash | null
  cancelled: () => boolean
  arrived: FeedWindow
  /** slots handed over so far (the slot being filled is this count modulo SLOTS) */
  produced: number
}

function openReader(job: FeedReadJob): FeedReader {
  const ring = new FeedRing(job.memory)
  const ctrl = ring.control
  const feed = Buffer.from(job.feed.buffer, job.feed.byteOffset, job.feed.byteLength)
  const cancelled = () => Atomics.load(ctrl, CTRL.CANCEL) !== 0
  return {
    ring,
    ctrl,
    feed,
    zones: new Map(job.zones.map(([e, w, y]) => [e, { w, y }])),
    hash: job.hashed ? null : createHash('sha256'),
    cancelled,
    arrived: new FeedWindow(feed, job.arrival ? new FeedArrival(job.arrival, feed.length) : null, cancelled),
    produced: 0,
  }
}

function stop({ ctrl }: FeedReader, state: number, at = 0): void {
  Atomics.store(ctrl, CTRL.STOPPED_AT, at)
  Atomics.store(ctrl, CTRL.STATE, state)
  Atomics.notify(ctrl, CTRL.STATE)
  Atomics.notify(ctrl, CTRL.PRODUCED)
}

/** The bytes will not come: the upload was cut (or the importer went away). */
function cut(r: FeedReader, lineNo: number): void {
  if (!r.cancelled()) stop(r, READER.CUT, lineNo)
}

/** Hands the slot being filled over with its n lines; false when the importer cancelled while the reader waited for room. */
function publish(r: FeedReader, n: number): boolean {
  const { ctrl } = r
  r.ring.count[r.produced % SLOTS] = n
  r.produced++
  Atomics.store(ctrl, CTRL.PRODUCED, r.produced)
  Atomics.notify(ctrl, CTRL.PRODUCED)
  for (;;) {
    if (r.cancelled()) return false
    const consumed = Atomics.load(ctrl, CTRL.CONSUMED)
    if (r.produced - consumed < SLOTS) return true
    Atomics.wait(ctrl, CTRL.CONSUMED, consumed, WAIT_MS)
  }
}

/** Where the first line starts (past a BOM), and the tables of sale ids and players; null when the bytes will not come. */
function startOfFeed(r: FeedReader): { pos: number; ids: ByteTexts; players: ByteTexts } | null {
  const { feed, arrived } = r
  if (!arrived.has(3)) return null
  const pos = feed[0] === 0xef && feed[1] === 0xbb && feed[2] === 0xbf ? 3 : 0
  // a sale id a line: room for as many lines as the first line's length says
  const first = arrived.lineEnd(pos)
  if (first < 0) return null
  return { pos, ids: new ByteTexts(feed, first > 0 ? (feed.length / first) * 1.25 : 0), players: new ByteTexts(feed) }
}

/** The whole feed handed over: the hash of the bytes not yet hashed, the count of lines, DONE. */
function finish(r: FeedReader, hashed: number, lines: number): void {
  if (r.hash) {
    r.hash.update(r.feed.subarray(hashed))
    r.ring.digest.set(r.hash.digest())
  }
  Atomics.store(r.ctrl, CTRL.LINES, lines)
  stop(r, READER.DONE)
}

/** The reader's work (feed-reader-worker.ts runs it): the whole feed through the ring, or up to its first irregular line. */
export function readFeedIntoRing(job: FeedReadJob): void {
  readLines(openReader(job))
}

/**
 * The loop over the feed's lines, each checked and written into the slot being filled (its hot
 * state in locals: the slot, its lines, where its packed plays end), slot after slot.
 */
function readLines(r: FeedReader): void {
  const { ring, feed, arrived, zones, hash } = r
  let lineNo = 0
  try {
    const start0 = startOfFeed(r)
    if (start0 === null) return cut(r, lineNo)
    const { ids, players } = start0
    let pos = start0.pos
    let hashed = 0
    let slot = 0
    let n = 0
    let eventsAt = 0
    let events = ring.slotEvents(0)
    let lines = 0
    while (pos <= feed.length) {
      const end = arrived.lineEnd(pos)
      if (end < 0) return cut(r, lineNo)
      const start = pos
      pos = end + 1
      lineNo++
      if (end === start) continue
      if (lines % HASH_LINES === 0 && start > hashed && hash !== null) {
        hash.update(feed.subarray(hashed, start))
        hashed = start
      }
      lines++
      if (!scanFeedLine(feed, start, end) || scanned.wide) return stop(r, READER.IRREGULAR, lineNo)
      const f = scanned
      const id = canonicalSerialAt(feed, f.serialFrom, f.serialTo)
      if (id === null) return stop(r, READER.IRREGULAR, lineNo)
      const soldAt = isoMillisAt(feed, f.soldAtFrom, f.soldAtTo)
      const z = zones.get(id.emission)
      if (Number.isNaN(soldAt) || z === undefined) return stop(r, READER.IRREGULAR, lineNo)
      const at = slot * SLOT_LINES + n
      let code = NO_PLAY
      if (f.play !== null) {
        const length = packFastPlayInto(f.play, z.w, z.y, events, eventsAt)
        if (length < 0) return stop(r, READER.IRREGULAR, lineNo)
        eventsAt += length
        code = fastPlayCode(f.play)
      }
      let flags = 0
      if (serialShaped(feed, f.saleIdFrom, f.saleIdTo)) {
        // a sale id shaped like a serial must be the line's own (the importer's careful reading says so)
        for (let k = 0; k < 18; k++)
          if (feed[f.saleIdFrom + k] !== feed[f.serialFrom + k]) return stop(r, READER.IRREGULAR, lineNo)
        flags |= LINE_FLAGS.SERIAL_ID
      }
      if (ids.find(f.saleIdFrom, f.saleIdTo) >= 0) return stop(r, READER.IRREGULAR, lineNo)
      const p = players.find(f.playerFrom, f.playerTo)
      if (p < 0) flags |= LINE_FLAGS.NEW_PLAYER
      ring.line[at] = lineNo
      ring.saleIdFrom[at] = f.saleIdFrom
      ring.saleIdTo[at] = f.saleIdTo
      ring.player[at] = p < 0 ? -1 - p : p
      ring.playerFrom[at] = f.playerFrom
      ring.playerTo[at] = f.playerTo
      ring.emission[at] = id.emission
      ring.block[at] = id.block
      ring.unit[at] = id.unit
      ring.flags[at] = flags
      ring.eventsEnd[at] = eventsAt
      ring.soldAt[at] = soldAt
      ring.stake[at] = f.stakeCents
      ring.code[at] = code
      if (++n < SLOT_LINES) continue
      if (!publish(r, n)) return
      slot = r.produced % SLOTS
      n = 0
      eventsAt = 0
      events = ring.slotEvents(slot)
    }
    if (n > 0 && !publish(r, n)) return
    finish(r, hashed, lines)
  } catch {
    stop(r, READER.FAILED, lineNo)
  }
}
