/**
 * The advisory lock every write transaction on a PostgreSQL ledger takes first (held until it
 * commits or rolls back): PostgreSQL's counterpart of SQLite's one writer per file. Its key is
 * the ledger's application id, "CART".
 */
export const LEDGER_WRITE_LOCK = 0x43415254
