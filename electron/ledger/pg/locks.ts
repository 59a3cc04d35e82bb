/**
 * The advisory lock every write transaction on a PostgreSQL ledger takes first (held until it
 * commits or rolls back): PostgreSQL's counterpart of SQLite's one writer per file. Its key and
 * why it never changes: PG_ADVISORY_LOCK_KEY in schema.ts.
 */
export { PG_ADVISORY_LOCK_KEY as LEDGER_WRITE_LOCK } from './schema'
