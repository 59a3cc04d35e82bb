/**
 * The shapes of the services that live in their own modules (simulator, sales-feed importer,
 * reports), so that the backend, the demo and the handlers depend on the shape only.
 */
import type { CsvFile, FeedSample, ImportRecord, ImportResult, JobInfo, Page } from '../contract/types'
import type { CsvStyle } from './csv'
import type { Reports } from './reports'
import type { Actor } from './common'

export interface SimulateArgs {
  emission: number
  sales: number
  players?: number
  seed?: number
}

export interface SimulatorService {
  /** A `simulate` job on the emission. */
  start(actor: Actor, args: SimulateArgs): JobInfo
  /** The same work inside a job that already runs (the demo): resolves with the units sold. */
  run(
    actor: Actor,
    args: SimulateArgs,
    ctx: { signal: AbortSignal; progress(done: number, total: number, message?: string): void },
  ): Promise<{ sold: number }>
}

export interface ImporterService {
  /**
   * A JSONL sales feed, whole or not at all: AppError('IMPORT_REJECTED') lists every bad line in
   * details. On a worker thread with a connection of its own, so that the app's thread stays free
   * (the contract's sales:import). As text, or as the file's UTF-8 bytes.
   */
  importContent(actor: Actor, content: string | Uint8Array, fileName?: string, sha256?: string): Promise<ImportResult>
  /** The same on this thread, the bytes read in place: the command line (no copy of a large file, no thread to start). */
  importHere(actor: Actor, content: string | Uint8Array, fileName?: string, sha256?: string): ImportResult
  /** The imports, latest first, from the audit log (the contract's sales:imports). */
  history(args: { page: number; pageSize: number }): Page<ImportRecord>
  /** A refused import's reasons, grouped, as a CSV file (the contract's sales:importReasonsCsv). */
  reasonsCsv(args: { seq: number } & CsvStyle): CsvFile
  /** A sample feed in the feed's format (the contract's sales:sampleFeed). */
  sampleFeed(): FeedSample
}

export type ReportsService = Reports
