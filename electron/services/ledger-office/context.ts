/**
 * The types the ledger office's parts share (README.md beside this file): what the office hands
 * to its task's worker thread (workers/ledger-task-worker.ts) and what it gets back.
 */
import type { AppError, ErrorCode } from '../../contract/errors'
import type { BackupReport, LedgerCheckReport } from '../../contract/types'
import type { WorkerLedgerRef } from '../../ledger/worker-ref'
import type { Clock } from '../common'

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

export type ResultOf<D extends LedgerTaskData> = D extends { task: 'check' } ? LedgerCheckReport : BackupReport

export type LedgerTaskRunner = <D extends LedgerTaskData>(
  data: D,
  onProgress?: (done: number, total: number) => void,
) => Promise<ResultOf<D>>

/** A restore of a backup: a file over a file ledger (integrity.ts), or a pg_dump into an empty database (backup.pg.ts). */
export interface RestoreOptions {
  backup: string
  target: string
  /** The backup's key file (default `<backup>.key`). */
  keyFile?: string
  /** Replace a ledger that exists at `target` (it is moved aside, never deleted). */
  replace?: boolean
  clock: Clock
}
