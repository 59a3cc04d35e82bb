/**
 * A prepared statement of a PostgreSQL ledger, as better-sqlite3's Statement answers (get, all,
 * run, iterate; pluck and raw), and what the connection reads of a statement's text: whether it
 * writes, whether it changes what other connections cache.
 */
import type { Param } from './bridge-messages'
import { toNumbered } from './placeholders'

/** What a statement asks of its connection (PgDb). */
export interface StatementHost {
  query(text: string, values: Param[], array: boolean): { rows: unknown[]; changes: number }
  cursor(
    text: string,
    values: Param[],
    array: boolean,
    shape: (rows: unknown[]) => unknown[],
  ): IterableIterator<unknown>
  pragma(source: string, opts?: { simple?: boolean }): unknown
  readonly totalChanges: number
}

export type Row = Record<string, unknown>
export const WRITE = /^\s*(INSERT|UPDATE|DELETE|WITH\b[\s\S]*\b(INSERT|UPDATE|DELETE)\b)/i
/** A statement that only reads (unless WRITE says otherwise). */
const READ = /^\s*(SELECT|WITH|VALUES|SHOW|FETCH)\b/i
/** Whether a statement may change what another connection caches (a quiet write aside: PgDb.quietly). */
export const changesData = (text: string): boolean => WRITE.test(text) || !READ.test(text)

export function params(args: unknown[]): Param[] {
  const list = args.length === 1 && Array.isArray(args[0]) ? (args[0] as unknown[]) : args
  return list.map((v) => {
    if (v === undefined) return null
    if (typeof v === 'boolean')
      throw new TypeError('SQLite3 can only bind numbers, strings, bigints, buffers, and null')
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
export function handOver(data: string | Buffer): ArrayBuffer[] {
  if (typeof data === 'string') return []
  const whole =
    data.byteOffset === 0 && data.byteLength === data.buffer.byteLength && data.buffer instanceof ArrayBuffer
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
    private readonly db: StatementHost,
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
