/** Migration 2 of a SQLite ledger (steps.sqlite.ts): leases of long tasks. */
// Which process is generating an emission, and when it was last seen: a second process opening
// the ledger (the CLI while the app generates) must not take a live generation for a crashed one.
export const V2 = /* sql */ `
CREATE TABLE task_leases (
  emission      INTEGER PRIMARY KEY REFERENCES emissions(emission),
  pid           INTEGER NOT NULL,
  host          TEXT NOT NULL,
  heartbeat_at  INTEGER NOT NULL
) STRICT;
`
