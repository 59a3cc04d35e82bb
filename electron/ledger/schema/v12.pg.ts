/**
 * Step 12 on PostgreSQL: v12.sqlite.ts, the view `player_totals`, and what a team ledger adds
 * behind it (docs/ledger.md). A simulation or an import of millions of sales rewrote about
 * one players row per sale on a whole block (each batch of sales touches most of the players it
 * sells to): nearly half of the server's work. Those bulk writes append each player's batch
 * totals to `player_deltas` instead (a binary COPY, no row rewritten), and fold them into the
 * players' rows once, when the job ends. `player_totals` adds a player's row and its unfolded
 * deltas, so that a total read at any moment (during the job, after a workstation died in the
 * middle of one) is the sum of the player's sales. The sums commute and the chain's head is the
 * newest of the heads by (time of sale, unit key), so deltas can be folded in any order, by any
 * workstation, at any time.
 */
/** The team ledger's own table, which a SQLite ledger has no counterpart of (schema/engines.test.ts). */
export const PG_ONLY_TABLES = ['player_deltas'] as const
/** Its triggers: the deltas' player checked per statement, as the sales' is. */
export const PG_ONLY_TRIGGERS = ['player_deltas_players_exist', 'player_deltas_players_exist_update'] as const

/**
 * The rule, written once for the view and the fold (sales/rows.ts): a player's deltas `x` summed
 * into `d` (all NULL when there are none), then each total of player_totals from the players row
 * `p` and `d`. Part of step 12: a change is a new step, with the view made again.
 */
export const DELTAS_SUMMED = `CAST(sum(x.units) AS BIGINT) AS units, CAST(sum(x.staked_cents) AS BIGINT) AS staked_cents,
    CAST(sum(x.won_cents) AS BIGINT) AS won_cents, min(x.first_sale_at) AS first_sale_at,
    max(ARRAY[x.last_sale_at, x.last_key]) AS head`
const ROW_IS_NEWEST = 'd.head IS NULL OR (p.last_key IS NOT NULL AND ARRAY[p.last_sale_at, p.last_key] >= d.head)'
export const TOTALS: readonly (readonly [column: string, value: string])[] = [
  ['units', 'p.units + coalesce(d.units, 0)'],
  ['staked_cents', 'p.staked_cents + coalesce(d.staked_cents, 0)'],
  ['won_cents', 'p.won_cents + coalesce(d.won_cents, 0)'],
  ['first_sale_at', 'least(p.first_sale_at, d.first_sale_at)'],
  ['last_sale_at', `CASE WHEN ${ROW_IS_NEWEST} THEN p.last_sale_at ELSE d.head[1] END`],
  ['last_key', `CASE WHEN ${ROW_IS_NEWEST} THEN p.last_key ELSE d.head[2] END`],
]

export const PG_V12 = /* sql */ `
-- what the ledger check sums from the sales is what these must add up to: it is the rule
CREATE TABLE player_deltas (
  player_id     BIGINT NOT NULL,
  units         BIGINT NOT NULL,
  staked_cents  BIGINT NOT NULL,
  won_cents     BIGINT NOT NULL,
  first_sale_at BIGINT NOT NULL,
  -- the head's: (last_sale_at, last_key) is one sale, the newest of the player's chain when written
  last_sale_at  BIGINT NOT NULL,
  last_key      BIGINT NOT NULL
);
CREATE INDEX player_deltas_by_player ON player_deltas(player_id);

-- The fold rewrites every player with deltas in one transaction: with pages at most 40 % full,
-- each row's new version fits on its own page (a HOT update, no index touched). At 70 %, half of
-- a fold's updates moved their row and wrote all three of its index entries, the NOCASE one
-- comparing names through ICU: 4.3 s instead of 2.3 s for 300,000 players. Pages made from now.
ALTER TABLE players SET (fillfactor = 40);

-- each delta's player must exist: checked once per statement, as the sales' player is
CREATE FUNCTION player_deltas_players_exist() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM new_deltas n WHERE NOT EXISTS (SELECT 1 FROM players p WHERE p.id = n.player_id)) THEN
    RAISE EXCEPTION USING MESSAGE = 'FOREIGN KEY constraint failed', ERRCODE = 'foreign_key_violation',
      CONSTRAINT = 'player_deltas_player_id_fkey', TABLE = 'player_deltas';
  END IF;
  RETURN NULL;
END
$$;
CREATE TRIGGER player_deltas_players_exist AFTER INSERT ON player_deltas REFERENCING NEW TABLE AS new_deltas
FOR EACH STATEMENT EXECUTE FUNCTION player_deltas_players_exist();
CREATE TRIGGER player_deltas_players_exist_update AFTER UPDATE ON player_deltas REFERENCING NEW TABLE AS new_deltas
FOR EACH STATEMENT EXECUTE FUNCTION player_deltas_players_exist();

-- a player with deltas is in use, as one with sales is
CREATE OR REPLACE FUNCTION players_unused() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM old_players o JOIN sales s ON s.player_id = o.id)
     OR EXISTS (SELECT 1 FROM old_players o JOIN player_deltas d ON d.player_id = o.id) THEN
    RAISE EXCEPTION USING MESSAGE = 'FOREIGN KEY constraint failed', ERRCODE = 'foreign_key_violation',
      CONSTRAINT = 'sales_player_id_fkey', TABLE = 'players';
  END IF;
  RETURN NULL;
END
$$;

-- A batch of the sales service checks each of its players once (an update of exactly its
-- players' rows, or its deltas checked above) and says so for its transaction
-- (SET LOCAL carats.sales_players_checked = on): the check per statement of its sales, which
-- every player then passed, is skipped (about a fifth of a COPY's time on the server). Any
-- other write of sales is checked as before.
CREATE OR REPLACE FUNCTION sales_players_exist() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF current_setting('carats.sales_players_checked', true) = 'on' THEN
    RETURN NULL;
  END IF;
  IF EXISTS (SELECT 1 FROM new_sales n WHERE NOT EXISTS (SELECT 1 FROM players p WHERE p.id = n.player_id)) THEN
    RAISE EXCEPTION USING MESSAGE = 'FOREIGN KEY constraint failed', ERRCODE = 'foreign_key_violation',
      CONSTRAINT = 'sales_player_id_fkey', TABLE = 'sales';
  END IF;
  RETURN NULL;
END
$$;

-- The player's row and its unfolded deltas, added up; the head is the newest of them by (time
-- of sale, unit key). Read a player at a time, the deltas are found on their index.
CREATE VIEW player_totals AS
SELECT p.id, p.name,
  ${TOTALS.map(([column, value]) => `${value} AS ${column}`).join(',\n  ')}
FROM players p
LEFT JOIN LATERAL (SELECT ${DELTAS_SUMMED} FROM player_deltas x WHERE x.player_id = p.id) d ON true;
`
