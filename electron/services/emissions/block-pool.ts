/**
 * Whole-block work on all cores. The block's tier table is built once, by one worker, into shared
 * memory; meanwhile the other workers already take batches from the top of the block (the
 * shuffle fixes the top first). Batches are aligned runs of chunks, each a subtree of the Merkle
 * tree, handed out one at a time, so the threads stay busy to the end whatever else the machine
 * runs; each returns its batches' subtree roots, counts and problems, and the commitment is
 * assembled here. Progress is read from shared memory, so the workers never wait on the main
 * thread, and a cancel is seen within one batch of 512 units.
 *
 * Workers stay alive for a while after a job (unreferenced, so they keep no process alive): the
 * next job skips their start-up and finds their code already optimised.
 */
import { Worker } from 'node:worker_threads'
import { availableParallelism } from 'node:os'
import type { GameDefinition } from '../../../game-core/rules'
import {
  assembleVerification,
  type BlockVerification,
  type ChunkRangeResult,
  type UnitProblem,
} from '../../../game-core/verify'
import { chunkCount } from '../../../game-core/commitment'
import type { CommitmentVersion } from '../../../game-core/unit-commitment'
import { nodePrimitives } from '../../crypto/node-primitives'
import { AppError } from '../../contract/errors'
import { workerEntry } from '../../threads/entry'
import {
  CONTROL,
  CONTROL_WORDS,
  type BlockTask,
  type BlockWorkerMessage,
  type BlockWorkerResult,
} from './block-messages'

/** How a block is verified: on the worker pool in the app (verifyBlockInWorkers), on this thread in tests. */
export type VerifyBlockFn = (
  def: GameDefinition,
  ref: { emission: number; block: number; secret: Uint8Array; commitmentVersion?: CommitmentVersion },
  opts?: { threads?: number; onProgress?: (unitsDone: number, unitsTotal: number) => void; signal?: AbortSignal },
) => Promise<BlockVerification>

export interface BlockJobOptions {
  threads?: number
  onProgress?: (unitsDone: number, unitsTotal: number) => void
  signal?: AbortSignal
  /** How often progress is reported, in ms. */
  progressEveryMs?: number
}

/** Chunks per batch: a power of two, so that every batch is a subtree (2,048 units, about 1 ms). */
const BATCH_CHUNKS = 16
const MAX_PROBLEMS = 20
/** How long an idle worker is kept for the next job. */
const IDLE_MS = 30_000

export function defaultThreads(): number {
  return Math.max(1, availableParallelism())
}

// Idle workers, with the timer that ends each.
const idle = new Map<Worker, ReturnType<typeof setTimeout>>()

function acquireWorker(): Worker {
  for (const [worker, timer] of idle) {
    idle.delete(worker)
    clearTimeout(timer)
    worker.ref()
    return worker
  }
  const entry = workerEntry('block-worker')
  const worker = new Worker(entry.file, { eval: entry.eval })
  // A worker that ends while idle leaves the pool.
  worker.on('exit', () => {
    const timer = idle.get(worker)
    if (timer) clearTimeout(timer)
    idle.delete(worker)
  })
  return worker
}

function releaseWorker(worker: Worker): void {
  worker.unref()
  const timer = setTimeout(() => {
    idle.delete(worker)
    void worker.terminate()
  }, IDLE_MS)
  timer.unref()
  idle.set(worker, timer)
}

/** Runs one task on a worker; the worker goes back to the pool after a clean answer, else it is ended. */
function runTask(worker: Worker, task: BlockTask): Promise<BlockWorkerResult> {
  return new Promise<BlockWorkerResult>((resolve, reject) => {
    const cleanup = () => {
      worker.off('message', onMessage)
      worker.off('error', onError)
      worker.off('exit', onExit)
    }
    const onMessage = (m: BlockWorkerMessage) => {
      cleanup()
      if (m.type === 'done') {
        releaseWorker(worker)
        resolve(m.result)
      } else {
        void worker.terminate()
        reject(new Error(m.message))
      }
    }
    const onError = (e: Error) => {
      cleanup()
      void worker.terminate()
      reject(e)
    }
    const onExit = (code: number) => {
      cleanup()
      reject(new Error(`block worker stopped with code ${code}`))
    }
    worker.on('message', onMessage)
    worker.once('error', onError)
    worker.once('exit', onExit)
    worker.postMessage(task)
  })
}

/** Regenerates and checks a whole block, its leaves made as its commitment version says (1 when not given). */
export async function verifyBlockInWorkers(
  def: GameDefinition,
  ref: { emission: number; block: number; secret: Uint8Array; commitmentVersion?: CommitmentVersion },
  opts: BlockJobOptions = {},
): Promise<BlockVerification> {
  const total = chunkCount(def)
  const batches = Math.ceil(total / BATCH_CHUNKS)
  const threads = Math.max(1, Math.min(opts.threads ?? defaultThreads(), batches))
  if (opts.signal?.aborted) throw new AppError('CANCELLED', 'the task was cancelled')
  const control = new SharedArrayBuffer(4 * CONTROL_WORDS)
  const controlView = new Int32Array(control)
  Atomics.store(controlView, CONTROL.tiersFinalFrom, def.blockSize)
  const progress = new SharedArrayBuffer(8 * threads)
  const progressView = new Float64Array(progress)
  const tiers = new SharedArrayBuffer(def.blockSize)
  const leaves = new SharedArrayBuffer(32 * total)
  const stop = () => Atomics.store(controlView, CONTROL.stop, 1)
  opts.signal?.addEventListener('abort', stop)
  const timer = opts.onProgress
    ? setInterval(
        () =>
          opts.onProgress!(
            progressView.reduce((a, b) => a + b, 0),
            def.blockSize,
          ),
        opts.progressEveryMs ?? 200,
      )
    : null
  try {
    const settled = await Promise.allSettled(
      Array.from({ length: threads }, (_, i) => {
        const task: BlockTask = {
          def,
          emission: ref.emission,
          block: ref.block,
          secret: ref.secret,
          commitmentVersion: ref.commitmentVersion ?? 1,
          buildTiers: i === 0,
          tiers,
          control,
          progress,
          leaves,
          batchChunks: BATCH_CHUNKS,
          index: i,
          maxProblems: MAX_PROBLEMS,
        }
        // One failed worker stops the others.
        return runTask(acquireWorker(), task).catch((e: unknown) => {
          stop()
          throw e
        })
      }),
    )
    const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected')
    if (failed) throw failed.reason
    const results = settled.map((s) => (s as PromiseFulfilledResult<BlockWorkerResult>).value)
    if (opts.signal?.aborted || results.some((r) => r.cancelled))
      throw new AppError('CANCELLED', 'the task was cancelled')
    opts.onProgress?.(def.blockSize, def.blockSize)
    return assembleVerification(
      def,
      nodePrimitives,
      ref,
      toRanges(def, results, new Uint8Array(leaves)),
      ref.commitmentVersion ?? 1,
    )
  } finally {
    if (timer) clearInterval(timer)
    opts.signal?.removeEventListener('abort', stop)
    stop()
  }
}

/**
 * The workers' batches as ranges for assembleVerification: each batch with its leaves and subtree
 * root; each worker's totals (counts, failures, problems) carried by one of its ranges.
 */
function toRanges(def: GameDefinition, results: BlockWorkerResult[], leaves: Uint8Array): ChunkRangeResult[] {
  const T = def.tiers.length
  const ranges: ChunkRangeResult[] = []
  const problems: UnitProblem[] = []
  for (const r of results) {
    problems.push(...r.problems)
    for (let b = 0; b < r.batches.length / 3; b++) {
      const firstChunk = r.batches[3 * b]
      const count = r.batches[3 * b + 1]
      const units = r.batches[3 * b + 2]
      ranges.push({
        firstChunk,
        chunkCount: count,
        units,
        leafHashes: leaves.subarray(32 * firstChunk, 32 * (firstChunk + count)),
        subtreeRoot: r.roots.subarray(32 * b, 32 * b + 32),
        tierCounts: b === 0 ? r.tierCounts : new Array<number>(T + 1).fill(0),
        problems: [],
        failures: b === 0 ? r.failures : 0,
        cancelled: false,
      })
    }
  }
  // The problems in unit order, on the first range.
  ranges.sort((a, b) => a.firstChunk - b.firstChunk)
  if (ranges.length > 0) ranges[0].problems = problems.sort((a, b) => a.unit - b.unit)
  return ranges
}
