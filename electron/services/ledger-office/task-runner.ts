/**
 * The app's ledger check and backup on a worker thread (ledger-task-worker.ts) with its own
 * connection: the check reads every sale and the backup copies the whole file, which on a ledger
 * with a whole block sold takes seconds; meanwhile the app's thread answers (WAL: reads never wait).
 */
import { Worker } from 'node:worker_threads'
import { AppError } from '../../contract/errors'
import { answerAtExit } from '../../threads/answer'
import { workerEntry } from '../../threads/entry'
import type { LedgerTaskMessage, LedgerTaskRunner, ResultOf } from './context'

export const runLedgerTask: LedgerTaskRunner = (data, onProgress) => {
  const entry = workerEntry('ledger-task-worker')
  const worker = new Worker(entry.file, {
    eval: entry.eval,
    workerData: { ...data, integrityEntry: workerEntry('integrity-worker') },
  })
  return answerAtExit<LedgerTaskMessage, ResultOf<typeof data>>(worker, "the ledger task's worker", (m) => {
    if (m.type === 'progress') onProgress?.(m.done, m.total)
    else if (m.type === 'error') return { failure: new AppError(m.code, m.message, m.extras) }
    else return { result: m.result as ResultOf<typeof data> }
    return null
  })
}
