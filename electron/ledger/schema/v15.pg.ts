/**
 * Step 15 on PostgreSQL: v15.sqlite.ts, a player's sales found on an index by player and time
 * of sale (then unit key, which SQLite's index holds as its rowid), the chain of sales (prev_key)
 * dropped. players.last_key, and player_deltas' heads, stay: the player's newest sale.
 */
/** Indexes whose last key, the unit key, SQLite holds as the rowid every index ends with, and PostgreSQL lists (schema/engines.test.ts). */
export const PG_ROWID_LISTED = ['sales_by_player'] as const

export const PG_V15 = /* sql */ `
ALTER TABLE sales DROP COLUMN prev_key;
CREATE INDEX sales_by_player ON sales(player_id, sold_at, unit_key);
`
