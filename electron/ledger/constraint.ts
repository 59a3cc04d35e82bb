/**
 * Which constraint a failed statement broke, the same on both engines, from the error's code
 * (better-sqlite3's extended result code; PgError's kind, from the server's SQLSTATE), never from
 * its wording: the services decide on the kind and the columns (`table.column`).
 */
import type { ConstraintKind } from './db-types'
import { PgError } from './pg/bridge'

export type { ConstraintKind }

export interface Broken {
  kind: ConstraintKind
  /** The columns of a unique, primary-key or not-null constraint, as `table.column`; else empty. */
  columns: string[]
}

const SQLITE_KINDS: Record<string, ConstraintKind> = {
  SQLITE_CONSTRAINT_UNIQUE: 'unique',
  SQLITE_CONSTRAINT_PRIMARYKEY: 'primary-key',
  SQLITE_CONSTRAINT_FOREIGNKEY: 'foreign-key',
  SQLITE_CONSTRAINT_CHECK: 'check',
  SQLITE_CONSTRAINT_NOTNULL: 'not-null',
  SQLITE_CONSTRAINT_TRIGGER: 'trigger',
}
const CONSTRAINT_KINDS = new Set<string>(Object.values(SQLITE_KINDS))

/** The constraint `e` says was broken, or null for any other failure. */
export function brokenConstraint(e: unknown): Broken | null {
  if (e instanceof PgError)
    return CONSTRAINT_KINDS.has(e.failure) ? { kind: e.failure as ConstraintKind, columns: e.columns } : null
  const code = (e as { code?: unknown } | null)?.code
  const kind = typeof code === 'string' ? SQLITE_KINDS[code] : undefined
  if (kind === undefined) return null
  return { kind, columns: sqliteColumns(e as Error, kind) }
}

/** SQLite names a key's columns only in its message: "UNIQUE constraint failed: sales.sale_id". */
function sqliteColumns(e: Error, kind: ConstraintKind): string[] {
  if (kind !== 'unique' && kind !== 'primary-key' && kind !== 'not-null') return []
  const list = /constraint failed: (.*)$/.exec(e.message)?.[1] ?? ''
  return list
    .split(',')
    .map((c) => c.trim())
    .filter((c) => /^\w+\.\w+$/.test(c))
}
