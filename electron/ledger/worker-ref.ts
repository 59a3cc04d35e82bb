/**
 * Which ledger a worker thread opens, as the thread that starts it knows it (the worker opens it
 * with app/worker-ledger.ts).
 */
import { provideWorkerEntries, workerEntry } from '../threads/entry'
import { isPostgresUrl } from './location'

/**
 * Which ledger a worker opens, as the thread that starts it knows it: the location, the key file
 * when it was given rather than found beside the file, and how to start a PostgreSQL ledger's
 * connection thread (a worker run from memory cannot find that file itself).
 */
export interface WorkerLedgerRef {
  dbPath: string
  keyFile?: string
  bridgeEntry?: { file: string; eval: boolean }
}

/** The reference to pass in a worker's data. */
export function workerLedgerRef(dbPath: string, keyFile?: string): WorkerLedgerRef {
  return { dbPath, keyFile, bridgeEntry: isPostgresUrl(dbPath) ? workerEntry('pg-bridge-worker') : undefined }
}

/** In the worker, before its ledger is opened: how to start a PostgreSQL connection's thread, as its parent found it. */
export function provideBridgeEntry(ref: WorkerLedgerRef): void {
  if (ref.bridgeEntry) provideWorkerEntries({ 'pg-bridge-worker': ref.bridgeEntry })
}
