/** Migration 4 of a SQLite ledger (steps.sqlite.ts): demonstration emissions, last sign-in, sign-in throttle. */
// Demonstration emissions (simulated sales only there), staff accounts' last sign-in, and the
// sign-in throttle, kept in the ledger so that it holds across restarts and processes. An
// emission that already received simulated sales becomes a demonstration emission.
export const V4 = /* sql */ `
ALTER TABLE emissions ADD COLUMN demo INTEGER NOT NULL DEFAULT 0 CHECK (demo IN (0, 1));
UPDATE emissions SET demo = 1 WHERE emission IN (
  SELECT CAST(substr(object, length('emission:') + 1) AS INTEGER) FROM audit
  WHERE action IN ('sales.simulate-start', 'sales.simulate') AND object LIKE 'emission:%'
);
ALTER TABLE users ADD COLUMN last_login_at TEXT;
-- one row per name typed at sign-in (services/sign-in-throttle.ts); times in ms since 1970
CREATE TABLE sign_in_throttle (
  name           TEXT PRIMARY KEY COLLATE NOCASE,
  failures       INTEGER NOT NULL DEFAULT 0,
  window_start   INTEGER NOT NULL,
  lockouts       INTEGER NOT NULL DEFAULT 0,
  locked_until   INTEGER,
  unlogged       INTEGER NOT NULL DEFAULT 0,
  unlogged_since INTEGER,
  last_at        INTEGER NOT NULL
) STRICT;
`
