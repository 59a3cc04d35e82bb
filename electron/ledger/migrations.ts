/**
 * Numbered schema migrations. `PRAGMA user_version` holds the number of the last one applied.
 * Never edit a migration that has shipped: add the next one. Tables are described in SCHEMA.md.
 */

export interface Migration {
  version: number
  description: string
  sql: string
}

/** Written into `PRAGMA application_id` so that another program's SQLite file is not mistaken for a ledger. */
export const APPLICATION_ID = 0x43415254 // "CART"

/** Sales are keyed by one integer so that a unit has one row at most, and needs no second index. */
export const UNIT_KEY_EMISSION = 10_000_000_000
export const UNIT_KEY_BLOCK = 10_000_000

export function unitKey(emission: number, block: number, unit: number): number {
  return emission * UNIT_KEY_EMISSION + block * UNIT_KEY_BLOCK + unit
}

export function splitUnitKey(key: number): { emission: number; block: number; unit: number } {
  return {
    emission: Math.floor(key / UNIT_KEY_EMISSION),
    block: Math.floor(key / UNIT_KEY_BLOCK) % 1000,
    unit: key % UNIT_KEY_BLOCK,
  }
}

const V1 = /* sql */ `
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

// Which process is generating an emission, and when it was last seen: a second process opening
// the ledger (the CLI while the app generates) must not take a live generation for a crashed one.
const V2 = /* sql */ `
CREATE TABLE task_leases (
  emission      INTEGER PRIMARY KEY REFERENCES emissions(emission),
  pid           INTEGER NOT NULL,
  host          TEXT NOT NULL,
  heartbeat_at  INTEGER NOT NULL
) STRICT;
`

// Facts about the ledger itself, each written once: its id (which its audit checkpoint names),
// the fingerprint of the key that seals its block secrets and keys its audit chain, and the
// first audit entry of the keyed chain.
const V3 = /* sql */ `
CREATE TABLE ledger_meta (
  name  TEXT PRIMARY KEY,
  value TEXT NOT NULL
) STRICT;
INSERT INTO ledger_meta (name, value) VALUES ('ledger_id', lower(hex(randomblob(16))));
CREATE TRIGGER ledger_meta_no_update BEFORE UPDATE ON ledger_meta
BEGIN SELECT RAISE(ABORT, 'the ledger''s facts are written once: they cannot be changed'); END;
CREATE TRIGGER ledger_meta_no_delete BEFORE DELETE ON ledger_meta
BEGIN SELECT RAISE(ABORT, 'the ledger''s facts are written once: they cannot be deleted'); END;
`

// Demonstration emissions (simulated sales only there), staff accounts' last sign-in, and the
// sign-in throttle, kept in the ledger so that it holds across restarts and processes. An
// emission that already received simulated sales becomes a demonstration emission.
const V4 = /* sql */ `
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

// Each player's chain of sales in the order of sale (then serial), not of arrival: a late feed
// had put its sales at the head, and last-game recall read them first (services/sale-chain.ts).
// The chains with a sale whose previous was sold after it are rebuilt, each head set to the
// player's newest sale; the others are in order already. (Rebuilding every chain took twice as
// long on a ledger with 1 player in 100 out of order.)
const V5 = /* sql */ `
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

// Verdicts of block verification (services/emissions/verifications.ts): one row per verification of an
// emission, one per block it checked. A verification is written as it goes (each block's verdict
// with the block's new status) and closed with its outcome; both are history, never rewritten.
const V6 = /* sql */ `
CREATE TABLE verifications (
  id          INTEGER PRIMARY KEY,
  emission    INTEGER NOT NULL REFERENCES emissions(emission),
  actor       TEXT NOT NULL,
  role        TEXT NOT NULL,
  software    TEXT NOT NULL,
  blocks      INTEGER NOT NULL CHECK (blocks >= 1),
  started_at  TEXT NOT NULL,
  ended_at    TEXT,
  outcome     TEXT CHECK (outcome IN ('sound', 'unsound', 'cancelled', 'failed')),
  error       TEXT,
  CHECK ((ended_at IS NULL) = (outcome IS NULL))
) STRICT;
CREATE INDEX verifications_by_emission ON verifications(emission, id);
CREATE TABLE verification_blocks (
  verification          INTEGER NOT NULL REFERENCES verifications(id),
  block                 INTEGER NOT NULL CHECK (block BETWEEN 1 AND 999),
  sound                 INTEGER NOT NULL CHECK (sound IN (0, 1)),
  commitment_recorded   TEXT,
  commitment_reproduced TEXT,
  units_checked         INTEGER NOT NULL CHECK (units_checked >= 0),
  units_total           INTEGER NOT NULL CHECK (units_total >= 1),
  units_failed          INTEGER NOT NULL CHECK (units_failed >= 0),
  prize_table_exact     INTEGER NOT NULL CHECK (prize_table_exact IN (0, 1)),
  tiers                 TEXT NOT NULL,
  losing_found          INTEGER NOT NULL,
  losing_expected       INTEGER NOT NULL,
  prize_total_cents     INTEGER NOT NULL,
  problems              TEXT NOT NULL,
  started_at            TEXT NOT NULL,
  ended_at              TEXT NOT NULL,
  ms                    INTEGER NOT NULL CHECK (ms >= 0),
  PRIMARY KEY (verification, block)
) STRICT;
CREATE TRIGGER verification_blocks_no_update BEFORE UPDATE ON verification_blocks
BEGIN SELECT RAISE(ABORT, 'a block''s verdict is history: it cannot be changed'); END;
CREATE TRIGGER verification_blocks_no_delete BEFORE DELETE ON verification_blocks
BEGIN SELECT RAISE(ABORT, 'a block''s verdict is history: it cannot be deleted'); END;
CREATE TRIGGER verifications_closed_once BEFORE UPDATE ON verifications
WHEN OLD.ended_at IS NOT NULL OR NEW.id IS NOT OLD.id OR NEW.emission IS NOT OLD.emission OR NEW.actor IS NOT OLD.actor
  OR NEW.role IS NOT OLD.role OR NEW.software IS NOT OLD.software OR NEW.blocks IS NOT OLD.blocks OR NEW.started_at IS NOT OLD.started_at
BEGIN SELECT RAISE(ABORT, 'a verification is history: only its end is written, once'); END;
CREATE TRIGGER verifications_no_delete BEFORE DELETE ON verifications
BEGIN SELECT RAISE(ABORT, 'a verification is history: it cannot be deleted'); END;
`

// Lists that can grow, searched and sorted on indexes. A player is found ignoring case by a
// prefix range on the name under NOCASE (which folds ASCII letters only: account ids may hold
// others, matched as typed); the name itself breaks ties between ids that differ only by case.
// The audit log's filters (a prefix of the actor, the action, the object, ignoring case; a
// range of days) and its sorts each have an index; an index entry ends with the row's seq, so
// "by actor, then by seq" is read from the index in order. The exact-case actor index goes:
// nothing looks an actor up by its exact case any more. (IF [NOT] EXISTS: a file whose version
// was set back, as a test of migration 5 does, is brought up again.)
const V7 = /* sql */ `
CREATE INDEX IF NOT EXISTS players_by_name_nocase ON players(name COLLATE NOCASE, name);
CREATE INDEX IF NOT EXISTS audit_by_actor_nocase ON audit(actor COLLATE NOCASE);
CREATE INDEX IF NOT EXISTS audit_by_action ON audit(action COLLATE NOCASE);
CREATE INDEX IF NOT EXISTS audit_by_object ON audit(object COLLATE NOCASE);
CREATE INDEX IF NOT EXISTS audit_by_at ON audit(at);
DROP INDEX IF EXISTS audit_by_actor;
`

// Commitment versions (game-core/DERIVATION.md §6, §7): the blocks committed so far are version 1;
// blocks generated from now on are version 2, with their proof batches' roots kept for unit proofs.
const V8 = /* sql */ `
ALTER TABLE blocks ADD COLUMN commitment_version INTEGER NOT NULL DEFAULT 1 CHECK (commitment_version IN (1, 2));
ALTER TABLE blocks ADD COLUMN proof_roots BLOB;
`

// Two-person seeding (game-core/DERIVATION.md §1.1) and publication after the game: an emission's
// key ceremony (the backend's share first, sealed, with its hash; then a second person's share),
// how each block's secret was made, and when the emission was published.
const V9 = /* sql */ `
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

// Prize claims (electron/services/claims/README.md): each emission's threshold, from which a sold unit's prize is
// claimed in person rather than credited; one claim per such unit, written with its sale, that
// moves pending → verified → approved → paid (or rejected before paid), each step once, by whom
// and when. Related parties: player accounts linked to staff or retailers, whose claims an
// auditor signs off. Neither claims nor the register's entries are ever deleted.
const V10 = /* sql */ `
ALTER TABLE emissions ADD COLUMN claim_threshold_cents INTEGER NOT NULL DEFAULT 500000 CHECK (claim_threshold_cents > 0);
CREATE TABLE claims (
  unit_key      INTEGER PRIMARY KEY,
  emission      INTEGER NOT NULL REFERENCES emissions(emission),
  player_id     INTEGER NOT NULL REFERENCES players(id),
  sold_at       INTEGER NOT NULL,
  prize_cents   INTEGER NOT NULL CHECK (prize_cents > 0),
  status        TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'verified', 'approved', 'paid', 'rejected')),
  document      TEXT CHECK (document IN ('id-card', 'passport', 'residence-permit')),
  document_ref  TEXT,
  verified_by   TEXT,
  verified_at   TEXT,
  approved_by   TEXT,
  approved_at   TEXT,
  signed_off_by TEXT,
  signed_off_at TEXT,
  paid_by       TEXT,
  paid_at       TEXT,
  payment_ref   TEXT,
  rejected_by   TEXT,
  rejected_at   TEXT,
  rejected_from TEXT CHECK (rejected_from IN ('pending', 'verified', 'approved')),
  reject_reason TEXT,
  CHECK ((verified_by IS NULL) = (verified_at IS NULL) AND (verified_by IS NULL) = (document IS NULL) AND (document IS NULL) = (document_ref IS NULL)),
  CHECK ((approved_by IS NULL) = (approved_at IS NULL) AND (approved_by IS NULL OR verified_by IS NOT NULL)),
  CHECK ((signed_off_by IS NULL) = (signed_off_at IS NULL) AND (signed_off_by IS NULL OR verified_by IS NOT NULL)),
  CHECK ((paid_by IS NULL) = (paid_at IS NULL) AND (paid_by IS NULL) = (payment_ref IS NULL) AND (paid_by IS NULL OR approved_by IS NOT NULL)),
  CHECK ((rejected_by IS NULL) = (rejected_at IS NULL) AND (rejected_by IS NULL) = (reject_reason IS NULL) AND (rejected_by IS NULL) = (rejected_from IS NULL)),
  CHECK ((status = 'rejected') = (rejected_by IS NOT NULL) AND (status = 'paid') = (paid_by IS NOT NULL)),
  CHECK (status NOT IN ('pending') OR verified_by IS NULL),
  CHECK (status <> 'verified' OR (verified_by IS NOT NULL AND approved_by IS NULL)),
  CHECK (status <> 'approved' OR approved_by IS NOT NULL),
  CHECK (approved_by IS NULL OR lower(approved_by) <> lower(verified_by))
);
CREATE INDEX claims_by_sold_at ON claims(sold_at);
-- prize_cents last: the totals per status (count, amount) are read from the index alone
CREATE INDEX claims_by_status ON claims(status, sold_at, prize_cents);
CREATE INDEX claims_by_emission ON claims(emission, status, sold_at, prize_cents);
-- one emission's claims of every status, newest sale first, without sorting them
CREATE INDEX claims_by_emission_time ON claims(emission, sold_at);
CREATE INDEX claims_by_player ON claims(player_id, sold_at);
CREATE UNIQUE INDEX claims_payment_ref ON claims(payment_ref) WHERE payment_ref IS NOT NULL;
CREATE TRIGGER claims_no_delete BEFORE DELETE ON claims
BEGIN SELECT RAISE(ABORT, 'a claim is history: it cannot be deleted'); END;
CREATE TRIGGER claims_final BEFORE UPDATE ON claims
WHEN OLD.status IN ('paid', 'rejected') OR NEW.unit_key IS NOT OLD.unit_key OR NEW.emission IS NOT OLD.emission
  OR NEW.player_id IS NOT OLD.player_id OR NEW.sold_at IS NOT OLD.sold_at OR NEW.prize_cents IS NOT OLD.prize_cents
BEGIN SELECT RAISE(ABORT, 'a paid or rejected claim is final, and a claim''s unit, player and prize never change'); END;
INSERT INTO claims (unit_key, emission, player_id, sold_at, prize_cents)
  SELECT s.unit_key, s.unit_key / 10000000000, s.player_id, s.sold_at, s.prize_cents FROM sales s
  WHERE s.prize_cents >= 500000;

CREATE TABLE related_parties (
  id             INTEGER PRIMARY KEY,
  player         TEXT NOT NULL,
  relation       TEXT NOT NULL CHECK (relation IN ('staff', 'retailer', 'family', 'other')),
  linked_to      TEXT NOT NULL,
  reason         TEXT NOT NULL,
  added_by       TEXT NOT NULL,
  added_at       TEXT NOT NULL,
  removed_by     TEXT,
  removed_at     TEXT,
  removed_reason TEXT,
  CHECK ((removed_by IS NULL) = (removed_at IS NULL) AND (removed_by IS NULL) = (removed_reason IS NULL))
);
CREATE INDEX related_parties_by_player ON related_parties(player COLLATE NOCASE) WHERE removed_at IS NULL;
CREATE TRIGGER related_parties_no_delete BEFORE DELETE ON related_parties
BEGIN SELECT RAISE(ABORT, 'the register of related parties keeps every entry: remove one with a reason instead'); END;
CREATE TRIGGER related_parties_removed_once BEFORE UPDATE ON related_parties
WHEN OLD.removed_at IS NOT NULL OR NEW.player IS NOT OLD.player OR NEW.relation IS NOT OLD.relation OR NEW.linked_to IS NOT OLD.linked_to
  OR NEW.reason IS NOT OLD.reason OR NEW.added_by IS NOT OLD.added_by OR NEW.added_at IS NOT OLD.added_at
BEGIN SELECT RAISE(ABORT, 'an entry of the register is only removed, once, with who, when and why'); END;
`

// Leases of long jobs across workstations (services/leases.ts, docs/ledger.md): one row per
// running generate, verify, simulate (subject 'emission:N') or import ('feed:<sha256>'). They
// replace task_leases (generations only); a generation's lease of version 2 is carried over.
const V11 = /* sql */ `
CREATE TABLE job_leases (
  kind          TEXT NOT NULL,
  subject       TEXT NOT NULL,
  holder        TEXT NOT NULL,
  host          TEXT NOT NULL,
  pid           INTEGER NOT NULL,
  started_at    INTEGER NOT NULL,
  heartbeat_at  INTEGER NOT NULL,
  PRIMARY KEY (kind, subject)
) STRICT;
INSERT INTO job_leases (kind, subject, holder, host, pid, started_at, heartbeat_at)
  SELECT 'generate', 'emission:' || emission, 'task-lease', host, pid, heartbeat_at, heartbeat_at FROM task_leases;
DROP TABLE task_leases;
`

// A player's totals and chain head as the services read them (docs/ledger.md). On SQLite
// they are the players row itself, updated with each batch of sales; a team ledger's bulk writes
// append them instead, and its view of the same name adds those up (pg/schema-v12.ts).
const V12 = /* sql */ `
CREATE VIEW player_totals AS
SELECT id, name, units, staked_cents, won_cents, first_sale_at, last_sale_at, last_key FROM players;
`

// Records that insiders cannot bend (docs/trust.md, "Rows sealed to the audit log"): each
// security-relevant row (an account, a claim that took a step, an entry of the register, an
// emission, a key ceremony) carries a seal, an HMAC under a key derived from the ledger key over
// its fields and the audit entry that last changed it (services/audit/seals.ts). Accounts gain their
// look-alike skeleton (unique: "admin" and "аdmin" are one person), who granted them their role
// and who confirmed it; the accounts already there are taken as confirmed ('' = by the system).
const V13 = /* sql */ `
CREATE TABLE row_seals (
  kind TEXT NOT NULL CHECK (kind IN ('user', 'claim', 'party', 'emission', 'ceremony')),
  key  TEXT NOT NULL,
  seq  INTEGER NOT NULL,
  mac  TEXT NOT NULL,
  PRIMARY KEY (kind, key)
);
ALTER TABLE users ADD COLUMN skeleton TEXT;
ALTER TABLE users ADD COLUMN granted_by TEXT;
ALTER TABLE users ADD COLUMN confirmed_by TEXT;
ALTER TABLE users ADD COLUMN confirmed_at TEXT;
UPDATE users SET confirmed_by = '', confirmed_at = created_at;
CREATE UNIQUE INDEX users_by_skeleton ON users(skeleton);
`

// The commit-first key ceremony (game-core/DERIVATION.md §1.1, docs/trust.md): the custodian
// commits to SHA-256 of their share before the backend draws its own, then reveals the share. An
// opened ceremony has no backend share yet, so the table is made again with server_share and
// server_hash nullable (SQLite cannot drop a NOT NULL), its columns in the same order and the new
// ones after them; the ceremonies already there keep their rows as they were, protocol 1 (the
// backend's share first). Ceremonies abandoned before they were complete are kept, with who and why.
const V14 = /* sql */ `
CREATE TABLE key_ceremonies_v14 (
  emission         INTEGER PRIMARY KEY REFERENCES emissions(emission),
  server_share     BLOB,
  server_hash      TEXT,
  started_by       TEXT NOT NULL,
  started_at       TEXT NOT NULL,
  custodian        TEXT,
  custodian_share  BLOB,
  custodian_hash   TEXT,
  custodian_source TEXT CHECK (custodian_source IN ('random', 'dice')),
  contributed_at   TEXT,
  protocol         INTEGER NOT NULL DEFAULT 1 CHECK (protocol IN (1, 2)),
  committed_by     TEXT,
  custodian_commit TEXT,
  committed_at     TEXT,
  CHECK ((custodian IS NULL) = (custodian_share IS NULL) AND (custodian IS NULL) = (contributed_at IS NULL)),
  CHECK ((committed_by IS NULL) = (custodian_commit IS NULL) AND (committed_by IS NULL) = (committed_at IS NULL)
    AND (server_share IS NULL) = (server_hash IS NULL)
    AND (protocol <> 2 AND server_share IS NOT NULL AND committed_by IS NULL
      OR protocol = 2 AND (committed_by IS NULL) = (server_share IS NULL) AND (custodian IS NULL OR custodian_hash = custodian_commit)))
);
INSERT INTO key_ceremonies_v14 (emission, server_share, server_hash, started_by, started_at, custodian, custodian_share, custodian_hash, custodian_source, contributed_at)
  SELECT emission, server_share, server_hash, started_by, started_at, custodian, custodian_share, custodian_hash, custodian_source, contributed_at FROM key_ceremonies;
DROP TABLE key_ceremonies;
ALTER TABLE key_ceremonies_v14 RENAME TO key_ceremonies;
CREATE TABLE key_ceremony_abandons (
  id               INTEGER PRIMARY KEY,
  emission         INTEGER NOT NULL REFERENCES emissions(emission),
  protocol         INTEGER NOT NULL,
  started_by       TEXT NOT NULL,
  started_at       TEXT NOT NULL,
  server_hash      TEXT,
  committed_by     TEXT,
  custodian_commit TEXT,
  committed_at     TEXT,
  abandoned_by     TEXT NOT NULL,
  abandoned_at     TEXT NOT NULL,
  reason           TEXT NOT NULL
);
CREATE INDEX key_ceremony_abandons_by_emission ON key_ceremony_abandons(emission, id);
`

// A player's sales found by player and time of sale on an index (services/players/service.ts), instead of
// the chain of sales newest to oldest (players.last_key, then each sale's prev_key): a late feed
// had to relink its players' chains, and a second block sold over the same days to the same
// players relinked nearly every chain in every batch (issue 30, item 4). The index's entries end
// with the rowid, the unit key: (player_id, sold_at, unit_key) is the order of last-game recall.
// players.last_key stays, the player's newest sale by (sold_at, unit_key), as the chain's head was.
const V15 = /* sql */ `
ALTER TABLE sales DROP COLUMN prev_key;
CREATE INDEX sales_by_player ON sales(player_id, sold_at);
`

export const MIGRATIONS: readonly Migration[] = [
  { version: 1, description: 'the whole ledger', sql: V1 },
  { version: 2, description: 'leases of long tasks', sql: V2 },
  { version: 3, description: "the ledger's id, key fingerprint and keyed audit chain", sql: V3 },
  { version: 4, description: 'demonstration emissions, last sign-in, sign-in throttle', sql: V4 },
  { version: 5, description: "players' sales chained in the order of sale", sql: V5 },
  { version: 6, description: 'verdicts of block verifications', sql: V6 },
  { version: 7, description: 'players found ignoring case; the audit log filtered and sorted on indexes', sql: V7 },
  { version: 8, description: "blocks' commitment version and proof batch roots", sql: V8 },
  { version: 9, description: 'key ceremonies, how each block was seeded, publication', sql: V9 },
  { version: 10, description: 'prize claims, claim thresholds, the register of related parties', sql: V10 },
  { version: 11, description: 'leases of long jobs across workstations', sql: V11 },
  { version: 12, description: "players' totals read through one view (a team ledger's appended totals)", sql: V12 },
  {
    version: 13,
    description: 'rows sealed to the audit log; accounts compared by skeleton and confirmed by a second person',
    sql: V13,
  },
  { version: 14, description: 'the commit-first key ceremony; abandoned ceremonies', sql: V14 },
  {
    version: 15,
    description: "players' sales found by player and time of sale on an index, no longer chained",
    sql: V15,
  },
]

export const LATEST_VERSION = MIGRATIONS[MIGRATIONS.length - 1].version
