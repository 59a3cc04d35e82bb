/**
 * The ledger's schema on PostgreSQL: numbered steps, as steps.sqlite.ts is for SQLite, with the same
 * version numbers. `ledger_identity` (one row) holds what SQLite keeps in PRAGMA application_id
 * and user_version; each step's SQL ends by writing its version there, so that running a step
 * whole, in one transaction, is all a runner does. How the two schemas correspond, and the rule
 * for the next migration (its SQLite and its PostgreSQL SQL, same number): docs/ledger.md.
 */
import { LATEST_VERSION } from './steps.sqlite'
import { APPLICATION_ID, type Migration } from './migration'
import { PG_V10 } from './v10.pg'
import { PG_V11 } from './v11.pg'
import { PG_V12 } from './v12.pg'
import { PG_V13 } from './v13.pg'
import { PG_V14 } from './v14.pg'
import { PG_V15 } from './v15.pg'
import { PG_V16 } from './v16.pg'
import { PG_V17 } from './v17.pg'
import { PG_V18 } from './v18.pg'
import { PG_V19 } from './v19.pg'

/**
 * The key of the schema lock (`pg_advisory_xact_lock*`, the one-bigint form; the two-int form is
 * another key space, which row-locks.ts uses for its subjects). Every transaction takes it shared,
 * held until commit or rollback; a schema step takes it exclusively, so that no transaction runs
 * beside a change of the tables. Until issue 30 every write transaction took it exclusively (one
 * writer at a time): an app of that version still does, so it and a newer one never write side by
 * side. Advisory locks are per database, so two ledgers on one server do not wait for each other.
 * The value is "CART" in ASCII, as the application id: another program of the same database is
 * unlikely to pick it. Never change it: two versions of the app would then write at once.
 */
export const PG_ADVISORY_LOCK_KEY = 0x43415254

/** One more statement for a step: the version it brings the database to. */
function setVersion(version: number): string {
  return `\nUPDATE ledger_identity SET schema_version = ${version};\n`
}

/**
 * The identity row, made by the first step before anything else (application id "CART", version 0
 * until the step ends). `writes` counts the write transactions committed: PRAGMA data_version's
 * counterpart, which pg-db.ts moves with each commit and reads to see other connections' writes.
 */
const IDENTITY = /* sql */ `
CREATE TABLE ledger_identity (
  application_id BIGINT NOT NULL,
  schema_version BIGINT NOT NULL,
  writes         BIGINT NOT NULL DEFAULT 0
);
-- one row at most: every row has the same value of the expression
CREATE UNIQUE INDEX ledger_identity_one_row ON ledger_identity ((true));
INSERT INTO ledger_identity (application_id, schema_version) VALUES (${APPLICATION_ID}, 0);
`

function step(version: number, description: string, sql: string): Migration {
  return { version, description, sql: sql + setVersion(version) }
}

/**
 * The steps, oldest first. A PostgreSQL ledger starts at 10 (the SQLite ledger's schema when the
 * team ledger came): its first step makes the whole of it at once.
 */
export const PG_MIGRATIONS: readonly Migration[] = [
  step(10, 'the ledger as of schema 10', IDENTITY + PG_V10),
  step(11, 'leases of long jobs across workstations', PG_V11),
  step(12, "players' totals read through one view; a team ledger's bulk writes append them", PG_V12),
  step(13, 'rows sealed to the audit log; accounts compared by skeleton and confirmed by a second person', PG_V13),
  step(14, 'the commit-first key ceremony; abandoned ceremonies', PG_V14),
  step(15, "players' sales found by player and time of sale on an index, no longer chained", PG_V15),
  step(16, "the regulator's read-only role", PG_V16),
  step(17, 'claim deadlines and expired claims', PG_V17),
  step(18, "claims: the winner's identity, the payment's method, the assignee", PG_V18),
  step(19, 'claims read per block and per status on indexes', PG_V19),
]

/**
 * The version a PostgreSQL ledger is brought to: the SQLite schema's. The last of PG_MIGRATIONS
 * must bring it there (schema/engines.test.ts checks it): a SQLite migration comes with its PostgreSQL step.
 */
export const PG_SCHEMA_VERSION = LATEST_VERSION
