/**
 * Step 13 on PostgreSQL: v13.sqlite.ts, rows sealed to the audit log (services/audit/seals.ts)
 * and accounts' skeletons, grants and confirmations.
 */
export const PG_V13 = /* sql */ `
CREATE TABLE row_seals (
  kind TEXT COLLATE "C" NOT NULL CHECK (kind IN ('user', 'claim', 'party', 'emission', 'ceremony')),
  key  TEXT COLLATE "C" NOT NULL,
  seq  BIGINT NOT NULL,
  mac  TEXT COLLATE "C" NOT NULL,
  PRIMARY KEY (kind, key)
);
ALTER TABLE users ADD COLUMN skeleton TEXT COLLATE "C";
ALTER TABLE users ADD COLUMN granted_by TEXT COLLATE "C";
ALTER TABLE users ADD COLUMN confirmed_by TEXT COLLATE "C";
ALTER TABLE users ADD COLUMN confirmed_at TEXT COLLATE "C";
UPDATE users SET confirmed_by = '', confirmed_at = created_at;
CREATE UNIQUE INDEX users_by_skeleton ON users(skeleton);
`
