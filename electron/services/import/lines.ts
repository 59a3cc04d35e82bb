/**
 * The careful import's lines as it reads them: the packed plays end to end in one buffer
 * (PlayBytes), and the lines that claim a unit as columns (GoodLines), in the file's order.
 */
import type { SerialError, UnitId } from '../../../game-core/serial'
import type { Problem, FeedLineData } from './problems'
import { storedSaleId } from './rules'
import type { CheckedSales } from '../sales'
import { NO_PLAY } from '../../ledger/play-codec'

/** A play packed as the ledger stores it (play-codec): its code, and its events at PlayBytes[from … to). */
export type PackedPlay = { code: number; from: number; to: number }

/** The packed plays of a feed, end to end in one buffer that grows (no buffer per line). */
export class PlayBytes {
  length = 0
  /** Room for `expected` bytes from the start (it grows beyond when needed). */
  constructor(
    expected: number,
    public buf = Buffer.allocUnsafe(Math.max(expected, 1 << 16)),
  ) {}

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
export type FastLine = Omit<FeedLineData, 'play'> & { play: null }
/** A line read whole: by the full path (JSON.parse and the schema), or by the fast reader. */
export type FeedLine = FeedLineData | FastLine
/** A line read, before its checks: `packed` is undefined when the full path read it (its play still to check). */
export interface ReadLine {
  n: number
  /** null for a line that its schema refused, whose serial (`held`) may still say which unit's place it holds */
  l: FeedLine | null
  packed: PackedPlay | null | undefined
  unit?: UnitId | SerialError
  held?: string
}

/**
 * The lines that claim a unit, as columns in the file's order (no object per line): those that
 * passed every check of their own (`ok`), and those refused only for their unit's state
 * (`refusal`, said unless a line before claimed the same unit).
 */
export class GoodLines {
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
  constructor(
    most: number,
    private readonly plays: PlayBytes,
  ) {
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

  add(
    n: number,
    saleId: string,
    serial: string,
    id: UnitId,
    key: number,
    player: string,
    soldAt: number,
    play: PackedPlay | null,
    ok: boolean,
    refusal: Problem | null,
  ) {
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
      saleIds[i] = storedSaleId(this.saleId[g])
      const n = this.evEnd[g] - this.evStart[g]
      if (!contiguous) events.set(this.plays.buf.subarray(this.evStart[g], this.evEnd[g]), o)
      o += n
      ends[i] = o
    }
    return { count, players, soldAt, codes, ends, events, saleIds }
  }
}

export interface StoredSale {
  unit_key: number
  sale_id: string | null
  player: string
  sold_at: number
  stake_cents: number
  play: number | null
  events: Buffer | null
}

/** Whether a sale recorded before has the line's play. */
export function samePlay(stored: StoredSale, play: PackedPlay | null, plays: PlayBytes): boolean {
  if (play === null) return stored.play === null
  if (stored.play === null || stored.events === null) return false
  return stored.play === play.code && Buffer.compare(stored.events, plays.buf.subarray(play.from, play.to)) === 0
}
