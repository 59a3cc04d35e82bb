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
 * A feed still arriving (the browser host's upload, import-arrival.ts) is read as far as its bytes
 * have come: the reader waits with Atomics.wait for the bytes a line reaches, and stops (CUT) when
 * the upload stops short. The hash takes only bytes already read, so it is the whole file's.
 */
import { createHash } from 'node:crypto'
import { canonicalSerialAt } from '../../game-core/serial'
import { NO_PLAY } from '../ledger/play-codec'
import { isoMillisAt } from './common'
import { FeedArrival } from './import-arrival'
import { fastPlayCode, packFastPlayInto, scanFeedLine, scanned } from './feed-line'

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

/** CUT: the feed's upload stopped short (import-arrival.ts): the bytes the reader reached will not come. */
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

const INT_COLUMNS = ['count', 'line', 'saleIdFrom', 'saleIdTo', 'player', 'playerFrom', 'playerTo', 'emission', 'block', 'unit', 'flags', 'eventsEnd'] as const
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
    ;[this.count, this.line, this.saleIdFrom, this.saleIdTo, this.player, this.playerFrom, this.playerTo, this.emission, this.block, this.unit, this.flags] = ints
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
}

/**
 * The part of the feed that has arrived, and where a line ends in it: the whole feed at once, or
 * (an upload under way) as far as its bytes have come, waiting for more when a line goes past them.
 */
class FeedWindow {
  private arrived: number
  private view: Buffer
  constructor(private readonly feed: Buffer, private readonly arrival: FeedArrival | null, private readonly cancelled: () => boolean) {
    this.arrived = arrival ? arrival.arrived() : feed.length
    this.view = this.arrived === feed.length ? feed : feed.subarray(0, this.arrived)
  }

  /** Waits until `bytes` have arrived (at most the feed's length); false when they will not (cut, or cancelled). */
  has(bytes: number): boolean {
    while (this.arrived < Math.min(bytes, this.feed.length)) if (!this.more()) return false
    return true
  }

  /** Where the line from `pos` ends: its newline, the feed's end, or -1 when the bytes will not come. */
  lineEnd(pos: number): number {
    let from = pos
    for (;;) {
      const end = this.view.indexOf(0x0a, from)
      if (end >= 0) return end
      if (this.arrived === this.feed.length) return this.feed.length
      from = Math.max(from, this.arrived)
      if (!this.more()) return -1
    }
  }

  private more(): boolean {
    const got = this.arrival!.waitFor(this.arrived + 1, this.cancelled)
    if (got < 0) return false
    this.arrived = got
    this.view = got === this.feed.length ? this.feed : this.feed.subarray(0, got)
    return true
  }
}

/** Whether feed[from … to) has the shape of a serial, EEEE-BBB-UUUUUUU-K (as the importer's SERIAL_SHAPE). */
function serialShaped(feed: Uint8Array, from: number, to: number): boolean {
  if (to - from !== 18) return false
  for (let i = 0; i < 18; i++) {
    const c = feed[from + i]
    if (i === 4 || i === 8 || i === 16 ? c !== 0x2d : c < 0x30 || c > 0x39) return false
  }
  return true
}
/** Lines hashed at a time, while their bytes are still in the cache. */
const HASH_LINES = 32
/** How long the reader waits for a slot to be given back before looking at CANCEL again, in ms. */
const WAIT_MS = 1000

/**
 * Texts of the feed numbered in order of first sight, by their bytes (an open-addressing table
 * of their hashes): the sale ids (a second sight is a sale id twice) and the players.
 */
export class ByteTexts {
  size = 0
  private slots: Int32Array
  private from: Int32Array
  private to: Int32Array
  private hashes: Int32Array
  /** Room for `expected` texts before the table grows. */
  constructor(private readonly feed: Uint8Array, expected = 1 << 12) {
    let room = 1 << 12
    while (room < expected) room *= 2
    this.slots = new Int32Array(room * 2)
    this.from = new Int32Array(room)
    this.to = new Int32Array(room)
    this.hashes = new Int32Array(room)
  }

  /** The number of the text at feed[from … to): its first sight's (≥ 0) or, new, -1 - its new number. */
  find(from: number, to: number): number {
    const b = this.feed
    let h = 0x811c9dc5
    for (let i = from; i < to; i++) h = Math.imul(h ^ b[i], 0x01000193)
    const mask = this.slots.length - 1
    const length = to - from
    for (let s = h & mask; ; s = (s + 1) & mask) {
      const k = this.slots[s] - 1
      if (k < 0) {
        if (this.size === this.from.length) {
          this.grow()
          return this.find(from, to)
        }
        const n = this.size++
        this.from[n] = from
        this.to[n] = to
        this.hashes[n] = h
        this.slots[s] = n + 1
        return -1 - n
      }
      if (this.hashes[k] === h && this.to[k] - this.from[k] === length) {
        const at = this.from[k]
        let i = 0
        while (i < length && b[at + i] === b[from + i]) i++
        if (i === length) return k
      }
    }
  }

  /** Twice the room, the table at most half full. */
  private grow() {
    const more = (a: Int32Array) => {
      const b = new Int32Array(a.length * 2)
      b.set(a)
      return b
    }
    this.from = more(this.from)
    this.to = more(this.to)
    this.hashes = more(this.hashes)
    this.slots = new Int32Array(this.from.length * 2)
    const mask = this.slots.length - 1
    for (let n = 0; n < this.size; n++) {
      let s = this.hashes[n] & mask
      while (this.slots[s] !== 0) s = (s + 1) & mask
      this.slots[s] = n + 1
    }
  }
}

/** The reader's work (feed-reader-worker.ts runs it): the whole feed through the ring, or up to its first irregular line. */
export function readFeedIntoRing(job: FeedReadJob): void {
  const ring = new FeedRing(job.memory)
  const ctrl = ring.control
  const feed = Buffer.from(job.feed.buffer, job.feed.byteOffset, job.feed.byteLength)
  const zones = new Map(job.zones.map(([e, w, y]) => [e, { w, y }]))
  const hash = createHash('sha256')
  const cancelled = () => Atomics.load(ctrl, CTRL.CANCEL) !== 0
  const arrived = new FeedWindow(feed, job.arrival ? new FeedArrival(job.arrival, feed.length) : null, cancelled)
  let hashed = 0
  let produced = 0
  let slot = 0
  let n = 0
  let eventsAt = 0
  let events = ring.slotEvents(0)
  let lines = 0
  let lineNo = 0

  const stop = (state: number, at = 0) => {
    Atomics.store(ctrl, CTRL.STOPPED_AT, at)
    Atomics.store(ctrl, CTRL.STATE, state)
    Atomics.notify(ctrl, CTRL.STATE)
    Atomics.notify(ctrl, CTRL.PRODUCED)
  }
  /** Hands the slot over; false when the importer cancelled while the reader waited for room. */
  const publish = (): boolean => {
    ring.count[slot] = n
    produced++
    Atomics.store(ctrl, CTRL.PRODUCED, produced)
    Atomics.notify(ctrl, CTRL.PRODUCED)
    for (;;) {
      if (cancelled()) return false
      const consumed = Atomics.load(ctrl, CTRL.CONSUMED)
      if (produced - consumed < SLOTS) break
      Atomics.wait(ctrl, CTRL.CONSUMED, consumed, WAIT_MS)
    }
    slot = produced % SLOTS
    n = 0
    eventsAt = 0
    events = ring.slotEvents(slot)
    return true
  }

  /** The bytes will not come: the upload was cut (or the importer went away). */
  const cut = () => (cancelled() ? undefined : stop(READER.CUT, lineNo))

  try {
    if (!arrived.has(3)) return cut()
    let pos = feed[0] === 0xef && feed[1] === 0xbb && feed[2] === 0xbf ? 3 : 0
    // a sale id a line: room for as many lines as the first line's length says
    const first = arrived.lineEnd(pos)
    if (first < 0) return cut()
    const ids = new ByteTexts(feed, first > 0 ? (feed.length / first) * 1.25 : 0)
    const players = new ByteTexts(feed)
    while (pos <= feed.length) {
      const end = arrived.lineEnd(pos)
      if (end < 0) return cut()
      const start = pos
      pos = end + 1
      lineNo++
      if (end === start) continue
      if (lines % HASH_LINES === 0 && start > hashed) {
        hash.update(feed.subarray(hashed, start))
        hashed = start
      }
      lines++
      if (!scanFeedLine(feed, start, end) || scanned.wide) return stop(READER.IRREGULAR, lineNo)
      const f = scanned
      const id = canonicalSerialAt(feed, f.serialFrom, f.serialTo)
      if (id === null) return stop(READER.IRREGULAR, lineNo)
      const soldAt = isoMillisAt(feed, f.soldAtFrom, f.soldAtTo)
      const z = zones.get(id.emission)
      if (Number.isNaN(soldAt) || z === undefined) return stop(READER.IRREGULAR, lineNo)
      const at = slot * SLOT_LINES + n
      let code = NO_PLAY
      if (f.play !== null) {
        const length = packFastPlayInto(f.play, z.w, z.y, events, eventsAt)
        if (length < 0) return stop(READER.IRREGULAR, lineNo)
        eventsAt += length
        code = fastPlayCode(f.play)
      }
      let flags = 0
      if (serialShaped(feed, f.saleIdFrom, f.saleIdTo)) {
        // a sale id shaped like a serial must be the line's own (the importer's careful reading says so)
        for (let k = 0; k < 18; k++) if (feed[f.saleIdFrom + k] !== feed[f.serialFrom + k]) return stop(READER.IRREGULAR, lineNo)
        flags |= LINE_FLAGS.SERIAL_ID
      }
      if (ids.find(f.saleIdFrom, f.saleIdTo) >= 0) return stop(READER.IRREGULAR, lineNo)
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
      n++
      if (n === SLOT_LINES && !publish()) return
    }
    if (n > 0 && !publish()) return
    hash.update(feed.subarray(hashed))
    ring.digest.set(hash.digest())
    Atomics.store(ctrl, CTRL.LINES, lines)
    stop(READER.DONE)
  } catch {
    stop(READER.FAILED, lineNo)
  }
}
