/** The ledger check's rows on PostgreSQL: read by binary COPY as columns of numbers (check-rows.ts). */
import type { Db } from '../../ledger/db'
import type { PgDb } from '../../ledger/pg/pg-db'
import { PLAYER_COLUMNS, SALE_COLUMNS, type Num, type RowFeeds } from './check-rows'

/** A key bound PostgreSQL's bigint takes: ±Infinity (the stray rows around the blocks) become the widest safe integers. */
const bound = (n: number) => Math.max(Number.MIN_SAFE_INTEGER, Math.min(Number.MAX_SAFE_INTEGER, n))

/** A column's value: NaN is how a scan gives NULL. */
const orNull = (v: number): Num => (v === v ? v : null)

export function pgFeeds(db: Db): RowFeeds {
  const pg = db as unknown as PgDb
  const range = `SELECT ${SALE_COLUMNS} FROM sales WHERE unit_key >= ? AND unit_key < ? ORDER BY unit_key`
  const players = `SELECT ${PLAYER_COLUMNS} FROM player_totals ORDER BY id`
  return {
    sales(lo, hi, sale) {
      for (const [k, p, s, st, pr, t] of pg.numberColumns(range, [bound(lo), bound(hi)], 6)) {
        for (let i = 0; i < k.length; i++) sale(k[i], p[i], s[i], st[i], pr[i], orNull(t[i]))
      }
    },
    players(player) {
      for (const [id, u, st, w, f, l, k] of pg.numberColumns(players, [], 7)) {
        for (let i = 0; i < id.length; i++) player(id[i], u[i], st[i], w[i], orNull(f[i]), orNull(l[i]), orNull(k[i]))
      }
    },
  }
}

/** `fn`'s reads in one snapshot: a REPEATABLE READ, READ ONLY transaction that holds up no writer. */
export const pgSnapshot = <R>(db: Db, fn: () => R): R => (db as unknown as PgDb).readSnapshot(fn)
