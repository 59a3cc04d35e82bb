/** Migration 11 of a SQLite ledger (steps.sqlite.ts): leases of long jobs across workstations. */
// Leases of long jobs across workstations (services/leases.ts, docs/ledger.md): one row per
// running generate, verify, simulate (subject 'emission:N') or import ('feed:<sha256>'). They
// replace task_leases (generations only); a generation's lease of version 2 is carried over.
export const V11 = /* sql */ `
CREATE TABLE job_leases (
  kind          TEXT NOT NULL,
  subject       TEXT NOT NULL,
  holder        TEXT NOT NULL,
  host          TEXT NOT NULL,
  pid           INTEGER NOT NULL,
  started_at    INTEGER NOT NULL,
  heartbeat_at  INTEGER NOT NULL,
  PRIMARY KEY (kind, subject)
) STRICT;
INSERT INTO job_leases (kind, subject, holder, host, pid, started_at, heartbeat_at)
  SELECT 'generate', 'emission:' || emission, 'task-lease', host, pid, heartbeat_at, heartbeat_at FROM task_leases;
DROP TABLE task_leases;
`
