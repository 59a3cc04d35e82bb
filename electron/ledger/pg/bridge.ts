/**
 * A PostgreSQL connection the calling thread uses synchronously, as it uses better-sqlite3: the
 * connection lives in a worker thread (pg-bridge-worker.ts); each request is posted to it and the
 * caller waits (Atomics.wait) until the answer is there, then takes it (receiveMessageOnPort).
 * The services keep one model for both engines: a statement runs to its end before the next one.
 * The one exception is post(): a request sent without waiting (a chunk of COPY), so that the
 * caller builds the next chunk while the server takes this one. Its answer is read, in order,
 * before the next call's request is sent (drain), and its failure thrown then.
 */
import { MessageChannel, Worker, receiveMessageOnPort, type MessagePort } from 'node:worker_threads'
import { workerEntry } from '../../threads/entry'
import type { BridgeAnswer, BridgeError, BridgeRequest, BridgeRows } from './bridge-messages'
import type { ConstraintKind } from '../db-types'

/**
 * What went wrong, by kind, read from the server's error code (never from its wording): a
 * constraint broken (ledger/constraint.ts), a lock not had in time, the connection gone, the
 * ledger closed, or another failure.
 */
export type PgFailure = ConstraintKind | 'busy' | 'lost' | 'closed' | 'other'

/** An error of the server, in its own words, with its kind (PgFailure) and SQLSTATE. */
export class PgError extends Error {
  constructor(
    message: string,
    readonly failure: PgFailure,
    readonly pgCode: string | undefined,
    /** Set when the connection is gone (BridgeError.lost): PgDb connects again, or refuses the transaction it cut. */
    readonly lost?: 'sent' | 'unsent',
    /** A constraint's columns, as `table.column` (ledger/constraint.ts). */
    readonly columns: string[] = [],
  ) {
    super(message)
    this.name = 'PgError'
  }
}

/** "Key (a, b)=(1, 2) already exists." → "a, b" */
function keyColumns(detail: string | undefined): string[] {
  const m = /^Key \(([^)]*)\)/.exec(detail ?? '')
  return m ? m[1].split(',').map((c) => c.trim()) : []
}

/** The failure each SQLSTATE is (the constraint classes, and the lock waits and conflicts). */
const FAILURES: Record<string, PgFailure> = {
  '23505': 'unique',
  '23514': 'check',
  '23503': 'foreign-key',
  '23502': 'not-null',
  '23000': 'trigger', // what the ledger's own triggers raise (schema/v10.pg.ts)
  P0001: 'trigger',
  '55P03': 'busy', // lock_not_available: lock_timeout passed
  '40P01': 'busy', // deadlock_detected
  '40001': 'busy', // serialization_failure
}

/** The server's error as a PgError: its message, its kind, and a constraint's columns. */
export function toPgError(e: BridgeError): PgError {
  if (e.lost) return new PgError(e.message, 'lost', e.code, e.lost)
  const failure = FAILURES[e.code ?? ''] ?? 'other'
  const table = e.table ?? '?'
  const columns =
    failure === 'unique'
      ? keyColumns(e.detail).map((c) => `${table}.${c}`)
      : failure === 'not-null'
        ? [`${table}.${e.column ?? '?'}`]
        : []
  return new PgError(e.message, failure, e.code, undefined, columns)
}

/** bytea arrives as a plain Uint8Array (structured clone): the services expect Buffers, as better-sqlite3 gives. */
function buffersIn(rows: unknown[]): unknown[] {
  for (const row of rows) {
    const r = row as Record<string, unknown>
    for (const k in r) {
      const v = r[k]
      if (v instanceof Uint8Array && !Buffer.isBuffer(v)) r[k] = Buffer.from(v.buffer, v.byteOffset, v.byteLength)
    }
  }
  return rows
}

export class SyncBridge {
  private readonly worker: Worker
  private readonly port: MessagePort
  /** How many answers the connection's thread has posted (it adds one per answer; int32, wraps). */
  private readonly flag = new Int32Array(new SharedArrayBuffer(4))
  /** How many answers this side has taken. */
  private taken = 0
  /** What to do with the answer of each request posted and not yet drained, in order. */
  private readonly posted: ((rows: BridgeRows) => void)[] = []
  private closed = false

  constructor(url: string) {
    const { port1, port2 } = new MessageChannel()
    const entry = workerEntry('pg-bridge-worker')
    this.worker = new Worker(entry.file, {
      eval: entry.eval,
      workerData: { url, port: port2, flag: this.flag },
      transferList: [port2],
    })
    this.worker.unref()
    this.port = port1
  }

  /** Sends one request (`transfer`: its buffers, handed over) and waits for its answer; a server error is thrown as a PgError. */
  call(req: BridgeRequest, transfer: ArrayBuffer[] = []): BridgeRows {
    this.drain()
    this.send(req, transfer)
    return this.next()
  }

  /** Sends one request without waiting (`transfer`: its buffers, handed over); `done` gets its answer at the next drain. */
  post(req: BridgeRequest, done: (rows: BridgeRows) => void = () => {}, transfer: ArrayBuffer[] = []): void {
    this.send(req, transfer)
    this.posted.push(done)
  }

  /** The answers of the requests posted, in order; the first failure among them is thrown once all are read. */
  drain(): void {
    let failure: unknown = null
    while (this.posted.length > 0) {
      const done = this.posted.shift()!
      try {
        done(this.next())
      } catch (e) {
        if (this.closed) throw e
        failure ??= e
      }
    }
    if (failure) throw failure
  }

  private send(req: BridgeRequest, transfer: ArrayBuffer[] = []): void {
    if (this.closed) throw new PgError('The PostgreSQL ledger is closed', 'closed', undefined)
    this.port.postMessage(req, transfer)
  }

  /** The next answer, once the connection's thread has posted it. */
  private next(): BridgeRows {
    while (Atomics.load(this.flag, 0) === this.taken) Atomics.wait(this.flag, 0, this.taken)
    this.taken = (this.taken + 1) | 0
    const got = receiveMessageOnPort(this.port)
    if (!got) {
      this.closed = true
      throw new PgError(
        'the PostgreSQL connection thread stopped without an answer: restart the app',
        'closed',
        undefined,
      )
    }
    const a = got.message as BridgeAnswer
    if (!a.ok) throw toPgError(a.error)
    return { rows: buffersIn(a.rows), changes: a.changes, columns: a.columns, done: a.done }
  }

  close(): void {
    if (this.closed) return
    try {
      this.call({ op: 'close' })
    } finally {
      this.closed = true
      this.port.close()
      void this.worker.terminate()
    }
  }
}
