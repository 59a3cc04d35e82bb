import type { GameDefinition } from '../../../game-core/rules'
import type { UnitProblem } from '../../../game-core/verify'
import type { CommitmentVersion } from '../../../game-core/unit-commitment'

/** Indexes into the job's control words (Int32Array over a SharedArrayBuffer). */
export const CONTROL = {
  /** Set to 1 to ask every worker to stop. */
  stop: 0,
  /** The tier table's entries from this unit on are final (blockSize before the build, 0 when done). */
  tiersFinalFrom: 1,
  /** Set to 1 when building the tier table failed: nobody waits for it any more. */
  tiersFailed: 2,
  /** Batches handed out so far (workers take the next one with Atomics.add). */
  nextBatch: 3,
} as const
export const CONTROL_WORDS = 4

/**
 * What the pool sends a block worker: one block to work on with the other workers. The block's
 * chunks are cut in batches of `batchChunks` aligned chunks (each a subtree of the Merkle tree),
 * handed out from the top of the block down, since the tier table's shuffle fixes the top first.
 */
export interface BlockTask {
  def: GameDefinition
  emission: number
  block: number
  secret: Uint8Array
  /** How the block's leaves are made (DERIVATION.md §6, §7). */
  commitmentVersion: CommitmentVersion
  /** This worker builds the tier table (into `tiers`) before taking batches. */
  buildTiers: boolean
  /** Uint8Array over a SharedArrayBuffer: the block's tier table, built once for all workers. */
  tiers: SharedArrayBuffer
  /** Int32Array over a SharedArrayBuffer: see CONTROL. */
  control: SharedArrayBuffer
  /** Float64Array over a SharedArrayBuffer: the worker writes its units done at [index]. */
  progress: SharedArrayBuffer
  /** 32 bytes per chunk: the workers write the leaf hashes of their batches here. */
  leaves: SharedArrayBuffer
  batchChunks: number
  index: number
  /** Problems listed per worker, at most (the lowest units found). */
  maxProblems: number
}

/** What a worker did: its batches (chunks, units, subtree root) and totals. */
export interface BlockWorkerResult {
  /** first chunk, chunk count and units of each batch done, in threes */
  batches: number[]
  /** 32 bytes per batch: the root of its subtree, in the order of `batches` */
  roots: Uint8Array
  units: number
  tierCounts: number[]
  problems: UnitProblem[]
  failures: number
  cancelled: boolean
}

export type BlockWorkerMessage = { type: 'done'; result: BlockWorkerResult } | { type: 'error'; message: string }
