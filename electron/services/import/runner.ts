/**
 * The app's sales-feed import (the contract's sales:import) on a worker thread (import-worker.ts)
 * with its own connection to the ledger: a file of 200,000 lines takes seconds to read, check and
 * write, and meanwhile the app's thread goes on answering (reads never wait, WAL; a write waits
 * for the import's transaction). The worker gets the feed's bytes and the app's clock reading.
 * The result and the refusals (IMPORT_REJECTED with every bad line) are the in-thread importer's.
 *
 * The worker stays for IDLE_MS after an import, its connection open and its catalog warm, and
 * takes the next import at once: starting a worker costs 0.3–0.4 s, and deriving a block's tier
 * table (which writing sales needs) 1.2 s, which the import from the app paid each time while the
 * command line's process had them already. Imports on one worker run one after the other (they
 * would wait for each other's transaction anyway). After IDLE_MS it closes its connection and
 * ends; closeImportWorkers ends it at once (the backend's close).
 */
import { Worker } from 'node:worker_threads'
import { AppError, type ErrorCode } from '../../contract/errors'
import type { ImportResult } from '../../contract/types'
import type { Actor, Clock } from '../common'
import { arrivalOf, type FeedArrival } from './arrival'
import { copyShared } from './feed'
import { WriteTurn } from './write-turn'
import { isPostgresUrl } from '../../ledger/location'
import { workerEntry } from '../../threads/entry'
import { workerLedgerRef, type WorkerLedgerRef } from '../../ledger/worker-ref'

/** What the worker is started with. */
export interface ImportWorkerData {
  ledger: WorkerLedgerRef
  /** the ledger's write turn, shared with the app's thread (SQLite only: write-turn.ts) */
  turn?: SharedArrayBuffer
  /** the importer's reader thread (it starts one of its own for a large feed) */
  readerEntry: { file: string; eval: boolean }
}

/** One import asked of the worker. */
export interface ImportJob {
  type: 'import'
  id: number
  actor: Actor
  content: Uint8Array
  fileName: string | undefined
  /** the app's clock, in milliseconds */
  now: number
  /** the feed is still arriving (the browser host's upload): FeedArrival's memory */
  arrival?: SharedArrayBuffer
  /** the file's SHA-256 as the sender announced it (Importer.importContent) */
  sha256?: string
}

export type ImportWorkerMessage = { id: number } & (
  | { type: 'done'; result: ImportResult }
  | { type: 'error'; code: ErrorCode; message: string; extras: AppError['extras'] }
)

const IDLE_MS = 30_000

interface Pending {
  resolve: (r: ImportResult) => void
  reject: (e: AppError) => void
}

/** One ledger's import worker, and the imports it has been asked for. */
class ImportThread {
  readonly worker: Worker
  /** Settled when the worker has exited (its connection closed). */
  readonly ended: Promise<void>
  private readonly pending = new Map<number, Pending>()
  private nextId = 1
  private timer: ReturnType<typeof setTimeout> | null = null

  constructor(
    readonly dbPath: string,
    keyFile: string | undefined,
    private readonly onEnd: (t: ImportThread) => void,
  ) {
    const entry = workerEntry('import-worker')
    const turn = writeTurnOf(dbPath)
    const workerData: ImportWorkerData = {
      ledger: workerLedgerRef(dbPath, keyFile),
      readerEntry: workerEntry('feed-reader-worker'),
      ...(turn ? { turn: turn.memory } : {}),
    }
    this.worker = new Worker(entry.file, { eval: entry.eval, workerData })
    this.ended = new Promise((ended) => this.worker.once('exit', () => ended()))
    this.worker.on('message', (m: ImportWorkerMessage) => this.settle(m))
    this.worker.on('error', (e) => this.fail(`the import's worker failed: ${e.message}`))
    this.worker.on('exit', (code) => this.fail(`the import's worker stopped (exit code ${code})`))
  }

  run(
    actor: Actor,
    content: Uint8Array,
    fileName: string | undefined,
    now: number,
    arrival: FeedArrival | null,
    sha256?: string,
  ): Promise<ImportResult> {
    if (this.timer) clearTimeout(this.timer)
    this.timer = null
    // busy: it keeps the process alive until the import ends
    this.worker.ref()
    const id = this.nextId++
    const job: ImportJob = {
      type: 'import',
      id,
      actor: { name: actor.name, role: actor.role },
      content,
      fileName,
      now,
      ...(arrival ? { arrival: arrival.memory } : {}),
      ...(sha256 ? { sha256 } : {}),
    }
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject })
      this.worker.postMessage(job)
    })
  }

  /** Ends the worker, which closes its connection first; settled once it has exited. */
  close(): Promise<void> {
    if (this.timer) clearTimeout(this.timer)
    this.timer = null
    // out of the map at once: an import asked for meanwhile starts a new worker, never this closing one
    this.onEnd(this)
    this.worker.postMessage({ type: 'close' })
    return this.ended
  }

  private settle(m: ImportWorkerMessage): void {
    const p = this.pending.get(m.id)
    if (!p) return
    this.pending.delete(m.id)
    if (m.type === 'done') p.resolve(m.result)
    else p.reject(new AppError(m.code, m.message, m.extras))
    if (this.pending.size === 0) this.idle()
  }

  private idle(): void {
    this.worker.unref()
    this.timer = setTimeout(() => this.close(), IDLE_MS)
    this.timer.unref()
  }

  private fail(message: string): void {
    if (this.timer) clearTimeout(this.timer)
    this.onEnd(this)
    for (const p of this.pending.values()) p.reject(new AppError('INTERNAL', message))
    this.pending.clear()
  }
}

const threads = new Map<string, ImportThread>()
const turns = new Map<string, WriteTurn>()

/**
 * The write turn of the SQLite ledger at dbPath in this process, shared by the app's thread and
 * the ledger's import worker (write-turn.ts); none for a team ledger, whose writers wait
 * for rows, not for the whole database.
 */
export function writeTurnOf(dbPath: string): WriteTurn | null {
  if (isPostgresUrl(dbPath)) return null
  let t = turns.get(dbPath)
  if (!t) turns.set(dbPath, (t = WriteTurn.create()))
  return t
}

function threadFor(dbPath: string, keyFile: string | undefined): ImportThread {
  let t = threads.get(dbPath)
  if (!t) {
    t = new ImportThread(
      dbPath,
      keyFile,
      (ended) => threads.get(ended.dbPath) === ended && threads.delete(ended.dbPath),
    )
    threads.set(dbPath, t)
  }
  return t
}

/** Ends the import worker of the ledger at dbPath (or of every ledger), if one is there. */
export function closeImportWorkers(dbPath?: string): Promise<void> {
  const closing: Promise<void>[] = []
  for (const [path, t] of threads) {
    if (dbPath !== undefined && path !== dbPath) continue
    threads.delete(path)
    closing.push(t.close())
  }
  return Promise.all(closing).then(() => undefined)
}

export function workerImport(dbPath: string, clock: Clock, keyFile?: string) {
  return (actor: Actor, content: string | Uint8Array, fileName?: string, sha256?: string): Promise<ImportResult> => {
    // The feed goes to the worker (and its reader thread) in memory that they share: text is
    // encoded there (a string passed to a worker is copied twice, out of this thread and into
    // the worker's heap: for a 355 MB feed longer than the import), bytes of this thread's
    // own (the Electron bridge's) copied there once; the browser host's body is there already,
    // maybe still arriving (arrival.ts): the worker and its reader wait for its bytes.
    const bytes =
      typeof content === 'string'
        ? encodeShared(content)
        : content.buffer instanceof SharedArrayBuffer
          ? content
          : copyShared(content)
    const arrival = typeof content === 'string' ? null : arrivalOf(content)
    return threadFor(dbPath, keyFile).run(actor, bytes, fileName, clock().getTime(), arrival, sha256)
  }
}

/** The text in UTF-8, in memory that threads share. */
function encodeShared(text: string): Buffer {
  const bytes = Buffer.from(new SharedArrayBuffer(Buffer.byteLength(text, 'utf8')))
  bytes.write(text, 'utf8')
  return bytes
}
