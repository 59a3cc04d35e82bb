/**
 * Whole-block work on all cores: the block's chunks are split in one contiguous range per
 * worker thread; each worker rebuilds the tier table and its units, and returns leaf hashes and
 * counts; the commitment is assembled here. Progress is read from shared memory, so the workers
 * never wait on the main thread, and a cancel is seen within one batch of 512 units.
 */
import { Worker } from 'node:worker_threads'
import { existsSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { join } from 'node:path'
import type { GameDefinition } from '../../game-core/rules'
import { assembleVerification, type BlockVerification, type ChunkRangeResult } from '../../game-core/verify'
import { chunkCount, subtreeRanges } from '../../game-core/commitment'
import { nodePrimitives } from '../crypto/node-primitives'
import { AppError } from '../contract/errors'
import type { BlockTask, BlockWorkerMessage } from './messages'

export interface BlockJobOptions {
  threads?: number
  onProgress?: (unitsDone: number, unitsTotal: number) => void
  signal?: AbortSignal
  /** How often progress is reported, in ms. */
  progressEveryMs?: number
}

let sourceBundle: string | null = null

/**
 * The bundled worker next to the built main process (the app); otherwise (CLI, tests, bench run
 * from TypeScript) the worker's source bundled once per process with esbuild and run from memory:
 * registering a TypeScript loader in every worker cost about a second per job.
 */
function workerEntry(): { file: string; eval: boolean } {
  const built = join(__dirname, 'block-worker.js')
  if (existsSync(built)) return { file: built, eval: false }
  if (!sourceBundle) {
    // esbuild is a development dependency: only this path, never the built app, loads it.
    const esbuild = require('esbuild') as typeof import('esbuild')
    const out = esbuild.buildSync({ entryPoints: [join(__dirname, 'block-worker.ts')], bundle: true, platform: 'node', format: 'cjs', target: 'node20', write: false })
    sourceBundle = out.outputFiles[0].text
  }
  return { file: sourceBundle, eval: true }
}

export function defaultThreads(): number {
  return Math.max(1, availableParallelism())
}

export async function verifyBlockInWorkers(
  def: GameDefinition,
  ref: { emission: number; block: number; secret: Uint8Array },
  opts: BlockJobOptions = {},
): Promise<BlockVerification> {
  const total = chunkCount(def)
  // Each thread takes a whole subtree of the Merkle tree, so the root needs no further hashing here.
  const ranges = subtreeRanges(total, Math.max(1, opts.threads ?? defaultThreads()))
  const threads = ranges.length
  if (opts.signal?.aborted) throw new AppError('CANCELLED', 'the task was cancelled')
  const stop = new SharedArrayBuffer(4)
  const progress = new SharedArrayBuffer(8 * threads)
  const progressView = new Float64Array(progress)
  const entry = workerEntry()
  const workers: Worker[] = []
  const onAbort = () => Atomics.store(new Int32Array(stop), 0, 1)
  opts.signal?.addEventListener('abort', onAbort)
  const timer = opts.onProgress
    ? setInterval(() => opts.onProgress!(progressView.reduce((a, b) => a + b, 0), def.blockSize), opts.progressEveryMs ?? 200)
    : null
  try {
    const results = await Promise.all(
      Array.from({ length: threads }, (_, i) => {
        const task: BlockTask = { def, emission: ref.emission, block: ref.block, secret: ref.secret, firstChunk: ranges[i].from, chunkCount: ranges[i].count, stop, progress, index: i }
        return new Promise<ChunkRangeResult>((resolve, reject) => {
          const worker = new Worker(entry.file, { workerData: task, eval: entry.eval })
          workers.push(worker)
          worker.once('message', (m: BlockWorkerMessage) => (m.type === 'done' ? resolve(m.result) : reject(new Error(m.message))))
          worker.once('error', reject)
          worker.once('exit', (code) => reject(new Error(`block worker stopped with code ${code}`)))
        })
      }),
    )
    if (opts.signal?.aborted || results.some((r) => r.cancelled)) throw new AppError('CANCELLED', 'the task was cancelled')
    opts.onProgress?.(def.blockSize, def.blockSize)
    return assembleVerification(def, nodePrimitives, ref, results)
  } finally {
    if (timer) clearInterval(timer)
    opts.signal?.removeEventListener('abort', onAbort)
    onAbort()
    await Promise.all(workers.map((w) => w.terminate()))
  }
}
