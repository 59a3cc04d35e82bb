/**
 * The app's ledger check and backup on a worker thread (ledger-task-worker.ts) with its own
 * connection: the check reads every sale and the backup copies the whole file, which on a ledger
 * with a whole block sold takes seconds; meanwhile the app's thread answers (WAL: reads never wait).
 */
import { Worker } from 'node:worker_threads'
import { AppError, type ErrorCode } from '../contract/errors'
import type { BackupReport, LedgerCheckReport } from '../contract/types'
import { workerEntry } from '../threads/entry'
import type { WorkerLedgerRef } from '../ledger/worker-ref'

/** The integrity check's worker, as this thread resolves it (a worker run from memory cannot find it). */
type Entries = { integrityEntry?: { file: string; eval: boolean } }

export type LedgerTaskData =
  | ({ task: 'check'; ledger: WorkerLedgerRef; actor: string; prizes: boolean } & Entries)
  | ({ task: 'backup'; ledger: WorkerLedgerRef; actor: string; dest: string } & Entries)

export type LedgerTaskMessage =
  | { type: 'progress'; done: number; total: number }
  | { type: 'done'; task: 'check'; result: LedgerCheckReport }
  | { type: 'done'; task: 'backup'; result: BackupReport }
  | { type: 'error'; code: ErrorCode; message: string; extras: AppError['extras'] }

type ResultOf<D extends LedgerTaskData> = D extends { task: 'check' } ? LedgerCheckReport : BackupReport

export type LedgerTaskRunner = <D extends LedgerTaskData>(data: D, onProgress?: (done: number, total: number) => void) => Promise<ResultOf<D>>

export const runLedgerTask: LedgerTaskRunner = (data, onProgress) =>
  new Promise((resolve, reject) => {
    const entry = workerEntry('ledger-task-worker')
    const worker = new Worker(entry.file, { eval: entry.eval, workerData: { ...data, integrityEntry: workerEntry('integrity-worker') } })
    let settled = false
    const fail = (e: AppError) => {
      if (settled) return
      settled = true
      reject(e)
    }
    worker.on('message', (m: LedgerTaskMessage) => {
      if (m.type === 'progress') onProgress?.(m.done, m.total)
      else if (m.type === 'error') fail(new AppError(m.code, m.message, m.extras))
      else if (!settled) {
        settled = true
        resolve(m.result as ResultOf<typeof data>)
      }
    })
    worker.on('error', (e) => fail(new AppError('INTERNAL', `the ledger task's worker failed: ${e.message}`)))
    worker.on('exit', (code) => fail(new AppError('INTERNAL', `the ledger task's worker stopped (exit code ${code})`)))
  })
