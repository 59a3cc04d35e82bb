/**
 * Outcomes and content of a block's units, derived from the block's 256-bit secret.
 * The exact algorithm is written out in game-core/DERIVATION.md; keep the two in step.
 *
 * - Which unit wins what: the block's prize table laid out in table order, then shuffled by a
 *   Fisher–Yates shuffle driven by an AES-256-CTR keystream. Every arrangement is equally likely,
 *   so the table is exact, winners are spread uniformly, and knowing sold units tells nothing of
 *   unsold ones beyond what the exact table implies.
 * - What a unit shows: its own slice of a second AES-256-CTR keystream (counter = unit × 8),
 *   so any unit is made without making the others.
 */
import type { GameDefinition } from './rules'
import { Evaluator } from './evaluate'
import { formatSerial } from './serial'
import { type Primitives, concatBytes, u16be, utf8 } from './primitives'

export const LOSING = 255
/** Units per Merkle leaf. */
export const CHUNK_UNITS = 128

export interface BlockRef {
  emission: number
  block: number
  /** 32 bytes from the operating system's cryptographic random source. */
  secret: Uint8Array
}

export interface BlockKeys {
  tiers: Uint8Array
  units: Uint8Array
  extra: Uint8Array
}

export interface UnitTicket {
  emission: number
  block: number
  unit: number
  serial: string
  /** Index in the prize table, or null for a losing unit. */
  tier: number | null
  prizeCents: number
  winning: number[]
  numbers: number[]
  amountsCents: number[]
}

export function deriveBlockKeys(prim: Primitives, ref: BlockRef): BlockKeys {
  if (!(ref.secret instanceof Uint8Array) || ref.secret.length !== 32) throw new Error('a block secret is 32 bytes')
  const ctx = concatBytes(u16be(ref.emission), u16be(ref.block))
  const key = (label: string) => prim.hmacSha256(ref.secret, concatBytes(utf8(label), ctx))
  return { tiers: key('CARATS/v1/tiers'), units: key('CARATS/v1/units'), extra: key('CARATS/v1/units-extra') }
}

/** Bytes of a unit record: index, prize, winning numbers, your numbers, amount indexes, tier, match count. */
export function recordBytes(def: GameDefinition): number {
  return 4 + 4 + def.winningCells + 2 * def.yoursCells + 2
}

/** AES blocks of keystream given to each unit: enough 16-bit words for every draw with room to spare. */
export function unitStreamBlocks(def: GameDefinition): number {
  const maxParts = Math.min(def.winningCells, def.yoursCells)
  const draws = def.winningCells + 2 * def.yoursCells + maxParts + 1
  return Math.ceil((2 * draws) / 16)
}

const TWO32 = 4294967296
const BATCH_BYTES = 65536
/** Keystream bytes per call when making units: a chunk's worth for 500 000 CARATS (smaller calls cost less per byte in node:crypto). */
const UNIT_BATCH_BYTES = 16384

export interface TierTableOptions {
  /** Build into this array (blockSize bytes, e.g. over shared memory) rather than a new one. */
  into?: Uint8Array
  /**
   * Called now and then with `from`: the tiers of units from … blockSize-1 are final (the shuffle
   * runs from the top, and step i fixes T[i] for good), and with 0 once the table is done.
   */
  onProgress?: (from: number) => void
}

const PROGRESS_STEPS = 65536

/** The tier code (table index, or LOSING) of every unit of the block. */
export function buildTierTable(
  def: GameDefinition,
  prim: Primitives,
  keys: BlockKeys,
  opts: TierTableOptions = {},
): Uint8Array {
  const n = def.blockSize
  if (opts.into && opts.into.length !== n)
    throw new RangeError(`a tier table has ${n} entries, not ${opts.into.length}`)
  const table = opts.into ?? new Uint8Array(n)
  table.fill(LOSING)
  let at = 0
  def.tiers.forEach((t, idx) => {
    table.fill(idx, at, at + t.count)
    at += t.count
  })
  const onProgress = opts.onProgress
  let buf = prim.keystream(keys.tiers, 0, BATCH_BYTES)
  let nextBlock = BATCH_BYTES / 16
  let p = 0
  for (let i = n - 1; i > 0; i--) {
    // j uniform in [0, i] from 32-bit words r by Lemire's multiply-and-shift with rejection
    // (as for unit draws, with 32-bit words): m = r·B, j = ⌊m / 2³²⌋, reject when
    // (m mod 2³²) < 2³² mod B. m mod 2³² is exact from Math.imul. m itself needs up to 56 bits:
    // as a double it is off by at most 2 (B < 2²³), which cannot change ⌊m / 2³²⌋ unless
    // m mod 2³² is within 4 of a multiple of 2³²; then m is formed exactly from 16-bit halves of r.
    const bound = i + 1
    let j: number
    for (;;) {
      if (p === BATCH_BYTES) {
        buf = prim.keystream(keys.tiers, nextBlock, BATCH_BYTES)
        nextBlock += BATCH_BYTES / 16
        p = 0
      }
      const r = ((buf[p] << 24) | (buf[p + 1] << 16) | (buf[p + 2] << 8) | buf[p + 3]) >>> 0
      p += 4
      const low32 = Math.imul(r, bound) >>> 0
      if (low32 >= 4 && low32 <= 4294967291 && bound < 8388608) {
        j = Math.floor(r * bound * 2.3283064365386963e-10) // × 2⁻³², exact
        if (low32 >= bound) break // 2³² mod B < B: accepted without the division
      } else {
        const high = (r >>> 16) * bound
        const carry = Math.floor(((r & 0xffff) * bound) / 65536)
        j = Math.floor((high + carry) / 65536)
      }
      if (low32 >= TWO32 % bound) break
    }
    const tmp = table[i]
    table[i] = table[j]
    table[j] = tmp
    if (onProgress && (i & (PROGRESS_STEPS - 1)) === 0) onProgress(i)
  }
  onProgress?.(0)
  return table
}

interface CompiledComposition {
  /** option index for each value of a draw in [0, total weight) */
  table: Uint8Array
  /** parts as indexes into the printable amounts */
  parts: number[][]
}

/** weights [3, 1] -> [0, 0, 0, 1]: a draw in [0, 4) looked up here picks option 0 three times in four. */
function weightTable(weights: number[]): Uint8Array {
  const table = new Uint8Array(weights.reduce((a, w) => a + w, 0))
  let at = 0
  weights.forEach((w, i) => {
    table.fill(i, at, at + w)
    at += w
  })
  return table
}

/**
 * Writes unit records. One instance per thread: it keeps scratch arrays between units.
 *
 * `writeUnits` is the hot loop of block verification (8 million units): every draw of
 * DERIVATION.md §4 is written out in place on local variables (the stream, its cursor, the pool),
 * and a losing unit (no matches, so the cells stay in order) writes its numbers and amounts as
 * they are drawn. The draws and their order are exactly those of §4.
 */
export class UnitSynthesizer {
  readonly recordBytes: number
  readonly streamBytes: number
  private readonly W: number
  private readonly Y: number
  private readonly M: number
  /** The list of numbers, and the pool it is copied into for each unit, as 32-bit words (padded). */
  private readonly numbers32: Uint32Array
  private readonly pool32: Uint32Array
  private readonly pool: Uint8Array
  private readonly winningCopy: Uint8Array
  private readonly cells: Uint8Array
  private readonly compositions: CompiledComposition[]
  /** printable-amount index for each value of a draw in [0, total decoy weight) */
  private readonly decoyTable: Uint8Array
  private readonly tierAmounts: number[]

  constructor(
    def: GameDefinition,
    private readonly prim: Primitives,
    private readonly keys: BlockKeys,
  ) {
    this.recordBytes = recordBytes(def)
    this.streamBytes = unitStreamBlocks(def) * 16
    this.W = def.winningCells
    this.Y = def.yoursCells
    this.M = def.numbers.length
    const words = Math.ceil(this.M / 4)
    const numbers = new Uint8Array(4 * words)
    numbers.set(def.numbers)
    this.numbers32 = new Uint32Array(numbers.buffer)
    this.pool32 = new Uint32Array(words)
    this.pool = new Uint8Array(this.pool32.buffer)
    this.winningCopy = new Uint8Array(def.winningCells)
    this.cells = new Uint8Array(def.yoursCells)
    const indexOf = new Map(def.printableAmountsCents.map((a, i) => [a, i]))
    this.tierAmounts = def.tiers.map((t) => t.amountCents)
    this.compositions = def.tiers.map((t) => {
      const rule = def.compositions.find((c) => c.amountCents === t.amountCents)
      if (!rule) throw new Error(`no composition for ${t.amountCents} cents`)
      return {
        table: weightTable(rule.options.map((o) => o.weight)),
        parts: rule.options.map((o) => o.partsCents.map((c) => indexOf.get(c)!)),
      }
    })
    const decoys = def.decoyWeights.filter((d) => d.weight > 0)
    const decoyOption = weightTable(decoys.map((d) => d.weight))
    this.decoyTable = decoyOption.map((i) => indexOf.get(decoys[i].amountCents)!)
  }

  private extraView(unit: number, r: number): DataView {
    const b = this.extraStream(unit, r)
    return new DataView(b.buffer, b.byteOffset, b.byteLength)
  }

  // The unit's own words ran out (about once in 10^16 units): its r-th extra slice, on the extra key.
  private extraStream(unit: number, r: number): Uint8Array {
    return this.prim.keystream(this.keys.extra, unit * 65536 + r * (this.streamBytes / 16), this.streamBytes)
  }

  /**
   * Writes the records of units first … first+count-1 at out[o…], unit i drawing from its slice
   * stream[so + i·streamBytes …], with the tier codes read from tiers[unit].
   *
   * Each draw is uniform(n) of §4, inlined: take the next 16-bit big-endian word w (switching to
   * the extra key when the slice runs out); m = w·n; reject when (m mod 2¹⁶) < n and
   * (m mod 2¹⁶) < 2¹⁶ mod n (the second test is the rule, the first only spares a division: a
   * low part ≥ n is always ≥ 2¹⁶ mod n); the draw is ⌊m / 2¹⁶⌋.
   */
  writeUnits(
    first: number,
    count: number,
    tiers: Uint8Array,
    stream: Uint8Array,
    so: number,
    out: Uint8Array,
    o: number,
  ): void {
    const W = this.W
    const Y = this.Y
    const M = this.M
    const sb = this.streamBytes
    const rb = this.recordBytes
    const numbers32 = this.numbers32
    const pool32 = this.pool32
    const words = pool32.length
    const pool = this.pool
    const wc = this.winningCopy
    const cells = this.cells
    const decoyTable = this.decoyTable
    const decoyTotal = decoyTable.length
    const compositions = this.compositions
    const tierAmounts = this.tierAmounts
    const view = new DataView(stream.buffer, stream.byteOffset, stream.byteLength)

    for (let i = 0; i < count; i++) {
      const unit = first + i
      const tier = tiers[unit]
      let s = view
      let p = so + i * sb
      let end = p + sb
      let refills = 0
      let m = 0
      let n = 0
      for (let q = 0; q < words; q++) pool32[q] = numbers32[q]
      const oWin = o + 8
      const oYours = oWin + W
      const oAmt = oYours + Y

      // 1. winning numbers: the first W steps of a Fisher–Yates shuffle of the number list
      for (let j = 0; j < W; j++) {
        n = M - j
        do {
          if (p >= end) {
            s = this.extraView(unit, refills++)
            p = 0
            end = s.byteLength
          }
          m = s.getUint16(p) * n
          p += 2
        } while ((m & 0xffff) < n && (m & 0xffff) < 65536 % n)
        const r = j + (m >>> 16)
        const t = pool[r]
        pool[r] = pool[j]
        pool[j] = t
        out[oWin + j] = t
      }

      if (tier === LOSING) {
        // 3. decoy numbers: the next Y steps of the same shuffle, so never a winning number.
        // With no match the cells keep their order (steps 4 and 5 draw nothing), so gem j shows
        // pool[W + j], final once drawn.
        for (let j = 0; j < Y; j++) {
          const a = W + j
          n = M - a
          do {
            if (p >= end) {
              s = this.extraView(unit, refills++)
              p = 0
              end = s.byteLength
            }
            m = s.getUint16(p) * n
            p += 2
          } while ((m & 0xffff) < n && (m & 0xffff) < 65536 % n)
          const r = a + (m >>> 16)
          const t = pool[r]
          pool[r] = pool[a]
          pool[a] = t
          out[oYours + j] = t
        }
        // 6. a decoy amount for each gem, in gem order
        n = decoyTotal
        for (let j = 0; j < Y; j++) {
          do {
            if (p >= end) {
              s = this.extraView(unit, refills++)
              p = 0
              end = s.byteLength
            }
            m = s.getUint16(p) * n
            p += 2
          } while ((m & 0xffff) < n && (m & 0xffff) < 65536 % n)
          out[oAmt + j] = decoyTable[m >>> 16]
        }
        out[oAmt + Y] = LOSING
        out[oAmt + Y + 1] = 0
        out[o + 4] = 0
        out[o + 5] = 0
        out[o + 6] = 0
        out[o + 7] = 0
      } else {
        // 2. the composition of the prize (k matching numbers)
        const c = compositions[tier]
        let choice = 0
        if (c.parts.length > 1) {
          n = c.table.length
          do {
            if (p >= end) {
              s = this.extraView(unit, refills++)
              p = 0
              end = s.byteLength
            }
            m = s.getUint16(p) * n
            p += 2
          } while ((m & 0xffff) < n && (m & 0xffff) < 65536 % n)
          choice = c.table[m >>> 16]
        }
        const parts = c.parts[choice]
        const prize = tierAmounts[tier]
        const k = parts.length
        const decoys = Y - k
        // 3. decoy numbers: the next Y-k steps of the same shuffle, so never a winning number
        for (let j = 0; j < decoys; j++) {
          const a = W + j
          n = M - a
          do {
            if (p >= end) {
              s = this.extraView(unit, refills++)
              p = 0
              end = s.byteLength
            }
            m = s.getUint16(p) * n
            p += 2
          } while ((m & 0xffff) < n && (m & 0xffff) < 65536 % n)
          const r = a + (m >>> 16)
          const t = pool[r]
          pool[r] = pool[a]
          pool[a] = t
        }
        // 4. which winning numbers are matched
        for (let j = 0; j < W; j++) wc[j] = pool[j]
        for (let j = 0; j < k; j++) {
          n = W - j
          do {
            if (p >= end) {
              s = this.extraView(unit, refills++)
              p = 0
              end = s.byteLength
            }
            m = s.getUint16(p) * n
            p += 2
          } while ((m & 0xffff) < n && (m & 0xffff) < 65536 % n)
          const r = j + (m >>> 16)
          const t = wc[j]
          wc[j] = wc[r]
          wc[r] = t
        }
        // 5. where the matches stand among the Y cells
        for (let j = 0; j < Y; j++) cells[j] = j
        for (let j = 0; j < k; j++) {
          n = Y - j
          do {
            if (p >= end) {
              s = this.extraView(unit, refills++)
              p = 0
              end = s.byteLength
            }
            m = s.getUint16(p) * n
            p += 2
          } while ((m & 0xffff) < n && (m & 0xffff) < 65536 % n)
          const r = j + (m >>> 16)
          const cell = cells[r]
          cells[r] = cells[j]
          cells[j] = cell
          out[oYours + cell] = wc[j]
          out[oAmt + cell] = parts[j]
        }
        // 6. the other cells, in the order drawn, get the decoys and a decoy amount each
        n = decoyTotal
        for (let j = 0; j < decoys; j++) {
          const cell = cells[k + j]
          out[oYours + cell] = pool[W + j]
          do {
            if (p >= end) {
              s = this.extraView(unit, refills++)
              p = 0
              end = s.byteLength
            }
            m = s.getUint16(p) * n
            p += 2
          } while ((m & 0xffff) < n && (m & 0xffff) < 65536 % n)
          out[oAmt + cell] = decoyTable[m >>> 16]
        }
        out[oAmt + Y] = tier
        out[oAmt + Y + 1] = k
        out[o + 4] = prize >>> 24
        out[o + 5] = (prize >>> 16) & 255
        out[o + 6] = (prize >>> 8) & 255
        out[o + 7] = prize & 255
      }
      out[o] = unit >>> 24
      out[o + 1] = (unit >>> 16) & 255
      out[o + 2] = (unit >>> 8) & 255
      out[o + 3] = unit & 255
      o += rb
    }
  }
}

/**
 * Random access to the units of one block. The tier table (8 MB for 8,016,000 units) is built
 * on first use and kept; a unit's content needs only its own keystream slice.
 */
export class BlockDeriver {
  readonly keys: BlockKeys
  readonly synthesizer: UnitSynthesizer
  readonly evaluator: Evaluator
  private tierTable: Uint8Array | null = null

  constructor(
    readonly def: GameDefinition,
    readonly prim: Primitives,
    readonly ref: BlockRef,
  ) {
    this.keys = deriveBlockKeys(prim, ref)
    this.synthesizer = new UnitSynthesizer(def, prim, this.keys)
    this.evaluator = new Evaluator(def)
  }

  get tiers(): Uint8Array {
    if (!this.tierTable) this.tierTable = buildTierTable(this.def, this.prim, this.keys)
    return this.tierTable
  }

  /**
   * Uses a tier table built elsewhere by buildTierTable for this block (the block workers share
   * one in shared memory) instead of building one.
   */
  adoptTierTable(table: Uint8Array): void {
    if (table.length !== this.def.blockSize)
      throw new RangeError(`a tier table has ${this.def.blockSize} entries, not ${table.length}`)
    this.tierTable = table
  }

  private checkUnit(unit: number): void {
    if (!Number.isInteger(unit) || unit < 0 || unit >= this.def.blockSize) {
      throw new RangeError(`unit ${unit} is out of range (0–${this.def.blockSize - 1})`)
    }
  }

  /** Tier index of the unit, or null when it loses. */
  tierOf(unit: number): number | null {
    this.checkUnit(unit)
    const t = this.tiers[unit]
    return t === LOSING ? null : t
  }

  prizeOf(unit: number): number {
    const t = this.tierOf(unit)
    return t === null ? 0 : this.def.tiers[t].amountCents
  }

  /**
   * Records of `count` units from `first`, written into one buffer: `into` when given (it must
   * hold count × recordBytes bytes; the records go at its start), else a new one.
   */
  records(first: number, count: number, into?: Uint8Array): Uint8Array {
    if (count <= 0) return new Uint8Array(0)
    this.checkUnit(first)
    this.checkUnit(first + count - 1)
    const rb = this.synthesizer.recordBytes
    const sb = this.synthesizer.streamBytes
    if (into && into.length < count * rb)
      throw new RangeError(`${count} records need ${count * rb} bytes, not ${into.length}`)
    const out = into ?? new Uint8Array(count * rb)
    const tiers = this.tiers
    const perBatch = Math.max(1, Math.floor(UNIT_BATCH_BYTES / sb))
    for (let b = 0; b < count; b += perBatch) {
      const n = Math.min(perBatch, count - b)
      const stream = this.prim.keystream(this.keys.units, (first + b) * (sb / 16), n * sb)
      this.synthesizer.writeUnits(first + b, n, tiers, stream, 0, out, b * rb)
    }
    return out
  }

  ticket(unit: number): UnitTicket {
    return decodeRecord(this.def, this.ref, this.records(unit, 1), 0)
  }
}

/** The unit as plain data, from its record. */
export function decodeRecord(
  def: GameDefinition,
  ref: Pick<BlockRef, 'emission' | 'block'>,
  rec: Uint8Array,
  o: number,
): UnitTicket {
  const W = def.winningCells
  const Y = def.yoursCells
  const unit = ((rec[o] << 24) >>> 0) + (rec[o + 1] << 16) + (rec[o + 2] << 8) + rec[o + 3]
  const prize = ((rec[o + 4] << 24) >>> 0) + (rec[o + 5] << 16) + (rec[o + 6] << 8) + rec[o + 7]
  const tier = rec[o + 8 + W + 2 * Y]
  return {
    emission: ref.emission,
    block: ref.block,
    unit,
    serial: formatSerial({ emission: ref.emission, block: ref.block, unit }, def.blockSize),
    tier: tier === LOSING ? null : tier,
    prizeCents: prize,
    winning: Array.from(rec.subarray(o + 8, o + 8 + W)),
    numbers: Array.from(rec.subarray(o + 8 + W, o + 8 + W + Y)),
    amountsCents: Array.from(rec.subarray(o + 8 + W + Y, o + 8 + W + 2 * Y), (i) => def.printableAmountsCents[i]),
  }
}
