/** Migration 3 of a SQLite ledger (steps.sqlite.ts): the ledger's id, key fingerprint and keyed audit chain. */
// Facts about the ledger itself, each written once: its id (which its audit checkpoint names),
// the fingerprint of the key that seals its block secrets and keys its audit chain, and the
// first audit entry of the keyed chain.
export const V3 = /* sql */ `
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
