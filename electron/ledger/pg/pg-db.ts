/**
 * A PostgreSQL ledger with the part of better-sqlite3's Database the services use, so that they
 * run unchanged on both engines: prepare → get/all/run/iterate (pluck, raw), exec,
 * transaction(fn) (nested ones as savepoints), pragma for the names the services read, close.
 *
 * Writers overlap (issue 30): a transaction takes no ledger-wide lock, only the schema lock in
 * shared mode (a schema step takes it exclusively: `.exclusive()`), and the services lock what
 * they truly share, row by row (row-locks.ts: a block's cursor, a claim, the audit chain's head,
 * a batch's players). Transactions run at READ COMMITTED: a statement after a lock sees what was
 * committed before it was had. docs/DESIGN.md, "Several writers on a team ledger".
 *
 * A lost connection heals: outside a transaction the next call connects again by itself; a
 * transaction it cut fails with LEDGER_UNAVAILABLE and leaves nothing (ledger-errors.ts).
 */
import { AppError } from '../../contract/errors'
import { PgError, SyncBridge } from './bridge'
import type { BridgeRequest, BridgeRows, Param } from './bridge-messages'
import { ledgerBusy, ledgerLost } from './ledger-errors'
import { SCHEMA_LOCK } from './locks'
import { changesData, handOver, inlineIntegers, PgStatement, WRITE, type Row } from './pg-statement'

export { inlineIntegers, PgStatement } from './pg-statement'

const FETCH_ROWS = 5000

type TxMode = 'deferred' | 'immediate' | 'exclusive'
type TxFn<A extends unknown[], R> = ((...args: A) => R) & Record<TxMode, (...args: A) => R>

export class PgDb {
  readonly engine = 'postgres'
  readonly memory = false
  readonly readonly = false
  private readonly bridge: SyncBridge
  private depth = 0
  /** Reads in a transaction of their own (cursor's pages): a loss during them cannot be retried. */
  private reading = 0
  private cursors = 0
  private isOpen = true
  /** data_version's answer: writes by other connections seen so far (see pragma). */
  private othersWrites = 0
  private lastWrites: number | null = null
  /** Rows this connection has changed, as SQLite's total_changes() counts them (heartbeats aside). */
  totalChanges = 0
  /** Inside quietly(): statements that change no data any cache depends on. */
  private quiet = 0
  /** Whether the open transaction changed the data: its commit then moves the others' data_version. */
  private changed = false
  /** How long a lock is waited for (busy_timeout), set again on each new connection; null: the server's. */
  private lockWaitMs: number | null = null
  /** The connection went during the open transaction: its rollback and closes are not sent (the server undid it). */
  private cut = false
  /** The transaction is being committed: a loss now leaves it whole or undone, not known which. */
  private committing = false
  /** The next transaction's schema lock is exclusive (a schema step). */
  private exclusiveNext = false

  constructor(
    readonly name: string,
    url: string,
  ) {
    this.bridge = new SyncBridge(url)
    try {
      this.bridge.call({ op: 'connect' })
    } catch (e) {
      throw e instanceof PgError && e.failure === 'lost' ? ledgerLost(name, 'connect', e.message) : e
    }
  }

  get open(): boolean {
    return this.isOpen
  }

  get inTransaction(): boolean {
    return this.depth > 0
  }

  /**
   * `fn`'s statements counted as no change of the data (ledger/quiet-writes.ts): neither in
   * total_changes() nor in the commit that moves the other connections' data_version.
   */
  quietly<R>(fn: () => R): R {
    this.quiet++
    try {
      return fn()
    } finally {
      this.quiet--
    }
  }

  prepare(sql: string): PgStatement {
    return new PgStatement(this, sql)
  }

  /**
   * A request to the connection. A refusal of the server's locks says so (LEDGER_BUSY); a
   * connection found lost outside a transaction is made again, and the request sent again when
   * it was never sent or can write nothing (`retry`: it only reads, or it opens a transaction); a
   * connection lost inside a transaction fails it (LEDGER_UNAVAILABLE, or LEDGER_COMMIT_UNKNOWN
   * while committing), and nothing more of it is sent.
   */
  private call(req: BridgeRequest, retry = false, transfer: ArrayBuffer[] = []): BridgeRows {
    try {
      return this.bridge.call(req, transfer)
    } catch (e) {
      if (!(e instanceof PgError)) throw e
      if (e.failure === 'busy') throw ledgerBusy(this.name, this.lockWaitMs, e.message)
      if (e.failure !== 'lost') throw e
      if (this.within()) {
        this.cut = true
        throw ledgerLost(
          this.name,
          this.committing ? 'commit' : this.reading > 0 && this.depth === 0 ? 'read' : 'write',
          e.message,
        )
      }
      if (!retry && e.lost === 'sent') throw ledgerLost(this.name, 'write', e.message)
      this.reconnect()
      return this.call(req, false, transfer)
    }
  }

  /** Whether a transaction (or a read's own) is open on the connection. */
  private within(): boolean {
    return this.depth > 0 || this.reading > 0 || this.committing
  }

  /** A new connection, with this one's settings; a server that does not answer is said so. */
  private reconnect(): void {
    try {
      this.bridge.call({ op: 'connect' })
      if (this.lockWaitMs !== null)
        this.bridge.call({ op: 'query', sql: `SET lock_timeout = ${this.lockWaitMs}`, params: [], array: false })
    } catch (e) {
      if (e instanceof PgError && e.failure === 'lost') throw ledgerLost(this.name, 'connect', e.message)
      throw e
    }
  }

  /** One statement; a write outside a transaction is one of its own. */
  query(text: string, values: Param[], array: boolean): { rows: unknown[]; changes: number } {
    if (this.depth === 0 && WRITE.test(text)) return this.transaction(() => this.query(text, values, array)).immediate()
    const data = this.quiet === 0 && changesData(text)
    if (data) this.changed = true
    // outside a transaction it is a read (a write would have been wrapped): safe to send again
    const r = this.call({ op: 'query', sql: text, params: values, array }, this.depth === 0 && !data)
    if (data && WRITE.test(text)) this.totalChanges += r.changes
    return r
  }

  /** The rows of a large result in pages (a server-side cursor, inside a transaction). */
  *cursor(
    text: string,
    values: Param[],
    array: boolean,
    shape: (rows: unknown[]) => unknown[],
  ): IterableIterator<unknown> {
    const own = this.depth === 0
    if (own) this.call({ op: 'query', sql: 'BEGIN READ ONLY', params: [], array: false }, true)
    if (own) this.reading++
    const id = ++this.cursors
    try {
      for (;;) {
        const { rows } = this.call({ op: 'fetch', cursor: id, sql: text, params: values, count: FETCH_ROWS, array })
        yield* shape(rows)
        if (rows.length < FETCH_ROWS) break
      }
    } finally {
      this.endCursor(id, own)
    }
  }

  /** The cursor closed, and its own transaction ended (nothing is sent on a connection that went). */
  private endCursor(id: number, own: boolean): void {
    try {
      if (!this.cut) this.call({ op: 'closeCursor', cursor: id })
      if (own && !this.cut) this.call({ op: 'query', sql: 'COMMIT', params: [], array: false })
    } finally {
      if (own) this.readEnded()
    }
  }

  /** A read of its own has ended: once none is left outside a transaction, the next call may connect again. */
  private readEnded(): void {
    this.reading--
    if (this.depth === 0 && this.reading === 0) this.cut = false
  }

  /**
   * The rows of `select`, whose columns are all bigint, as columns of numbers (NaN for NULL), a
   * chunk at a time: a binary COPY that the connection's thread reads ahead while the caller
   * works on the chunk before (scans.ts). About four times faster than a cursor's pages of
   * rows, for a pass over every sale. COPY takes no parameters: each `?` becomes its value, which
   * must be a safe integer. The rows are those of the caller's transaction's snapshot, if any.
   */
  *numberColumns(select: string, values: number[], width: number): IterableIterator<Float64Array[]> {
    const sql = `COPY (${inlineIntegers(select, values)}) TO STDOUT (FORMAT binary)`
    const id = ++this.cursors
    const own = this.depth === 0
    let done = false
    let first = true
    try {
      while (!done) {
        // the first chunk, outside a transaction, may be asked again of a new connection; a later one is a read cut
        const r = this.call({ op: 'scan', scan: id, sql, width, first }, first && own)
        if (first && own) this.reading++
        first = false
        done = r.done === true
        if (!done) yield r.columns!
      }
    } finally {
      try {
        if (!done && !this.cut) this.call({ op: 'closeScan', scan: id })
      } finally {
        if (own && !first) this.readEnded()
      }
    }
  }

  /** Statements of the caller's (counted as changing the data, whatever they are). */
  exec(sql: string): this {
    this.changed = true
    this.send(sql)
    return this
  }

  /** The connection's own statements (transactions, savepoints, settings). */
  private send(sql: string, retry = false): void {
    this.call({ op: 'query', sql, params: [], array: false }, retry)
  }

  /** COPY … FROM STDIN: rows as tab-separated text lines, or a whole binary COPY (binary-copy.ts). */
  copyIn(sql: string, data: string | Buffer): number {
    this.changed = true
    const n = this.call({ op: 'copy', sql, data }, false, handOver(data)).changes
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
    try {
      this.bridge.drain()
    } catch (e) {
      if (e instanceof PgError && e.failure === 'lost') {
        this.cut = true
        throw ledgerLost(this.name, 'write', e.message)
      }
      if (e instanceof PgError && e.failure === 'busy') throw ledgerBusy(this.name, this.lockWaitMs, e.message)
      throw e
    }
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
    this.send(
      'SET LOCAL enable_seqscan = off; SET LOCAL enable_hashjoin = off; SET LOCAL enable_mergejoin = off; SET LOCAL jit = off',
    )
    const result = fn()
    this.send(
      'SET LOCAL enable_seqscan TO DEFAULT; SET LOCAL enable_hashjoin TO DEFAULT; SET LOCAL enable_mergejoin TO DEFAULT; SET LOCAL jit TO DEFAULT',
    )
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

  /** `.exclusive()` holds the schema lock alone (a schema step: open.ts); the others share it. */
  transaction<A extends unknown[], R>(fn: (...args: A) => R): TxFn<A, R> {
    const run = (...args: A): R => this.inTx(fn, args)
    const exclusive = (...args: A): R => {
      this.exclusiveNext = this.depth === 0
      return run(...args)
    }
    return Object.assign(run, { deferred: run, immediate: run, exclusive })
  }

  private inTx<A extends unknown[], R>(fn: (...args: A) => R, args: A): R {
    const savepoint = this.depth > 0 ? `carats_sp_${this.depth}` : null
    if (savepoint) this.send(`SAVEPOINT ${savepoint}`)
    else this.begin()
    this.depth++
    let result: R
    try {
      result = fn(...args)
      if (result && typeof (result as { then?: unknown }).then === 'function')
        throw new TypeError('Transaction function cannot return a promise')
    } catch (e) {
      this.undo(savepoint)
      throw e
    }
    try {
      if (savepoint) this.send(`RELEASE SAVEPOINT ${savepoint}`)
      else this.commit()
    } catch (e) {
      this.undo(savepoint)
      throw e
    }
    if (savepoint) this.depth--
    return result
  }

  /** The transaction (or its savepoint) rolled back, unless the connection went with it. */
  private undo(savepoint: string | null): void {
    try {
      this.dropPosted()
      if (!this.cut)
        this.send(savepoint ? `ROLLBACK TO SAVEPOINT ${savepoint}; RELEASE SAVEPOINT ${savepoint}` : 'ROLLBACK')
    } finally {
      if (savepoint) this.depth--
      else this.ended()
    }
  }

  /** The outermost transaction has ended: the next call may connect again. */
  private ended(): void {
    this.depth = 0
    this.committing = false
    this.changed = false
    if (this.reading === 0) this.cut = false
  }

  /**
   * `fn`'s reads in one snapshot (REPEATABLE READ, READ ONLY), without a lock: a long read (the
   * ledger check) does not hold up the other workstations' writes. Inside a transaction: that one.
   */
  readSnapshot<R>(fn: () => R): R {
    if (this.depth > 0) return fn()
    this.send('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY', true)
    this.depth++
    try {
      const r = fn()
      if (!this.cut) this.send('COMMIT')
      return r
    } catch (e) {
      if (!this.cut) this.send('ROLLBACK')
      throw e
    } finally {
      this.ended()
    }
  }

  /**
   * Opens a transaction holding the schema lock (shared: other transactions go on; exclusive for
   * a schema step, which waits for them and they for it); one that could not take it is closed again.
   */
  private begin(): void {
    const lock = this.exclusiveNext ? 'pg_advisory_xact_lock' : 'pg_advisory_xact_lock_shared'
    this.exclusiveNext = false
    this.changed = false
    try {
      this.send(`BEGIN; SELECT ${lock}(${SCHEMA_LOCK})`, true)
    } catch (e) {
      if (!(e instanceof AppError && e.code === 'DATABASE')) this.send('ROLLBACK')
      this.ended()
      throw e
    }
  }

  /**
   * Commits; a transaction that changed the data counts one more write, last, so that the other
   * connections' data_version moves (the count's row is held for the commit's instant only). A
   * count that went up by more than this one means another connection committed since this one
   * last looked: its data_version moves too.
   */
  private commit(): void {
    const rows = this.changed
      ? this.call({
          op: 'query',
          sql: 'UPDATE ledger_identity SET writes = writes + 1 RETURNING writes',
          params: [],
          array: true,
        }).rows
      : null
    this.committing = true
    this.send('COMMIT')
    this.ended()
    if (rows === null) return
    const writes = Number((rows[0] as unknown[] | undefined)?.[0] ?? 0)
    if (this.lastWrites !== null && writes - 1 !== this.lastWrites) this.othersWrites++
    this.lastWrites = writes
  }

  pragma(source: string, opts: { simple?: boolean } = {}): unknown {
    const [name, value] = source.split('=').map((s) => s.trim())
    if (name === 'data_version') return this.dataVersion()
    if (name === 'busy_timeout' && value !== undefined) {
      this.lockWaitMs = Math.max(0, Math.floor(Number(value)))
      this.send(`SET lock_timeout = ${this.lockWaitMs}`, true)
      return opts.simple ? Number(value) : [{ timeout: Number(value) }]
    }
    // foreign keys stay checked on PostgreSQL; WAL, cache and checkpoints are the server's business
    if (['foreign_keys', 'journal_mode', 'synchronous', 'cache_size', 'wal_autocheckpoint'].includes(name))
      return opts.simple ? null : []
    throw new TypeError(`PRAGMA ${name} is SQLite's: the PostgreSQL ledger has no such setting`)
  }

  /** Like SQLite's: a number that changes when another connection has committed a write. */
  private dataVersion(): number {
    const rows = this.call(
      { op: 'query', sql: 'SELECT writes FROM ledger_identity', params: [], array: true },
      this.depth === 0,
    ).rows
    const writes = Number((rows[0] as unknown[] | undefined)?.[0] ?? 0)
    if (this.lastWrites !== null && writes !== this.lastWrites) this.othersWrites++
    this.lastWrites = writes
    return this.othersWrites
  }

  function(): never {
    throw new TypeError("user functions are SQLite's: on PostgreSQL the check reads the rows instead")
  }

  close(): this {
    if (!this.isOpen) return this
    this.isOpen = false
    this.bridge.close()
    return this
  }
}

export type { Row }
