/** Migration 12 of a SQLite ledger (steps.sqlite.ts): players' totals read through one view (a team ledger's appended totals). */
// A player's totals and chain head as the services read them (docs/ledger.md). On SQLite
// they are the players row itself, updated with each batch of sales; a team ledger's bulk writes
// append them instead, and its view of the same name adds those up (schema/v12.pg.ts).
export const V12 = /* sql */ `
CREATE VIEW player_totals AS
SELECT id, name, units, staked_cents, won_cents, first_sale_at, last_sale_at, last_key FROM players;
`
