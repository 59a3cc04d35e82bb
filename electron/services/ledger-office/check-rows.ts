/**
 * How the ledger check's rows reach its JavaScript checks (check.ts), per engine (check-rows.sqlite.ts,
 * check-rows.pg.ts; the engine chosen in check.ts): the
 * checks themselves are the same on both. On SQLite the statement calls a user function with
 * each row's columns (about four times faster than reading the rows out); PostgreSQL has no
 * such functions, so the rows are read in unit_key order by a binary COPY, as columns of numbers
 * (PgDb.numberColumns, read ahead by the connection's thread), and handed to the same function. The reads are made in one
 * snapshot: on SQLite one deferred transaction, on PostgreSQL one REPEATABLE READ, READ ONLY
 * transaction that does not take the write lock (the other workstations go on selling).
 */

export type Num = number | null
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

export const SALE_COLUMNS = 'unit_key, player_id, sold_at, stake_cents, prize_cents, tier'
export const PLAYER_COLUMNS = 'id, units, staked_cents, won_cents, first_sale_at, last_sale_at, last_key'
