/** Step 17 on PostgreSQL: v17.sqlite.ts, claim deadlines and expired claims. */
export const PG_V17 = /* sql */ `
ALTER TABLE emissions ADD COLUMN claim_days BIGINT NOT NULL DEFAULT 30 CHECK (claim_days BETWEEN 1 AND 3650);
ALTER TABLE claims ADD COLUMN expired_by TEXT COLLATE "C";
ALTER TABLE claims ADD COLUMN expired_at TEXT COLLATE "C";
ALTER TABLE claims DROP CONSTRAINT claims_status_check;
ALTER TABLE claims ADD CONSTRAINT claims_status_check
  CHECK (status IN ('pending', 'verified', 'approved', 'paid', 'rejected', 'expired'));
ALTER TABLE claims ADD CONSTRAINT claims_check10
  CHECK ((status = 'expired') = (expired_by IS NOT NULL) AND (expired_by IS NULL) = (expired_at IS NULL));
DROP TRIGGER claims_final ON claims;
CREATE TRIGGER claims_final BEFORE UPDATE ON claims FOR EACH ROW
WHEN (OLD.status IN ('paid', 'rejected', 'expired') OR NEW.unit_key IS DISTINCT FROM OLD.unit_key
  OR NEW.emission IS DISTINCT FROM OLD.emission OR NEW.player_id IS DISTINCT FROM OLD.player_id
  OR NEW.sold_at IS DISTINCT FROM OLD.sold_at OR NEW.prize_cents IS DISTINCT FROM OLD.prize_cents)
EXECUTE FUNCTION ledger_refuse('a paid, rejected or expired claim is final, and a claim''s unit, player and prize never change');
`
