/** Migration 6 of a SQLite ledger (steps.sqlite.ts): verdicts of block verifications. */
// Verdicts of block verification (services/emissions/verifications.ts): one row per verification of an
// emission, one per block it checked. A verification is written as it goes (each block's verdict
// with the block's new status) and closed with its outcome; both are history, never rewritten.
export const V6 = /* sql */ `
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
