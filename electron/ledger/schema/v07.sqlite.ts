/** Migration 7 of a SQLite ledger (steps.sqlite.ts): players found ignoring case; the audit log filtered and sorted on indexes. */
// Lists that can grow, searched and sorted on indexes. A player is found ignoring case by a
// prefix range on the name under NOCASE (which folds ASCII letters only: account ids may hold
// others, matched as typed); the name itself breaks ties between ids that differ only by case.
// The audit log's filters (a prefix of the actor, the action, the object, ignoring case; a
// range of days) and its sorts each have an index; an index entry ends with the row's seq, so
// "by actor, then by seq" is read from the index in order. The exact-case actor index goes:
// nothing looks an actor up by its exact case any more. (IF [NOT] EXISTS: a file whose version
// was set back, as a test of migration 5 does, is brought up again.)
export const V7 = /* sql */ `
CREATE INDEX IF NOT EXISTS players_by_name_nocase ON players(name COLLATE NOCASE, name);
CREATE INDEX IF NOT EXISTS audit_by_actor_nocase ON audit(actor COLLATE NOCASE);
CREATE INDEX IF NOT EXISTS audit_by_action ON audit(action COLLATE NOCASE);
CREATE INDEX IF NOT EXISTS audit_by_object ON audit(object COLLATE NOCASE);
CREATE INDEX IF NOT EXISTS audit_by_at ON audit(at);
DROP INDEX IF EXISTS audit_by_actor;
`
