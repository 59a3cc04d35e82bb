/** Migration 15 of a SQLite ledger (steps.sqlite.ts): players' sales found by player and time of sale on an index, no longer chained. */
// A player's sales found by player and time of sale on an index (services/players/service.ts), instead of
// the chain of sales newest to oldest (players.last_key, then each sale's prev_key): a late feed
// had to relink its players' chains, and a second block sold over the same days to the same
// players relinked nearly every chain in every batch (issue 30, item 4). The index's entries end
// with the rowid, the unit key: (player_id, sold_at, unit_key) is the order of last-game recall.
// players.last_key stays, the player's newest sale by (sold_at, unit_key), as the chain's head was.
export const V15 = /* sql */ `
ALTER TABLE sales DROP COLUMN prev_key;
CREATE INDEX sales_by_player ON sales(player_id, sold_at);
`
