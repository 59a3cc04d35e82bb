/** The ledger check's row feeds and read snapshot, of this ledger's engine (check-rows.ts). */
import type { Db } from '../../ledger/db'
import { engineOf } from '../../ledger/dialect'
import type { RowFeeds } from './check-rows'
import { pgFeeds, pgSnapshot } from './check-rows.pg'
import { sqliteFeeds, sqliteSnapshot } from './check-rows.sqlite'

/** The row feeds of this ledger's engine. */
export function rowFeeds(db: Db): RowFeeds {
  return engineOf(db) === 'postgres' ? pgFeeds(db) : sqliteFeeds(db)
}

/** `fn`'s reads in one snapshot of the ledger, without holding up its writers. */
export function inReadSnapshot<R>(db: Db, fn: () => R): R {
  return engineOf(db) === 'postgres' ? pgSnapshot(db, fn) : sqliteSnapshot(db, fn)
}
