import type { GameDefinition } from '../../game-core/rules'
import type { ChunkRangeResult } from '../../game-core/verify'

/** What the pool sends a block worker: one range of chunks of one block. */
export interface BlockTask {
  def: GameDefinition
  emission: number
  block: number
  secret: Uint8Array
  firstChunk: number
  chunkCount: number
  /** Int32Array over a SharedArrayBuffer: [0] set to 1 asks the worker to stop. */
  stop: SharedArrayBuffer
  /** Float64Array over a SharedArrayBuffer: the worker writes its units done at [index]. */
  progress: SharedArrayBuffer
  index: number
}

export type BlockWorkerMessage =
  | { type: 'done'; result: ChunkRangeResult }
  | { type: 'error'; message: string }
