/** Migration 14 of a SQLite ledger (steps.sqlite.ts): the commit-first key ceremony; abandoned ceremonies. */
// The commit-first key ceremony (game-core/DERIVATION.md §1.1, docs/trust.md): the custodian
// commits to SHA-256 of their share before the backend draws its own, then reveals the share. An
// opened ceremony has no backend share yet, so the table is made again with server_share and
// server_hash nullable (SQLite cannot drop a NOT NULL), its columns in the same order and the new
// ones after them; the ceremonies already there keep their rows as they were, protocol 1 (the
// backend's share first). Ceremonies abandoned before they were complete are kept, with who and why.
export const V14 = /* sql */ `
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
