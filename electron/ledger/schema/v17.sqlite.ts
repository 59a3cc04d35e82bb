/** Migration 17 of a SQLite ledger (steps.sqlite.ts): claim deadlines and expired claims. */
// Prize liability (issue 34; electron/services/claims/README.md, "Deadlines"): each emission has a
// claim deadline, `claim_days` after its close (30 by default); past it an open claim becomes
// `expired`, by whom and when, and is final. SQLite changes a CHECK only by making the table again:
// the same columns in the same order, then the two new ones; every row copied as it is (a claim's
// seal covers `expired_by` only once set, so the seals of the rows copied still hold); its indexes
// and triggers made again, the final statuses now three.
export const V17 = /* sql */ `
ALTER TABLE emissions ADD COLUMN claim_days INTEGER NOT NULL DEFAULT 30 CHECK (claim_days BETWEEN 1 AND 3650);
CREATE TABLE claims_v17 (
  unit_key      INTEGER PRIMARY KEY,
  emission      INTEGER NOT NULL REFERENCES emissions(emission),
  player_id     INTEGER NOT NULL REFERENCES players(id),
  sold_at       INTEGER NOT NULL,
  prize_cents   INTEGER NOT NULL CHECK (prize_cents > 0),
  status        TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'verified', 'approved', 'paid', 'rejected', 'expired')),
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
  expired_by    TEXT,
  expired_at    TEXT,
  CHECK ((verified_by IS NULL) = (verified_at IS NULL) AND (verified_by IS NULL) = (document IS NULL) AND (document IS NULL) = (document_ref IS NULL)),
  CHECK ((approved_by IS NULL) = (approved_at IS NULL) AND (approved_by IS NULL OR verified_by IS NOT NULL)),
  CHECK ((signed_off_by IS NULL) = (signed_off_at IS NULL) AND (signed_off_by IS NULL OR verified_by IS NOT NULL)),
  CHECK ((paid_by IS NULL) = (paid_at IS NULL) AND (paid_by IS NULL) = (payment_ref IS NULL) AND (paid_by IS NULL OR approved_by IS NOT NULL)),
  CHECK ((rejected_by IS NULL) = (rejected_at IS NULL) AND (rejected_by IS NULL) = (reject_reason IS NULL) AND (rejected_by IS NULL) = (rejected_from IS NULL)),
  CHECK ((status = 'rejected') = (rejected_by IS NOT NULL) AND (status = 'paid') = (paid_by IS NOT NULL)),
  CHECK (status NOT IN ('pending') OR verified_by IS NULL),
  CHECK (status <> 'verified' OR (verified_by IS NOT NULL AND approved_by IS NULL)),
  CHECK (status <> 'approved' OR approved_by IS NOT NULL),
  CHECK (approved_by IS NULL OR lower(approved_by) <> lower(verified_by)),
  CHECK ((status = 'expired') = (expired_by IS NOT NULL) AND (expired_by IS NULL) = (expired_at IS NULL))
);
INSERT INTO claims_v17 (unit_key, emission, player_id, sold_at, prize_cents, status, document, document_ref,
                        verified_by, verified_at, approved_by, approved_at, signed_off_by, signed_off_at,
                        paid_by, paid_at, payment_ref, rejected_by, rejected_at, rejected_from, reject_reason)
  SELECT unit_key, emission, player_id, sold_at, prize_cents, status, document, document_ref,
         verified_by, verified_at, approved_by, approved_at, signed_off_by, signed_off_at,
         paid_by, paid_at, payment_ref, rejected_by, rejected_at, rejected_from, reject_reason FROM claims;
DROP TABLE claims;
ALTER TABLE claims_v17 RENAME TO claims;
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
WHEN OLD.status IN ('paid', 'rejected', 'expired') OR NEW.unit_key IS NOT OLD.unit_key OR NEW.emission IS NOT OLD.emission
  OR NEW.player_id IS NOT OLD.player_id OR NEW.sold_at IS NOT OLD.sold_at OR NEW.prize_cents IS NOT OLD.prize_cents
BEGIN SELECT RAISE(ABORT, 'a paid, rejected or expired claim is final, and a claim''s unit, player and prize never change'); END;
`
