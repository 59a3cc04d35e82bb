/**
 * The app's Seller (service.ts): a simulation sold on a worker thread (simulate-worker.ts)
 * with its own connection to the ledger, in transactions of up to WORKER_BATCH sales lasting
 * about WORKER_BATCH_MS each.
 *
 * Bigger transactions cost less per sale: each one rewrites the pages of most of the players it
 * sells to, whatever its size. On the app's thread a transaction that big would hold the event
 * loop for more than a second; on its own thread it holds only the ledger's write lock, so a
 * write made meanwhile by the app (another task, a sign-in audited) waits for the batch to
 * commit, a second or two; reads never wait (WAL).
 */
import { Worker } from 'node:worker_threads'
import { AppError, type ErrorCode } from '../../contract/errors'
import type { UnitRun } from '../sales'
import type { Seller, SellJob } from './context'
import { answerAtExit } from '../../threads/answer'
import { workerEntry } from '../../threads/entry'
import type { WorkerLedgerRef } from '../../ledger/worker-ref'

/** Sales per transaction on the worker thread, at most… */
export const WORKER_BATCH = 200_000
/** …and about this long (a write of the app waits for the transaction under way, 5 s at most). */
export const WORKER_BATCH_MS = 1500

/**
 * The worker's young generation (V8's nursery): a batch's objects (an entry per sale, its packed
 * play) live until the batch commits; with V8's default nursery they outlive it and are copied
 * into the old generation. Whole-block runs here took 35–56 s of the worker's CPU by default,
 * 35–38 s with 256 MB.
 */
const YOUNG_GENERATION_MB = 256

export interface SimulateWorkerData {
  ledger: WorkerLedgerRef
  job: SellJob
  draftsEntry: { file: string; eval: boolean }
}

export type SimulateWorkerMessage =
  | { type: 'progress'; sold: number; run: UnitRun }
  | { type: 'done' }
  | { type: 'error'; code: ErrorCode; message: string }

export function workerSeller(ledger: WorkerLedgerRef): Seller {
  return async (job, hooks) => {
    const entry = workerEntry('simulate-worker')
    const data: SimulateWorkerData = {
      ledger,
      job: job.batchSize ? job : { ...job, batchSize: WORKER_BATCH, batchMs: WORKER_BATCH_MS },
      draftsEntry: workerEntry('sales-worker'),
    }
    const worker = new Worker(entry.file, {
      eval: entry.eval,
      workerData: data,
      resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB },
    })
    const onAbort = () => worker.postMessage('cancel')
    if (hooks.signal?.aborted) onAbort()
    else hooks.signal?.addEventListener('abort', onAbort, { once: true })
    try {
      await answerAtExit(worker, "the simulation's worker", (m: SimulateWorkerMessage) => {
        if (m.type === 'progress') hooks.progress?.(m.sold, m.run)
        else if (m.type === 'done') return { result: undefined }
        else return { failure: new AppError(m.code, m.message) }
        return null
      })
    } finally {
      hooks.signal?.removeEventListener('abort', onAbort)
    }
  }
}
