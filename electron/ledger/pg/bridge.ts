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

/** An error of the server, with SQLite's wording where the services read it (constraint failures). */
export class PgError extends Error {
  constructor(
    message: string,
    readonly code: string,
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

/** The server's error, worded as SQLite words the same failure (the services match on that wording). */
export function toPgError(e: BridgeError): PgError {
  const table = e.table ?? '?'
  if (e.lost) return new PgError(e.message, 'PG_LOST', e.code, e.lost)
  switch (e.code) {
    case '23505': {
      const columns = keyColumns(e.detail).map((c) => `${table}.${c}`)
      return new PgError(
        `UNIQUE constraint failed: ${columns.join(', ')}`,
        'SQLITE_CONSTRAINT_UNIQUE',
        e.code,
        undefined,
        columns,
      )
    }
    case '23514':
      return new PgError(`CHECK constraint failed: ${e.constraint ?? table}`, 'SQLITE_CONSTRAINT_CHECK', e.code)
    case '23503':
      return new PgError('FOREIGN KEY constraint failed', 'SQLITE_CONSTRAINT_FOREIGNKEY', e.code)
    case '23502': {
      const columns = [`${table}.${e.column ?? '?'}`]
      return new PgError(
        `NOT NULL constraint failed: ${columns[0]}`,
        'SQLITE_CONSTRAINT_NOTNULL',
        e.code,
        undefined,
        columns,
      )
    }
    case '23000':
    case 'P0001':
      return new PgError(e.message, 'SQLITE_CONSTRAINT_TRIGGER', e.code)
    case '55P03':
    case '40P01':
    case '40001':
      return new PgError(`database is locked (${e.message})`, 'SQLITE_BUSY', e.code)
    default:
      return new PgError(e.message, `PG_${e.code ?? 'ERROR'}`, e.code)
  }
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
    if (this.closed) throw new PgError('The PostgreSQL ledger is closed', 'SQLITE_MISUSE', undefined)
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
        'PG_BRIDGE',
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
