/**
 * The app's sales-feed import (the contract's sales:import) on a worker thread (import-worker.ts)
 * with its own connection to the ledger: a file of 200,000 lines takes seconds to read, check and
 * write, and meanwhile the app's thread goes on answering (reads never wait, WAL; a write waits
 * for the import's transaction). The worker gets the feed's bytes and the app's clock reading.
 * The result and the refusals (IMPORT_REJECTED with every bad line) are the in-thread importer's.
 */
import { Worker } from 'node:worker_threads'
import { AppError, type ErrorCode } from '../contract/errors'
import type { ImportResult } from '../contract/types'
import type { Actor, Clock } from '../services/common'
import { workerEntry } from './entry'
import { copyShared } from '../services/import-feed'

export interface ImportWorkerData {
  dbPath: string
  actor: Actor
  content: string | Uint8Array
  fileName: string | undefined
  /** the app's clock, in milliseconds */
  now: number
  /** the importer's reader thread (it starts one of its own for a large feed) */
  readerEntry: { file: string; eval: boolean }
}

export type ImportWorkerMessage = { type: 'done'; result: ImportResult } | { type: 'error'; code: ErrorCode; message: string; extras: AppError['extras'] }

export function workerImport(dbPath: string, clock: Clock) {
  return (actor: Actor, content: string | Uint8Array, fileName?: string): Promise<ImportResult> =>
    new Promise<ImportResult>((resolve, reject) => {
      const entry = workerEntry('import-worker')
      // The feed goes to the worker (and its reader thread) in memory that they share: text is
      // encoded there (a string passed to a worker is copied twice, out of this thread and into
      // the worker's heap: for a 355 MB feed longer than the import), bytes of this thread's
      // own (the Electron bridge's) copied there once; the browser host's body is there already.
      const bytes = typeof content === 'string' ? encodeShared(content) : content.buffer instanceof SharedArrayBuffer ? content : copyShared(content)
      const data: ImportWorkerData = { dbPath, actor: { name: actor.name, role: actor.role }, content: bytes, fileName, now: clock().getTime(), readerEntry: workerEntry('feed-reader-worker') }
      const worker = new Worker(entry.file, { eval: entry.eval, workerData: data })
      let settled = false
      const settle = (r: ImportResult | AppError) => {
        if (settled) return
        settled = true
        if (r instanceof AppError) reject(r)
        else resolve(r)
      }
      worker.on('message', (m: ImportWorkerMessage) => settle(m.type === 'done' ? m.result : new AppError(m.code, m.message, m.extras)))
      worker.on('error', (e) => settle(new AppError('INTERNAL', `the import's worker failed: ${e.message}`)))
      worker.on('exit', (code) => settle(new AppError('INTERNAL', `the import's worker stopped (exit code ${code})`)))
    })
}

/** The text in UTF-8, in memory that threads share. */
function encodeShared(text: string): Buffer {
  const bytes = Buffer.from(new SharedArrayBuffer(Buffer.byteLength(text, 'utf8')))
  bytes.write(text, 'utf8')
  return bytes
}
