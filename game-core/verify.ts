/**
 * Block verification: regenerate every unit, check it against the rules and its own evaluation,
 * count the tiers against the table, and compute the commitment. The work is split in ranges of
 * chunks (one per worker thread); `assembleVerification` puts the ranges back together.
 */
import type { GameDefinition } from './rules'
import type { Primitives } from './primitives'
import { toHex } from './primitives'
import { BlockDeriver, CHUNK_UNITS, LOSING, type BlockRef } from './block'
import { blockCommitment, chunkCount, leafHash, merkleRoot, rootFromSubtrees } from './commitment'
import { SALT_BYTES, UnitHasher, deriveSaltKey, unitSalts, type CommitmentVersion } from './unit-commitment'

export interface UnitProblem {
  unit: number
  message: string
}

export interface ChunkRangeResult {
  firstChunk: number
  chunkCount: number
  units: number
  /** 32 bytes per chunk. */
  leafHashes: Uint8Array
  /** MTH of this range's leaves: a node of the block's tree when the range is one (subtreeRanges). */
  subtreeRoot: Uint8Array | null
  /** Units per tier code: index i for tier i, the last entry for losing units. */
  tierCounts: number[]
  /** The first problems found (up to maxProblems). */
  problems: UnitProblem[]
  /** Units that failed, listed or not. */
  failures: number
  cancelled: boolean
}

export interface RangeOptions {
  /** Called after each batch with the units done so far in this range. */
  onProgress?: (unitsDone: number) => void
  shouldStop?: () => boolean
  /** Stop listing problems after this many (they are still counted as failures). */
  maxProblems?: number
  /** How leaves are made (DERIVATION.md §6, §7); 1 when not given. */
  commitmentVersion?: CommitmentVersion
}

/** Units whose salts are drawn in one keystream call (v2): 16 chunks, 64 kB of salts. */
const SALT_GROUP_UNITS = 16 * CHUNK_UNITS

/** Version 2 leaves: SHA256(0x00 ‖ h_u …) over the chunk's salted unit hashes. */
class SaltedLeaves {
  private readonly key: Uint8Array
  private readonly hasher: UnitHasher
  private readonly msg = new Uint8Array(1 + 32 * CHUNK_UNITS)
  private salts: Uint8Array = new Uint8Array(0)
  private saltsFrom = -1

  constructor(private readonly deriver: BlockDeriver) {
    this.key = deriveSaltKey(deriver.prim, deriver.ref)
    this.hasher = new UnitHasher(deriver.prim, deriver.synthesizer.recordBytes)
  }

  leaf(firstUnit: number, records: Uint8Array, n: number): Uint8Array {
    const groupFrom = firstUnit - (firstUnit % SALT_GROUP_UNITS)
    if (groupFrom !== this.saltsFrom) {
      const count = Math.min(SALT_GROUP_UNITS, this.deriver.def.blockSize - groupFrom)
      this.salts = unitSalts(this.deriver.prim, this.key, groupFrom, count)
      this.saltsFrom = groupFrom
    }
    this.hasher.hashUnits(records, n, this.salts, (firstUnit - groupFrom) * SALT_BYTES, this.msg, 1)
    return this.deriver.prim.sha256(this.msg.subarray(0, 1 + 32 * n))
  }
}

const CHUNKS_PER_BATCH = 4

export function processChunks(
  deriver: BlockDeriver,
  firstChunk: number,
  count: number,
  opts: RangeOptions = {},
): ChunkRangeResult {
  const { def, prim } = deriver
  const total = chunkCount(def)
  if (firstChunk < 0 || count < 0 || firstChunk + count > total)
    throw new RangeError(`chunks ${firstChunk}…${firstChunk + count - 1} are outside the block (0–${total - 1})`)
  const maxProblems = opts.maxProblems ?? 20
  const T = def.tiers.length
  const tierCounts = new Array<number>(T + 1).fill(0)
  const amounts = def.tiers.map((t) => t.amountCents)
  const leafHashes = new Uint8Array(32 * count)
  const problems: UnitProblem[] = []
  const ev = deriver.evaluator
  const W = def.winningCells
  const Y = def.yoursCells
  const rb = deriver.synthesizer.recordBytes
  const tiers = deriver.tiers
  const salted = (opts.commitmentVersion ?? 1) === 2 ? new SaltedLeaves(deriver) : null
  let units = 0
  let failures = 0
  const note = (unit: number, message: string) => {
    failures++
    if (problems.length < maxProblems) problems.push({ unit, message })
  }

  // One chunk's records at a time, written after a 0x00 byte so that the leaf hash
  // SHA256(0x00 || chunk) is taken in place.
  const chunkBytes = CHUNK_UNITS * rb
  const scratch = new Uint8Array(1 + chunkBytes)
  const into = scratch.subarray(1)
  for (let c = 0; c < count; c += CHUNKS_PER_BATCH) {
    if (opts.shouldStop?.())
      return {
        firstChunk,
        chunkCount: c,
        units,
        leafHashes: leafHashes.subarray(0, 32 * c),
        subtreeRoot: null,
        tierCounts,
        problems,
        failures,
        cancelled: true,
      }
    const chunksHere = Math.min(CHUNKS_PER_BATCH, count - c)
    for (let k = 0; k < chunksHere; k++) {
      const firstUnit = (firstChunk + c + k) * CHUNK_UNITS
      const n = Math.min(CHUNK_UNITS, def.blockSize - firstUnit)
      const records = deriver.records(firstUnit, n, into)
      for (let i = 0; i < n; i++) {
        const o = i * rb
        const u = firstUnit + i
        const code = tiers[u]
        const expected = code === LOSING ? 0 : amounts[code]
        // The record's own fields are committed too, and are what exports and tickets show.
        const storedUnit = ((records[o] << 24) >>> 0) + (records[o + 1] << 16) + (records[o + 2] << 8) + records[o + 3]
        const storedPrize =
          ((records[o + 4] << 24) >>> 0) + (records[o + 5] << 16) + (records[o + 6] << 8) + records[o + 7]
        if (storedUnit !== u) {
          note(u, `the record carries unit number ${storedUnit}`)
          continue
        }
        if (records[o + 8 + W + 2 * Y] !== code) {
          note(u, `the record carries tier ${records[o + 8 + W + 2 * Y]}, the tier table says ${code}`)
          continue
        }
        if (storedPrize !== expected) {
          note(u, `the record carries a prize of ${storedPrize} cents but its outcome is ${expected} cents`)
          continue
        }
        const prize = ev.runRecord(records, o)
        if (prize < 0) {
          note(u, ev.problem)
          continue
        }
        if (prize !== expected) {
          note(u, `the unit shows a prize of ${prize} cents but its outcome is ${expected} cents`)
          continue
        }
        if (records[o + 8 + W + 2 * Y + 1] !== ev.matchCount) {
          note(u, 'the recorded match count differs from the evaluation')
          continue
        }
        tierCounts[code === LOSING ? T : code]++
      }
      // records() writes into `into` unless it was replaced (the tests tamper with records that way)
      const leaf = salted
        ? salted.leaf(firstUnit, records, n)
        : records === into && n === CHUNK_UNITS
          ? prim.sha256(scratch)
          : leafHash(prim, records.subarray(0, n * rb))
      leafHashes.set(leaf, 32 * (c + k))
      units += n
    }
    opts.onProgress?.(units)
  }
  const subtreeRoot = count > 0 ? merkleRoot(prim, leafHashes) : null
  return {
    firstChunk,
    chunkCount: count,
    units,
    leafHashes,
    subtreeRoot,
    tierCounts,
    problems,
    failures,
    cancelled: false,
  }
}

export interface TierCheck {
  amountCents: number
  expected: number
  found: number
}

export interface BlockVerification {
  emission: number
  block: number
  units: number
  tiers: TierCheck[]
  losingUnits: number
  prizeTotalCents: number
  merkleRoot: string
  commitmentVersion: CommitmentVersion
  commitment: string
  /** The leaf hashes, 32 bytes per chunk (what proofs are made from). */
  leafHashes: Uint8Array
  problems: UnitProblem[]
  /** Units that failed a check (problems lists the first of them). */
  failedUnits: number
  /** Every unit follows the rules and its evaluation, and the tiers match the table exactly. */
  sound: boolean
}

/** Puts ranges (in any order) back together into the block's verification and commitment. */
export function assembleVerification(
  def: GameDefinition,
  prim: Primitives,
  ref: Pick<BlockRef, 'emission' | 'block'>,
  ranges: ChunkRangeResult[],
  commitmentVersion: CommitmentVersion = 1,
): BlockVerification {
  const sorted = [...ranges].sort((a, b) => a.firstChunk - b.firstChunk)
  const total = chunkCount(def)
  let expectedNext = 0
  for (const r of sorted) {
    if (r.cancelled) throw new Error('the verification was cancelled')
    if (r.firstChunk !== expectedNext) throw new Error(`chunks ${expectedNext}…${r.firstChunk - 1} are missing`)
    expectedNext += r.chunkCount
  }
  if (expectedNext !== total) throw new Error(`chunks ${expectedNext}…${total - 1} are missing`)

  const leaves = new Uint8Array(32 * total)
  const T = def.tiers.length
  const counts = new Array<number>(T + 1).fill(0)
  const problems: UnitProblem[] = []
  let units = 0
  let failedUnits = 0
  for (const r of sorted) {
    failedUnits += r.failures
    leaves.set(r.leafHashes, 32 * r.firstChunk)
    r.tierCounts.forEach((n, i) => (counts[i] += n))
    problems.push(...r.problems)
    units += r.units
  }
  const tiers = def.tiers.map((t, i) => ({ amountCents: t.amountCents, expected: t.count, found: counts[i] }))
  const losingExpected = def.blockSize - def.tiers.reduce((a, t) => a + t.count, 0)
  for (const t of tiers) {
    if (t.found !== t.expected)
      problems.push({
        unit: -1,
        message: `tier ${t.amountCents} cents: ${t.found} units found, the table says ${t.expected}`,
      })
  }
  if (counts[T] !== losingExpected && problems.length === 0)
    problems.push({ unit: -1, message: `${counts[T]} losing units found, expected ${losingExpected}` })
  const subtrees = new Map(
    sorted.filter((r) => r.subtreeRoot).map((r) => [`${r.firstChunk}:${r.chunkCount}`, r.subtreeRoot!]),
  )
  // Ranges cut by subtreeRanges are nodes of the tree: their roots suffice. Any other cut falls
  // back to the leaves.
  let root: Uint8Array
  try {
    root = rootFromSubtrees(prim, subtrees, 0, total)
  } catch {
    root = merkleRoot(prim, leaves)
  }
  return {
    emission: ref.emission,
    block: ref.block,
    units,
    tiers,
    losingUnits: counts[T],
    prizeTotalCents: tiers.reduce((a, t) => a + t.amountCents * t.found, 0),
    merkleRoot: toHex(root),
    commitmentVersion,
    commitment: blockCommitment(prim, def, ref, root, commitmentVersion),
    leafHashes: leaves,
    problems,
    failedUnits,
    sound: problems.length === 0 && failedUnits === 0 && units === def.blockSize,
  }
}

/** The whole block in this thread (tests, small definitions); the app uses worker threads. */
export function verifyBlock(
  def: GameDefinition,
  prim: Primitives,
  ref: BlockRef,
  opts: RangeOptions = {},
): BlockVerification {
  const deriver = new BlockDeriver(def, prim, ref)
  return assembleVerification(
    def,
    prim,
    ref,
    [processChunks(deriver, 0, chunkCount(def), opts)],
    opts.commitmentVersion,
  )
}
