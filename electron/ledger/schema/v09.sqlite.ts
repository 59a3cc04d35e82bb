/** Migration 9 of a SQLite ledger (steps.sqlite.ts): key ceremonies, how each block was seeded, publication. */
// Two-person seeding (game-core/DERIVATION.md §1.1) and publication after the game: an emission's
// key ceremony (the backend's share first, sealed, with its hash; then a second person's share),
// how each block's secret was made, and when the emission was published.
export const V9 = /* sql */ `
CREATE TABLE key_ceremonies (
  emission         INTEGER PRIMARY KEY REFERENCES emissions(emission),
  server_share     BLOB NOT NULL,
  server_hash      TEXT NOT NULL,
  started_by       TEXT NOT NULL,
  started_at       TEXT NOT NULL,
  custodian        TEXT,
  custodian_share  BLOB,
  custodian_hash   TEXT,
  custodian_source TEXT CHECK (custodian_source IN ('random', 'dice')),
  contributed_at   TEXT,
  CHECK ((custodian IS NULL) = (custodian_share IS NULL) AND (custodian IS NULL) = (contributed_at IS NULL))
);
ALTER TABLE blocks ADD COLUMN seeding TEXT NOT NULL DEFAULT 'single' CHECK (seeding IN ('single', 'two-person'));
ALTER TABLE emissions ADD COLUMN published_at TEXT;
ALTER TABLE emissions ADD COLUMN published_by TEXT;
`
