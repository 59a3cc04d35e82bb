/** Migration 10 of a SQLite ledger (steps.sqlite.ts): prize claims, claim thresholds, the register of related parties. */
// Prize claims (electron/services/claims/README.md): each emission's threshold, from which a sold unit's prize is
// claimed in person rather than credited; one claim per such unit, written with its sale, that
// moves pending → verified → approved → paid (or rejected before paid), each step once, by whom
// and when. Related parties: player accounts linked to staff or retailers, whose claims an
// auditor signs off. Neither claims nor the register's entries are ever deleted.
export const V10 = /* sql */ `
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
