/**
 * Writes that no cache of the ledger's rows depends on (a job lease's heartbeat: services/leases.ts),
 * and the count of a connection's changes that leaves them out. A connection's player cache
 * (services/sales/player-cache.ts) is trusted while `ownChanges` has not moved since it last
 * looked; a heartbeat made through `quietWrite` leaves it so. On PostgreSQL the connection does
 * not count such a write at all (PgDb.quietly): neither in this count nor in what the other
 * workstations see moving (their data_version). Without this, a simulation's cache was dropped at
 * every heartbeat: a whole block on SQLite sold a third slower.
 */
import type { Db } from './db-types'
import { engineOf } from './dialect'
import type { PgDb } from './pg/pg-db'

/** The rows changed by quiet writes, per SQLite connection. */
const quietRows = new WeakMap<Db, number>()
const totalChanges = new WeakMap<Db, () => number>()

/** `write` (one statement's run) made without moving any cache's idea of the ledger's data. */
export function quietWrite<R extends { changes: number }>(db: Db, write: () => R): R {
  if (engineOf(db) === 'postgres') return (db as unknown as PgDb).quietly(write)
  const result = write()
  quietRows.set(db, (quietRows.get(db) ?? 0) + result.changes)
  return result
}

/** The rows this connection has changed, quiet writes left out (SQLite's total_changes(), less theirs). */
export function ownChanges(db: Db): number {
  let read = totalChanges.get(db)
  if (!read) {
    const statement = db.prepare('SELECT total_changes()').pluck()
    totalChanges.set(db, (read = () => statement.get() as number))
  }
  return read() - (quietRows.get(db) ?? 0)
}
