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

/** The tier code (table index, or LOSING) of every unit of the block. */
export function buildTierTable(def: GameDefinition, prim: Primitives, keys: BlockKeys): Uint8Array {
  const n = def.blockSize
  const table = new Uint8Array(n).fill(LOSING)
  let at = 0
  def.tiers.forEach((t, idx) => {
    table.fill(idx, at, at + t.count)
    at += t.count
  })
  let buf = prim.keystream(keys.tiers, 0, BATCH_BYTES)
  let nextBlock = BATCH_BYTES / 16
  let p = 0
  for (let i = n - 1; i > 0; i--) {
    // j uniform in [0, i] from 32-bit words by Lemire's multiply-and-shift with rejection
    // (as for unit draws, with 32-bit words): m = r·B, j = ⌊m / 2³²⌋, reject when
    // (m mod 2³²) < 2³² mod B. m needs up to 56 bits, so it is formed from 16-bit halves of r
    // to stay exact in doubles.
    const bound = i + 1
    let j: number
    for (;;) {
      if (p === BATCH_BYTES) {
        buf = prim.keystream(keys.tiers, nextBlock, BATCH_BYTES)
        nextBlock += BATCH_BYTES / 16
        p = 0
      }
      const high = ((buf[p] << 8) | buf[p + 1]) * bound
      const low = ((buf[p + 2] << 8) | buf[p + 3]) * bound
      p += 4
      const carry = Math.floor(low / 65536)
      const s = high + carry
      j = Math.floor(s / 65536)
      const low32 = (s - j * 65536) * 65536 + (low - carry * 65536)
      if (low32 >= bound || low32 >= TWO32 % bound) break
    }
    const tmp = table[i]
    table[i] = table[j]
    table[j] = tmp
  }
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
 */
export class UnitSynthesizer {
  readonly recordBytes: number
  readonly streamBytes: number
  private readonly numbers: Uint8Array
  private readonly pool: Uint8Array
  private readonly winningCopy: Uint8Array
  private readonly cells: Uint8Array
  private readonly compositions: CompiledComposition[]
  /** printable-amount index for each value of a draw in [0, total decoy weight) */
  private readonly decoyTable: Uint8Array
  private readonly tierAmounts: number[]
  private readonly cellOrder: Uint8Array
  // draw cursor
  private buf: Uint8Array = new Uint8Array(0)
  private p = 0
  private end = 0
  private unit = 0
  private refills = 0

  constructor(private readonly def: GameDefinition, private readonly prim: Primitives, private readonly keys: BlockKeys) {
    this.recordBytes = recordBytes(def)
    this.streamBytes = unitStreamBlocks(def) * 16
    this.numbers = Uint8Array.from(def.numbers)
    this.pool = new Uint8Array(def.numbers.length)
    this.winningCopy = new Uint8Array(def.winningCells)
    this.cells = new Uint8Array(def.yoursCells)
    this.cellOrder = Uint8Array.from({ length: def.yoursCells }, (_, i) => i)
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

  /**
   * A uniform whole number in [0, n) from 16-bit big-endian words, by Lemire's multiply-and-shift
   * with rejection: m = w·n; the draw is m >> 16 unless (m mod 2^16) < 2^16 mod n, then the next
   * word is taken. No division on the common path, and no bias.
   */
  private uniform(n: number): number {
    for (;;) {
      if (this.p >= this.end) this.refill()
      const buf = this.buf
      const p = this.p
      const m = ((buf[p] << 8) | buf[p + 1]) * n
      this.p = p + 2
      const low = m & 0xffff
      if (low >= n || low >= 65536 % n) return m >>> 16
    }
  }

  /** An index drawn with the given weights: a uniform draw over the total, read through a table. */
  private weighted(table: Uint8Array): number {
    return table[this.uniform(table.length)]
  }

  // The unit's own words ran out (about once in 10^16 units): continue on the extra key.
  private refill(): void {
    const blocks = this.streamBytes / 16
    this.buf = this.prim.keystream(this.keys.extra, this.unit * 65536 + this.refills * blocks, this.streamBytes)
    this.refills++
    this.p = 0
    this.end = this.buf.length
  }

  /**
   * Writes the record of `unit` (tier code `tier`) at out[o…], drawing from stream[so…so+streamBytes).
   */
  write(unit: number, tier: number, stream: Uint8Array, so: number, out: Uint8Array, o: number): void {
    const def = this.def
    const W = def.winningCells
    const Y = def.yoursCells
    const M = this.numbers.length
    this.buf = stream
    this.p = so
    this.end = so + this.streamBytes
    this.unit = unit
    this.refills = 0

    const pool = this.pool
    pool.set(this.numbers)
    const oWin = o + 8
    const oYours = oWin + W
    const oAmt = oYours + Y

    // 1. winning numbers: the first W steps of a Fisher–Yates shuffle of the number list
    for (let j = 0; j < W; j++) {
      const r = j + this.uniform(M - j)
      const t = pool[j]; pool[j] = pool[r]; pool[r] = t
      out[oWin + j] = pool[j]
    }
    // 2. the composition of the prize (k matching numbers)
    let parts: number[] | null = null
    let prize = 0
    if (tier !== LOSING) {
      const c = this.compositions[tier]
      parts = c.parts[c.parts.length > 1 ? this.weighted(c.table) : 0]
      prize = this.tierAmounts[tier]
    }
    const k = parts ? parts.length : 0
    const decoys = Y - k
    // 3. decoy numbers: the next Y-k steps of the same shuffle, so never a winning number
    for (let j = 0; j < decoys; j++) {
      const a = W + j
      const r = a + this.uniform(M - a)
      const t = pool[a]; pool[a] = pool[r]; pool[r] = t
    }
    // 4. which winning numbers are matched
    const wc = this.winningCopy
    for (let j = 0; j < W; j++) wc[j] = pool[j]
    for (let j = 0; j < k; j++) {
      const r = j + this.uniform(W - j)
      const t = wc[j]; wc[j] = wc[r]; wc[r] = t
    }
    // 5. where the matches stand among the Y cells
    const cells = this.cells
    cells.set(this.cellOrder)
    for (let j = 0; j < k; j++) {
      const r = j + this.uniform(Y - j)
      const t = cells[j]; cells[j] = cells[r]; cells[r] = t
      out[oYours + cells[j]] = wc[j]
      out[oAmt + cells[j]] = parts![j]
    }
    // 6. the other cells, in the order drawn, get the decoys and a decoy amount each
    for (let j = 0; j < decoys; j++) {
      const cell = cells[k + j]
      out[oYours + cell] = pool[W + j]
      out[oAmt + cell] = this.weighted(this.decoyTable)
    }
    out[o] = unit >>> 24; out[o + 1] = (unit >>> 16) & 255; out[o + 2] = (unit >>> 8) & 255; out[o + 3] = unit & 255
    out[o + 4] = prize >>> 24; out[o + 5] = (prize >>> 16) & 255; out[o + 6] = (prize >>> 8) & 255; out[o + 7] = prize & 255
    out[oAmt + Y] = tier
    out[oAmt + Y + 1] = k
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

  constructor(readonly def: GameDefinition, readonly prim: Primitives, readonly ref: BlockRef) {
    this.keys = deriveBlockKeys(prim, ref)
    this.synthesizer = new UnitSynthesizer(def, prim, this.keys)
    this.evaluator = new Evaluator(def)
  }

  get tiers(): Uint8Array {
    if (!this.tierTable) this.tierTable = buildTierTable(this.def, this.prim, this.keys)
    return this.tierTable
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

  /** Records of `count` units from `first`, written into one buffer. */
  records(first: number, count: number): Uint8Array {
    if (count <= 0) return new Uint8Array(0)
    this.checkUnit(first)
    this.checkUnit(first + count - 1)
    const rb = this.synthesizer.recordBytes
    const sb = this.synthesizer.streamBytes
    const out = new Uint8Array(count * rb)
    const tiers = this.tiers
    const perBatch = Math.max(1, Math.floor(BATCH_BYTES / sb))
    for (let b = 0; b < count; b += perBatch) {
      const n = Math.min(perBatch, count - b)
      const stream = this.prim.keystream(this.keys.units, (first + b) * (sb / 16), n * sb)
      for (let i = 0; i < n; i++) {
        const u = first + b + i
        this.synthesizer.write(u, tiers[u], stream, i * sb, out, (b + i) * rb)
      }
    }
    return out
  }

  ticket(unit: number): UnitTicket {
    return decodeRecord(this.def, this.ref, this.records(unit, 1), 0)
  }
}

/** The unit as plain data, from its record. */
export function decodeRecord(def: GameDefinition, ref: Pick<BlockRef, 'emission' | 'block'>, rec: Uint8Array, o: number): UnitTicket {
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
