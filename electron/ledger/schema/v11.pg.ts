/**
 * Step 11 on PostgreSQL: v11.sqlite.ts (leases of long jobs across workstations,
 * services/leases.ts), task_leases' rows carried over as SQLite's step does.
 */
export const PG_V11 = /* sql */ `
CREATE TABLE job_leases (
  kind         TEXT COLLATE "C" NOT NULL,
  subject      TEXT COLLATE "C" NOT NULL,
  holder       TEXT COLLATE "C" NOT NULL,
  host         TEXT COLLATE "C" NOT NULL,
  pid          BIGINT NOT NULL,
  started_at   BIGINT NOT NULL,
  heartbeat_at BIGINT NOT NULL,
  PRIMARY KEY (kind, subject)
);
INSERT INTO job_leases (kind, subject, holder, host, pid, started_at, heartbeat_at)
  SELECT 'generate', 'emission:' || emission, 'task-lease', host, pid, heartbeat_at, heartbeat_at FROM task_leases;
DROP TABLE task_leases;
`
