/**
 * The schema lock of a PostgreSQL ledger: every transaction takes it shared (they go on side by
 * side), a schema step exclusively (open.ts: it waits for every transaction, and they for it).
 * Its key, and why it never changes: PG_ADVISORY_LOCK_KEY in schema.ts. The locks of what
 * writers share are electron/ledger/row-locks.ts's.
 */
export { PG_ADVISORY_LOCK_KEY as SCHEMA_LOCK } from '../schema/steps.pg'
