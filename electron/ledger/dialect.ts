/**
 * The one place for what differs between the ledger's two engines, SQLite (the local file) and
 * PostgreSQL (the team's database). Everything else in the services' SQL is written in the form
 * both accept (ON CONFLICT, RETURNING, coalesce, string_agg, CASE, CAST(? AS …), quoted aliases):
 * a fragment belongs here only when no such common form exists.
 */
import type { Db } from './db'

export type Engine = 'sqlite' | 'postgres'

/** The engine behind a ledger: a PostgreSQL ledger says so (`engine: 'postgres'`); better-sqlite3's Database has no such property. */
export function engineOf(db: Db): Engine {
  return (db as unknown as { engine?: unknown }).engine === 'postgres' ? 'postgres' : 'sqlite'
}

/**
 * A table source with one text column `value`, one row per element of the JSON array given as the
 * statement's parameter (JSON.stringify of a list): `SELECT value FROM ${jsonValues(db)}`.
 */
export function jsonValues(db: Db): string {
  return engineOf(db) === 'postgres' ? 'json_array_elements_text(CAST(? AS json)) AS j(value)' : 'json_each(?)'
}

/**
 * A LIMIT that keeps every row, for an OFFSET alone: SQLite wants a LIMIT before an OFFSET and
 * PostgreSQL refuses SQLite's `LIMIT -1`; both take the largest 64-bit integer.
 */
export const NO_LIMIT = 'LIMIT 9223372036854775807'

/**
 * SQLite's `INDEXED BY`, which makes the planner read a table from the named index (the audit
 * list's filtered pages, audit/list.ts); PostgreSQL has no such hint and plans on its own: nothing.
 */
export function indexedBy(db: Db, index: string | null): string {
  return index !== null && engineOf(db) === 'sqlite' ? `INDEXED BY ${index}` : ''
}

/** The UTC day (YYYY-MM-DD) of a time in milliseconds since 1970 held by the column or expression `ms`. */
export function utcDay(db: Db, ms: string): string {
  return engineOf(db) === 'postgres'
    ? `to_char(to_timestamp(${ms} / 1000.0) AT TIME ZONE 'UTC', 'YYYY-MM-DD')`
    : `strftime('%Y-%m-%d', ${ms} / 1000, 'unixepoch')`
}

/**
 * `work` without SQLite's check of the sales' foreign key (player_id → players), for work whose
 * sales are all written by a sales service's batch, which checks each of its players once
 * (services/sales/batch.ts, transact). Called outside any transaction: inside one, the pragma does
 * nothing. PostgreSQL always checks them (its connection takes the pragma and does nothing).
 */
export function withoutKeyChecks<T>(db: Db, work: () => T): T {
  db.pragma('foreign_keys = OFF')
  try {
    return work()
  } finally {
    db.pragma('foreign_keys = ON')
  }
}
