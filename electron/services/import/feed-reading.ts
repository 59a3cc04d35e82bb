/**
 * What the feed's reader (feed-ring.ts, readFeedIntoRing) reads with: the window on the feed as far
 * as its bytes have arrived, the shape of a serial, and the table that numbers the sale ids and
 * the players in order of first sight.
 */
import type { FeedArrival } from './arrival'

/**
 * The part of the feed that has arrived, and where a line ends in it: the whole feed at once, or
 * (an upload under way) as far as its bytes have come, waiting for more when a line goes past them.
 */
export class FeedWindow {
  private arrived: number
  private view: Buffer
  constructor(
    private readonly feed: Buffer,
    private readonly arrival: FeedArrival | null,
    private readonly cancelled: () => boolean,
  ) {
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
export function serialShaped(feed: Uint8Array, from: number, to: number): boolean {
  if (to - from !== 18) return false
  for (let i = 0; i < 18; i++) {
    const c = feed[from + i]
    if (i === 4 || i === 8 || i === 16 ? c !== 0x2d : c < 0x30 || c > 0x39) return false
  }
  return true
}

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
  constructor(
    private readonly feed: Uint8Array,
    expected = 1 << 12,
  ) {
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
