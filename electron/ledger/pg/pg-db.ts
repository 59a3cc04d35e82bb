/**
 * A PostgreSQL ledger with the part of better-sqlite3's Database the services use, so that they
 * run unchanged on both engines: prepare → get/all/run/iterate (pluck, raw), exec,
 * transaction(fn) (nested ones as savepoints), pragma for the names the services read, close.
 *
 * One writer at a time, as SQLite's file lock gives: every transaction, and every write outside
 * one, first takes the ledger's advisory lock (held until it commits or rolls back). The sales
 * cursor, the audit chain and the claims' steps keep their rules across workstations.
 */
import { SyncBridge } from './bridge'
import type { Param } from './bridge-messages'
import { LEDGER_WRITE_LOCK } from './locks'
import { toNumbered } from './placeholders'

type Row = Record<string, unknown>
const FETCH_ROWS = 5000
const WRITE = /^\s*(INSERT|UPDATE|DELETE|WITH\b[\s\S]*\b(INSERT|UPDATE|DELETE)\b)/i
/** A statement that only reads (unless WRITE says otherwise). */
const READ = /^\s*(SELECT|WITH|VALUES|SHOW|FETCH)\b/i
/**
 * A running job's heartbeat (leases.ts): a write no cache depends on, so it moves neither the
 * other connections' data_version nor this one's total_changes(). Otherwise a simulation's player
 * cache (sales-players.ts) was dropped at every heartbeat, every other batch.
 */
const HEARTBEAT = /^\s*UPDATE\s+job_leases\s+SET\s+heartbeat_at\s*=\s*\$1\s+WHERE\b/i
/** Whether a statement may change what another connection caches. */
const changesData = (text: string): boolean => (WRITE.test(text) || !READ.test(text)) && !HEARTBEAT.test(text)

function params(args: unknown[]): Param[] {
  const list = args.length === 1 && Array.isArray(args[0]) ? (args[0] as unknown[]) : args
  return list.map((v) => {
    if (v === undefined) return null
    if (typeof v === 'boolean') throw new TypeError('SQLite3 can only bind numbers, strings, bigints, buffers, and null')
    return v as Param
  })
}

/** `sql` with each `?` replaced by the next value, each a safe integer (for a statement that takes no parameters). */
export function inlineIntegers(sql: string, values: number[]): string {
  let i = 0
  const out = sql.replace(/\?/g, () => {
    const v = values[i++]
    if (!Number.isSafeInteger(v)) throw new TypeError(`value ${i} of the statement is ${String(v)}, not a safe integer`)
    return String(v)
  })
  if (i !== values.length) throw new TypeError(`the statement has ${i} placeholders for ${values.length} values`)
  return out
}

/**
 * The memory of `data` to hand to the connection's thread rather than copy: a buffer that owns all
 * of its memory (binary-copy.ts makes them so), never a slice of Node's shared pool. The caller
 * must not touch it afterwards.
 */
function handOver(data: string | Buffer): ArrayBuffer[] {
  if (typeof data === 'string') return []
  const whole = data.byteOffset === 0 && data.byteLength === data.buffer.byteLength && data.buffer instanceof ArrayBuffer
  return whole ? [data.buffer as ArrayBuffer] : []
}

/** SQLite's statements about the connection itself, answered by the connection (see PgDb). */
const PRAGMA = /^\s*PRAGMA\s+(\w+)\s*;?\s*$/i
const TOTAL_CHANGES = /^\s*SELECT\s+total_changes\(\)\s*;?\s*$/i

export class PgStatement {
  private mode: 'object' | 'pluck' | 'raw' = 'object'
  private readonly text: string
  /** Answered here rather than by the server: PRAGMA data_version, SELECT total_changes(). */
  private readonly local: (() => number) | null

  constructor(
    private readonly db: PgDb,
    readonly source: string,
  ) {
    this.text = toNumbered(source)
    const pragma = PRAGMA.exec(source)?.[1]
    if (pragma) this.local = () => db.pragma(pragma, { simple: true }) as number
    else this.local = TOTAL_CHANGES.test(source) ? () => db.totalChanges : null
  }

  pluck(on = true): this {
    this.mode = on ? 'pluck' : 'object'
    return this
  }

  raw(on = true): this {
    this.mode = on ? 'raw' : 'object'
    return this
  }

  private shape(rows: unknown[]): unknown[] {
    if (this.mode === 'pluck') return rows.map((r) => (r as unknown[])[0])
    return rows
  }

  all(...args: unknown[]): unknown[] {
    if (this.local) return this.mode === 'object' ? [{ value: this.local() }] : this.shape([[this.local()]])
    return this.shape(this.db.query(this.text, params(args), this.mode !== 'object').rows)
  }

  get(...args: unknown[]): unknown {
    return this.all(...args)[0]
  }

  run(...args: unknown[]): { changes: number; lastInsertRowid: number } {
    return { changes: this.db.query(this.text, params(args), false).changes, lastInsertRowid: 0 }
  }

  *iterate(...args: unknown[]): IterableIterator<unknown> {
    yield* this.db.cursor(this.text, params(args), this.mode !== 'object', (rows) => this.shape(rows))
  }
}

type TxMode = 'deferred' | 'immediate' | 'exclusive'
type TxFn<A extends unknown[], R> = ((...args: A) => R) & Record<TxMode, (...args: A) => R>

export class PgDb {
  readonly engine = 'postgres'
  readonly memory = false
  readonly readonly = false
  private readonly bridge: SyncBridge
  private depth = 0
  private cursors = 0
  private isOpen = true
  /** data_version's answer: writes by other connections seen so far (see pragma). */
  private othersWrites = 0
  private lastWrites: number | null = null
  /** Rows this connection has changed, as SQLite's total_changes() counts them (heartbeats aside). */
  totalChanges = 0
  /** Whether the open transaction changed the data: its commit then moves the others' data_version. */
  private changed = false

  constructor(
    readonly name: string,
    url: string,
  ) {
    this.bridge = new SyncBridge(url)
    this.bridge.call({ op: 'connect' })
  }

  get open(): boolean {
    return this.isOpen
  }

  get inTransaction(): boolean {
    return this.depth > 0
  }

  prepare(sql: string): PgStatement {
    return new PgStatement(this, sql)
  }

  /** One statement; a write outside a transaction takes the write lock for itself. */
  query(text: string, values: Param[], array: boolean): { rows: unknown[]; changes: number } {
    if (this.depth === 0 && WRITE.test(text)) return this.transaction(() => this.query(text, values, array)).immediate()
    const data = changesData(text)
    if (data) this.changed = true
    const r = this.bridge.call({ op: 'query', sql: text, params: values, array })
    if (data && WRITE.test(text)) this.totalChanges += r.changes
    return r
  }

  /** The rows of a large result in pages (a server-side cursor, inside a transaction). */
  *cursor(text: string, values: Param[], array: boolean, shape: (rows: unknown[]) => unknown[]): IterableIterator<unknown> {
    const own = this.depth === 0
    if (own) this.bridge.call({ op: 'query', sql: 'BEGIN READ ONLY', params: [], array: false })
    const id = ++this.cursors
    try {
      for (;;) {
        const { rows } = this.bridge.call({ op: 'fetch', cursor: id, sql: text, params: values, count: FETCH_ROWS, array })
        yield* shape(rows)
        if (rows.length < FETCH_ROWS) break
      }
    } finally {
      this.bridge.call({ op: 'closeCursor', cursor: id })
      if (own) this.bridge.call({ op: 'query', sql: 'COMMIT', params: [], array: false })
    }
  }

  /**
   * The rows of `select`, whose columns are all bigint, as columns of numbers (NaN for NULL), a
   * chunk at a time: a binary COPY that the connection's thread reads ahead while the caller
   * works on the chunk before (pg-scans.ts). About four times faster than a cursor's pages of
   * rows, for a pass over every sale. COPY takes no parameters: each `?` becomes its value, which
   * must be a safe integer. The rows are those of the caller's transaction's snapshot, if any.
   */
  *numberColumns(select: string, values: number[], width: number): IterableIterator<Float64Array[]> {
    const sql = `COPY (${inlineIntegers(select, values)}) TO STDOUT (FORMAT binary)`
    const id = ++this.cursors
    let done = false
    let first = true
    try {
      while (!done) {
        const r = this.bridge.call({ op: 'scan', scan: id, sql, width, first })
        first = false
        done = r.done === true
        if (!done) yield r.columns!
      }
    } finally {
      if (!done) this.bridge.call({ op: 'closeScan', scan: id })
    }
  }

  /** Statements of the caller's (counted as changing the data, whatever they are). */
  exec(sql: string): this {
    this.changed = true
    this.send(sql)
    return this
  }

  /** The connection's own statements (transactions, savepoints, settings). */
  private send(sql: string): void {
    this.bridge.call({ op: 'query', sql, params: [], array: false })
  }

  /** COPY … FROM STDIN: rows as tab-separated text lines, or a whole binary COPY (binary-copy.ts). */
  copyIn(sql: string, data: string | Buffer): number {
    this.changed = true
    const n = this.bridge.call({ op: 'copy', sql, data }, handOver(data)).changes
    this.totalChanges += n
    return n
  }

  /**
   * The same, sent without waiting for the server (bridge.ts post): the caller builds its next
   * chunk meanwhile. The rows are counted, and a failure thrown, at the next flush() or statement.
   */
  postCopyIn(sql: string, data: string | Buffer): void {
    this.changed = true
    this.bridge.post({ op: 'copy', sql, data }, (r) => (this.totalChanges += r.changes), handOver(data))
  }

  /** Waits for what was posted (postCopyIn); throws the first failure among it. */
  flush(): void {
    this.bridge.drain()
  }

  /**
   * `fn` inside a transaction with the planner told to find rows by their index only (no scan of
   * a whole table, no hash or merge join), for a statement that joins many keys to a large
   * table: right after a big write the table's statistics still say it is small, and a walk of
   * a thousand chains was seen scanning all the sales once per link (105 s instead of 0.1 s).
   * No JIT either: the disabled scans' made-up costs would have the server compile the statement.
   * SET LOCAL, then back to the server's settings; a failure rolls them back with the transaction.
   */
  byIndex<T>(fn: () => T): T {
    if (this.depth === 0) throw new TypeError('byIndex runs inside a transaction')
    this.send('SET LOCAL enable_seqscan = off; SET LOCAL enable_hashjoin = off; SET LOCAL enable_mergejoin = off; SET LOCAL jit = off')
    const result = fn()
    this.send('SET LOCAL enable_seqscan TO DEFAULT; SET LOCAL enable_hashjoin TO DEFAULT; SET LOCAL enable_mergejoin TO DEFAULT; SET LOCAL jit TO DEFAULT')
    return result
  }

  /** What was posted, read and let go: the transaction fails for the error already thrown. */
  private dropPosted(): void {
    try {
      this.bridge.drain()
    } catch {
      // the rollback that follows undoes it; the caller sees the first error
    }
  }

  transaction<A extends unknown[], R>(fn: (...args: A) => R): TxFn<A, R> {
    const run = (...args: A): R => this.inTx(fn, args)
    return Object.assign(run, { deferred: run, immediate: run, exclusive: run })
  }

  private inTx<A extends unknown[], R>(fn: (...args: A) => R, args: A): R {
    const savepoint = this.depth > 0 ? `carats_sp_${this.depth}` : null
    if (savepoint) this.send(`SAVEPOINT ${savepoint}`)
    else this.begin()
    this.depth++
    let result: R
    try {
      result = fn(...args)
      if (result && typeof (result as { then?: unknown }).then === 'function') throw new TypeError('Transaction function cannot return a promise')
    } catch (e) {
      this.depth--
      this.dropPosted()
      this.send(savepoint ? `ROLLBACK TO SAVEPOINT ${savepoint}; RELEASE SAVEPOINT ${savepoint}` : 'ROLLBACK')
      throw e
    }
    this.depth--
    if (savepoint) this.send(`RELEASE SAVEPOINT ${savepoint}`)
    else this.commit()
    return result
  }

  /**
   * `fn`'s reads in one snapshot (REPEATABLE READ, READ ONLY), without the write lock: a long read
   * (the ledger check) does not hold up the other workstations' writes. Inside a transaction: that one.
   */
  readSnapshot<R>(fn: () => R): R {
    if (this.depth > 0) return fn()
    this.send('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY')
    this.depth++
    try {
      return fn()
    } finally {
      this.depth--
      this.send('COMMIT')
    }
  }

  /** Opens a transaction holding the write lock; one that could not take it is closed again. */
  private begin(): void {
    try {
      this.changed = false
      this.send(`BEGIN; SELECT pg_advisory_xact_lock(${LEDGER_WRITE_LOCK})`)
    } catch (e) {
      this.send('ROLLBACK')
      throw e
    }
  }

  /**
   * Commits; a transaction that changed the data counts one more write, so that the other
   * connections' data_version moves. A count that went up by more than this one means another
   * connection committed since this one last looked: its data_version moves too.
   */
  private commit(): void {
    if (!this.changed) return this.send('COMMIT')
    const { rows } = this.bridge.call({ op: 'query', sql: 'UPDATE ledger_identity SET writes = writes + 1 RETURNING writes', params: [], array: true })
    this.send('COMMIT')
    this.changed = false
    const writes = Number((rows[0] as unknown[] | undefined)?.[0] ?? 0)
    if (this.lastWrites !== null && writes - 1 !== this.lastWrites) this.othersWrites++
    this.lastWrites = writes
  }

  pragma(source: string, opts: { simple?: boolean } = {}): unknown {
    const [name, value] = source.split('=').map((s) => s.trim())
    if (name === 'data_version') return this.dataVersion()
    if (name === 'busy_timeout' && value !== undefined) {
      this.send(`SET lock_timeout = ${Math.max(0, Math.floor(Number(value)))}`)
      return opts.simple ? Number(value) : [{ timeout: Number(value) }]
    }
    // foreign keys stay checked on PostgreSQL; WAL, cache and checkpoints are the server's business
    if (['foreign_keys', 'journal_mode', 'synchronous', 'cache_size', 'wal_autocheckpoint'].includes(name)) return opts.simple ? null : []
    throw new TypeError(`PRAGMA ${name} is SQLite's: the PostgreSQL ledger has no such setting`)
  }

  /** Like SQLite's: a number that changes when another connection has committed a write. */
  private dataVersion(): number {
    const rows = this.bridge.call({ op: 'query', sql: 'SELECT writes FROM ledger_identity', params: [], array: true }).rows
    const writes = Number((rows[0] as unknown[] | undefined)?.[0] ?? 0)
    if (this.lastWrites !== null && writes !== this.lastWrites) this.othersWrites++
    this.lastWrites = writes
    return this.othersWrites
  }

  function(): never {
    throw new TypeError('user functions are SQLite\'s: on PostgreSQL the check reads the rows instead')
  }

  close(): this {
    if (!this.isOpen) return this
    this.isOpen = false
    this.bridge.close()
    return this
  }
}

export type { Row }
