/**
 * The app's ledger check and backup on a worker thread (ledger-task-worker.ts) with its own
 * connection: the check reads every sale and the backup copies the whole file, which on a ledger
 * with a whole block sold takes seconds; meanwhile the app's thread answers (WAL: reads never wait).
 */
import { Worker } from 'node:worker_threads'
import { AppError } from '../../contract/errors'
import { workerEntry } from '../../threads/entry'
import type { LedgerTaskMessage, LedgerTaskRunner, ResultOf } from './context'

export const runLedgerTask: LedgerTaskRunner = (data, onProgress) =>
  new Promise((resolve, reject) => {
    const entry = workerEntry('ledger-task-worker')
    const worker = new Worker(entry.file, {
      eval: entry.eval,
      workerData: { ...data, integrityEntry: workerEntry('integrity-worker') },
    })
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
