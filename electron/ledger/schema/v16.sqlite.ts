/** Migration 16 of a SQLite ledger (steps.sqlite.ts): the regulator's read-only role. */
// A regulator's account reads the vault's screens and exports and nothing else (issue 33, item 5):
// one more role in the users' CHECK. SQLite changes a CHECK only by making the table again: the
// same columns, in the same order, every row copied as it is (the rows' seals, in row_seals,
// cover their values, which do not change), and its index.
export const V16 = /* sql */ `
CREATE TABLE users_v16 (
  id            INTEGER PRIMARY KEY,
  name          TEXT NOT NULL UNIQUE COLLATE NOCASE,
  role          TEXT NOT NULL CHECK (role IN ('admin','operator','support','manager','auditor','regulator')),
  password_hash BLOB NOT NULL,
  password_salt BLOB NOT NULL,
  active        INTEGER NOT NULL DEFAULT 1 CHECK (active IN (0, 1)),
  created_at    TEXT NOT NULL,
  last_login_at TEXT,
  skeleton      TEXT,
  granted_by    TEXT,
  confirmed_by  TEXT,
  confirmed_at  TEXT
);
INSERT INTO users_v16 (id, name, role, password_hash, password_salt, active, created_at, last_login_at,
                       skeleton, granted_by, confirmed_by, confirmed_at)
  SELECT id, name, role, password_hash, password_salt, active, created_at, last_login_at,
         skeleton, granted_by, confirmed_by, confirmed_at FROM users;
DROP TABLE users;
ALTER TABLE users_v16 RENAME TO users;
CREATE UNIQUE INDEX users_by_skeleton ON users(skeleton);
`
