/** A schema step, the same shape on both engines (steps.sqlite.ts, steps.pg.ts). */
export interface Migration {
  version: number
  description: string
  sql: string
}

/**
 * A ledger's mark, so that another program's database is not mistaken for one: SQLite's `PRAGMA
 * application_id`, PostgreSQL's `ledger_identity.application_id`. "CART" in ASCII.
 */
export const APPLICATION_ID = 0x43415254
