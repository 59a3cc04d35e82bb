/**
 * A ledger's connection as every layer above sees it (one API, better-sqlite3's, on both engines:
 * PostgreSQL's PgDb speaks it too), and how it is opened. Apart from db.ts, so that the engines'
 * openers (db.ts, pg/open.ts) share them without importing each other.
 */
import type Database from 'better-sqlite3'
import type { Migration } from './schema/migration'

export type Db = Database.Database

/** Which kind of constraint a failed statement broke, on either engine (constraint.ts). */
export type ConstraintKind = 'unique' | 'primary-key' | 'foreign-key' | 'check' | 'not-null' | 'trigger'

export interface OpenOptions {
  /** Migrations to apply (tests pass extra ones to check the refusal of newer files). */
  migrations?: readonly Migration[]
  /** Files up to this size are checked whole on every open (default 256 MiB). */
  fullCheckMaxBytes?: number
  /**
   * A further connection of a process that has opened the ledger already (the simulation's
   * worker thread): the file is not checked again, and its schema must already be this app's.
   */
  secondary?: boolean
  /** How long a write waits for another connection's transaction (default 5 s; the command line waits longer). */
  busyTimeoutMs?: number
}
