/** Migration 1 of a SQLite ledger (steps.sqlite.ts): the whole ledger. */
export const V1 = /* sql */ `
CREATE TABLE emissions (
  emission          INTEGER PRIMARY KEY CHECK (emission BETWEEN 1 AND 9999),
  code              TEXT NOT NULL UNIQUE,
  starts_on         TEXT,
  status            TEXT NOT NULL DEFAULT 'created'
                    CHECK (status IN ('created','generating','generated','verified','open','closed','withdrawn')),
  withdrawn_reason  TEXT,
  blocks            INTEGER NOT NULL CHECK (blocks BETWEEN 1 AND 999),
  definition        TEXT NOT NULL,
  definition_digest TEXT NOT NULL,
  created_at        TEXT NOT NULL,
  opened_at         TEXT,
  closed_at         TEXT,
  CHECK ((status = 'withdrawn') = (withdrawn_reason IS NOT NULL))
);

CREATE TABLE blocks (
  emission     INTEGER NOT NULL REFERENCES emissions(emission),
  block        INTEGER NOT NULL CHECK (block BETWEEN 1 AND 999),
  status       TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending','generated','verified','failed')),
  secret       BLOB,
  commitment   TEXT,
  merkle_root  TEXT,
  generated_at TEXT,
  verified_at  TEXT,
  units_sold   INTEGER NOT NULL DEFAULT 0 CHECK (units_sold >= 0),
  PRIMARY KEY (emission, block),
  -- a block is made whole or not at all: secret and commitment arrive together
  CHECK ((status = 'pending') = (secret IS NULL)),
  CHECK ((secret IS NULL) = (commitment IS NULL)),
  CHECK (units_sold = 0 OR status <> 'pending')
) WITHOUT ROWID;

CREATE TABLE block_tiers (
  emission INTEGER NOT NULL,
  block    INTEGER NOT NULL,
  tier     INTEGER NOT NULL,
  sold     INTEGER NOT NULL DEFAULT 0 CHECK (sold >= 0),
  PRIMARY KEY (emission, block, tier),
  FOREIGN KEY (emission, block) REFERENCES blocks(emission, block)
) WITHOUT ROWID;

CREATE TABLE players (
  id            INTEGER PRIMARY KEY,
  name          TEXT NOT NULL UNIQUE,
  units         INTEGER NOT NULL DEFAULT 0,
  staked_cents  INTEGER NOT NULL DEFAULT 0,
  won_cents     INTEGER NOT NULL DEFAULT 0,
  first_sale_at INTEGER,
  last_sale_at  INTEGER,
  last_key      INTEGER
);

CREATE TABLE sales (
  unit_key    INTEGER PRIMARY KEY,
  emission    INTEGER GENERATED ALWAYS AS (unit_key / 10000000000) VIRTUAL,
  block       INTEGER GENERATED ALWAYS AS ((unit_key / 10000000) % 1000) VIRTUAL,
  unit        INTEGER GENERATED ALWAYS AS (unit_key % 10000000) VIRTUAL,
  sale_id     TEXT,
  player_id   INTEGER NOT NULL REFERENCES players(id),
  prev_key    INTEGER,
  sold_at     INTEGER NOT NULL,
  stake_cents INTEGER NOT NULL CHECK (stake_cents > 0),
  prize_cents INTEGER NOT NULL CHECK (prize_cents >= 0),
  tier        INTEGER,
  play        INTEGER CHECK (play BETWEEN 0 AND 3),
  events      BLOB,
  CHECK ((play IS NULL) = (events IS NULL))
);
-- a sale whose id is its own serial stores NULL: the simulator's sales need no index entry
CREATE UNIQUE INDEX sales_by_sale_id ON sales(sale_id) WHERE sale_id IS NOT NULL;

CREATE TABLE daily_sales (
  day          TEXT NOT NULL,
  emission     INTEGER NOT NULL,
  units        INTEGER NOT NULL DEFAULT 0,
  sales_cents  INTEGER NOT NULL DEFAULT 0,
  prizes       INTEGER NOT NULL DEFAULT 0,
  prizes_cents INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (day, emission)
) WITHOUT ROWID;

CREATE TABLE import_batches (
  id          INTEGER PRIMARY KEY,
  file_sha256 TEXT NOT NULL,
  file_name   TEXT,
  lines       INTEGER NOT NULL,
  imported    INTEGER NOT NULL,
  already     INTEGER NOT NULL,
  actor       TEXT NOT NULL,
  at          TEXT NOT NULL
);

CREATE TABLE alerts (
  id           INTEGER PRIMARY KEY,
  kind         TEXT NOT NULL,
  emission     INTEGER NOT NULL,
  block        INTEGER,
  amount_cents INTEGER NOT NULL,
  message      TEXT NOT NULL,
  at           TEXT NOT NULL
);
-- one alert per (kind, emission, block or the whole emission, tier)
CREATE UNIQUE INDEX alerts_once ON alerts(kind, emission, ifnull(block, 0), amount_cents);

CREATE TABLE users (
  id            INTEGER PRIMARY KEY,
  name          TEXT NOT NULL UNIQUE COLLATE NOCASE,
  role          TEXT NOT NULL CHECK (role IN ('admin','operator','support','manager','auditor')),
  password_hash BLOB NOT NULL,
  password_salt BLOB NOT NULL,
  active        INTEGER NOT NULL DEFAULT 1 CHECK (active IN (0, 1)),
  created_at    TEXT NOT NULL
);

CREATE TABLE audit (
  seq       INTEGER PRIMARY KEY,
  at        TEXT NOT NULL,
  actor     TEXT NOT NULL,
  action    TEXT NOT NULL,
  object    TEXT NOT NULL,
  details   TEXT NOT NULL,
  prev_hash TEXT NOT NULL,
  hash      TEXT NOT NULL
);
CREATE INDEX audit_by_actor ON audit(actor);
CREATE TRIGGER audit_no_update BEFORE UPDATE ON audit
BEGIN SELECT RAISE(ABORT, 'the audit log is append-only: entries cannot be changed'); END;
CREATE TRIGGER audit_no_delete BEFORE DELETE ON audit
BEGIN SELECT RAISE(ABORT, 'the audit log is append-only: entries cannot be deleted'); END;
`
