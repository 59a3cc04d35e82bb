/** Migration 13 of a SQLite ledger (steps.sqlite.ts): rows sealed to the audit log; accounts compared by skeleton and confirmed by a second person. */
// Records that insiders cannot bend (docs/trust.md, "Rows sealed to the audit log"): each
// security-relevant row (an account, a claim that took a step, an entry of the register, an
// emission, a key ceremony) carries a seal, an HMAC under a key derived from the ledger key over
// its fields and the audit entry that last changed it (services/audit/seals.ts). Accounts gain their
// look-alike skeleton (unique: "admin" and "аdmin" are one person), who granted them their role
// and who confirmed it; the accounts already there are taken as confirmed ('' = by the system).
export const V13 = /* sql */ `
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
