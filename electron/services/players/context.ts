/**
 * The rows the players' service reads (README.md beside this file).
 */

/** A player's totals as the view player_totals gives them (a team ledger's appended totals folded in). */
export interface PlayerRow {
  id: number
  name: string
  units: number
  staked_cents: number
  won_cents: number
  first_sale_at: number | null
  last_sale_at: number | null
  last_key: number | null
}

/** A sale of the player, as the history and the last ten read it. */
export interface SaleRow {
  unit_key: number
  sale_id: string | null
  sold_at: number
  stake_cents: number
  prize_cents: number
  play: number | null
}
