/** Migration 5 of a SQLite ledger (steps.sqlite.ts): players' sales chained in the order of sale. */
// Each player's chain of sales in the order of sale (then serial), not of arrival: a late feed
// had put its sales at the head, and last-game recall read them first (services/sale-chain.ts).
// The chains with a sale whose previous was sold after it are rebuilt, each head set to the
// player's newest sale; the others are in order already. (Rebuilding every chain took twice as
// long on a ledger with 1 player in 100 out of order.)
export const V5 = /* sql */ `
CREATE TEMP TABLE late_v5 AS
  SELECT DISTINCT s.player_id AS id FROM sales s JOIN sales p ON p.unit_key = s.prev_key
  WHERE p.sold_at > s.sold_at OR (p.sold_at = s.sold_at AND p.unit_key > s.unit_key);
CREATE TEMP TABLE chain_v5 AS
  SELECT unit_key, player_id,
    lag(unit_key) OVER (PARTITION BY player_id ORDER BY sold_at, unit_key) AS prev,
    lead(unit_key) OVER (PARTITION BY player_id ORDER BY sold_at, unit_key) IS NULL AS newest
  FROM sales WHERE player_id IN (SELECT id FROM temp.late_v5);
UPDATE sales SET prev_key = c.prev FROM temp.chain_v5 AS c WHERE sales.unit_key = c.unit_key AND sales.prev_key IS NOT c.prev;
UPDATE players SET last_key = c.unit_key FROM temp.chain_v5 AS c
  WHERE c.newest AND c.player_id = players.id AND players.last_key IS NOT c.unit_key;
DROP TABLE temp.chain_v5;
DROP TABLE temp.late_v5;
`
