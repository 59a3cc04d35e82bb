/**
 * The hot path of every sale, per engine: the sales' rows of a batch, and its players' totals
 * (SalesRows), written once per engine in rows.sqlite.ts and rows.pg.ts. What both share is here.
 */

export const SALE_COLUMNS = 9
export const COLUMNS = '(unit_key, sale_id, player_id, sold_at, stake_cents, prize_cents, tier, play, events)'

/** What a batch adds to one player. */
export interface PlayerTotals {
  id: number
  units: number
  staked: number
  won: number
  first: number
  lastAt: number
  /** the batch's newest sale by (time of sale, unit key): the player's newest if newer than the stored one */
  head: number | null
  /** when the sale `head` was sold */
  headSoldAt: number
}

/** What a batch adds to one day of one emission. */
export interface DayTotals {
  day: string
  emission: number
  units: number
  sales: number
  prizes: number
  prizesCents: number
}

/**
 * Whether a batch's newest sale (`at`, `key`) is newer than the player's stored newest (the row
 * `p`'s last_sale_at, last_key): batches may come in any order of sale (a late feed, two
 * workstations at once), and the newest of all is kept whichever commits last.
 */
export const newer = (p: string, at: string, key: string) =>
  `${p}last_key IS NULL OR ${at} > ${p}last_sale_at OR (${at} = ${p}last_sale_at AND ${key} > ${p}last_key)`

export const ADD_TO_DAY = `ON CONFLICT(day, emission) DO UPDATE SET units = daily_sales.units + excluded.units,
      sales_cents = daily_sales.sales_cents + excluded.sales_cents, prizes = daily_sales.prizes + excluded.prizes,
      prizes_cents = daily_sales.prizes_cents + excluded.prizes_cents`

export interface SalesRows {
  /**
   * Inserts `count` sales whose columns are `values` in order (SALE_COLUMNS each). On PostgreSQL
   * they are sent without waiting: the caller goes on with its next sales while the server
   * writes these, and settle() says whether it did.
   */
  insert(values: unknown[], count: number): void
  /** The sales sent before are written, or their failure (a unit or sale id taken) is thrown. */
  settle(): void
  /** Adds each player's totals; returns how many players rows were updated. */
  addToPlayers(players: readonly PlayerTotals[]): number
  /**
   * The same, for a bulk job: on PostgreSQL each player's totals are appended to player_deltas
   * (its rows untouched until foldPlayers), a FOREIGN KEY failure if a player is not in the
   * ledger; on SQLite, addToPlayers. Returns how many players.
   */
  appendToPlayers(players: readonly PlayerTotals[]): number
  /** The appended totals moved into the players' rows (PostgreSQL); how many players. */
  foldPlayers(): number
  /**
   * The sales about to be inserted have their players checked by the caller (add/appendToPlayers,
   * in the same transaction), so the server need not check each statement's (PostgreSQL);
   * `false` once they are. SQLite: the batch turns its foreign keys off instead (withoutKeyChecks).
   */
  playersChecked(on: boolean): void
  /** New players by name, in the order given: their ids. */
  newPlayers(names: readonly string[]): number[]
  /** Adds each day's totals (daily_sales), creating the day's row if needed. */
  addToDays(days: readonly DayTotals[]): void
}
