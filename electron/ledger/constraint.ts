/**
 * Which constraint a failed statement broke, the same on both engines, from the error's code
 * (better-sqlite3's SqliteError and PgError both carry SQLite's extended codes), never from its
 * wording: the services decide on the kind and the columns (`table.column`).
 */
import { PgError } from './pg/bridge'

export type ConstraintKind = 'unique' | 'primary-key' | 'foreign-key' | 'check' | 'not-null' | 'trigger'

export interface Broken {
  kind: ConstraintKind
  /** The columns of a unique, primary-key or not-null constraint, as `table.column`; else empty. */
  columns: string[]
}

const KINDS: Record<string, ConstraintKind> = {
  SQLITE_CONSTRAINT_UNIQUE: 'unique',
  SQLITE_CONSTRAINT_PRIMARYKEY: 'primary-key',
  SQLITE_CONSTRAINT_FOREIGNKEY: 'foreign-key',
  SQLITE_CONSTRAINT_CHECK: 'check',
  SQLITE_CONSTRAINT_NOTNULL: 'not-null',
  SQLITE_CONSTRAINT_TRIGGER: 'trigger',
}

/** The constraint `e` says was broken, or null for any other failure. */
export function brokenConstraint(e: unknown): Broken | null {
  const code = (e as { code?: unknown } | null)?.code
  const kind = typeof code === 'string' ? KINDS[code] : undefined
  if (kind === undefined) return null
  if (e instanceof PgError) return { kind, columns: e.columns }
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
