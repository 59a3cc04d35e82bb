/**
 * How the ledger check's rows reach its JavaScript checks (check.ts), per engine: the
 * checks themselves are the same on both. On SQLite the statement calls a user function with
 * each row's columns (about four times faster than reading the rows out); PostgreSQL has no
 * such functions, so the rows are read in unit_key order by a binary COPY, as columns of numbers
 * (PgDb.numberColumns, read ahead by the connection's thread), and handed to the same function. The reads are made in one
 * snapshot: on SQLite one deferred transaction, on PostgreSQL one REPEATABLE READ, READ ONLY
 * transaction that does not take the write lock (the other workstations go on selling).
 */
import type { Db } from '../../ledger/db'
import { engineOf } from '../../ledger/dialect'
import type { PgDb } from '../../ledger/pg/pg-db'

type Num = number | null
export type SaleHook = (key: number, pid: number, soldAt: number, stake: number, prize: number, tier: Num) => number
export type PlayerHook = (
  id: number,
  units: number,
  staked: number,
  won: number,
  first: Num,
  last: Num,
  lastKey: Num,
) => number

export interface RowFeeds {
  /** Each sale with lo ≤ unit_key < hi, in unit_key order, to `sale`. */
  sales(lo: number, hi: number, sale: SaleHook): void
  /** Each players row to `player`. */
  players(player: PlayerHook): void
}

const SALE_COLUMNS = 'unit_key, player_id, sold_at, stake_cents, prize_cents, tier'
const PLAYER_COLUMNS = 'id, units, staked_cents, won_cents, first_sale_at, last_sale_at, last_key'

interface Hooks {
  sale: SaleHook | null
  player: PlayerHook | null
}

/** The functions SQLite calls, registered once per connection; each feed points them at its own state. */
const hooksOf = new WeakMap<Db, Hooks>()
function sqliteHooks(db: Db): Hooks {
  let h = hooksOf.get(db)
  if (!h) {
    const hk: Hooks = (h = { sale: null, player: null })
    db.function(
      'carats_check_sale',
      { directOnly: true },
      (k: number, p: number, s: number, st: number, pr: number, t: Num) => hk.sale!(k, p, s, st, pr, t),
    )
    db.function(
      'carats_check_player',
      { directOnly: true },
      (i: number, u: number, st: number, w: number, f: Num, l: Num, k: Num) => hk.player!(i, u, st, w, f, l, k),
    )
    hooksOf.set(db, h)
  }
  return h
}

function sqliteFeeds(db: Db): RowFeeds {
  const h = sqliteHooks(db)
  const range = db
    .prepare(
      `SELECT count(*) FROM sales WHERE unit_key >= ? AND unit_key < ?
    AND carats_check_sale(${SALE_COLUMNS})`,
    )
    .pluck()
  const players = db.prepare(`SELECT count(*) FROM player_totals WHERE carats_check_player(${PLAYER_COLUMNS})`).pluck()
  const using = <T>(key: keyof Hooks, hook: T, run: () => void) => {
    ;(h as unknown as Record<string, T | null>)[key] = hook
    try {
      run()
    } finally {
      h[key] = null
    }
  }
  return {
    sales: (lo, hi, sale) => using('sale', sale, () => range.get(lo, hi)),
    players: (player) => using('player', player, () => players.get()),
  }
}

/** A key bound PostgreSQL's bigint takes: ±Infinity (the stray rows around the blocks) become the widest safe integers. */
const bound = (n: number) => Math.max(Number.MIN_SAFE_INTEGER, Math.min(Number.MAX_SAFE_INTEGER, n))

/** A column's value: NaN is how a scan gives NULL. */
const orNull = (v: number): Num => (v === v ? v : null)

function pgFeeds(db: Db): RowFeeds {
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

/** The row feeds of this ledger's engine. */
export function rowFeeds(db: Db): RowFeeds {
  return engineOf(db) === 'postgres' ? pgFeeds(db) : sqliteFeeds(db)
}

/** `fn`'s reads in one snapshot of the ledger, without holding up its writers. */
export function inReadSnapshot<R>(db: Db, fn: () => R): R {
  if (engineOf(db) === 'postgres') return (db as unknown as { readSnapshot<T>(f: () => T): T }).readSnapshot(fn)
  return db.transaction(fn)()
}
