/**
 * Opening a team ledger on PostgreSQL: the database is reached, recognised as this app's (its
 * `ledger_identity` row), or made one when it is empty, then brought up to this app's schema in one
 * transaction under the write lock, so that two workstations opening a new database at once do
 * not both build it. A database of another application, or of a newer version, is refused and
 * left untouched.
 */
import { AppError } from '../../contract/errors'
import { APPLICATION_ID } from '../schema/migration'
import type { Db, OpenOptions } from '../db-types'
import { displayLocation } from '../location'
import { clientConfig } from './client-config'
import { PgDb } from './pg-db'
import { PG_MIGRATIONS, PG_SCHEMA_VERSION } from '../schema/steps.pg'

/**
 * How long a write waits for a lock another workstation's transaction holds, by default: a minute,
 * as the command line waits on a file. Writers wait only for what they truly share (a block's
 * cursor while another workstation sells from it, the same players' totals at a batch's end):
 * a sale refused after SQLite's 5 s would be a refusal of the team's busiest moments.
 */
const TEAM_WRITE_WAIT_MS = 60_000

const errorText = (e: unknown) => (e instanceof Error ? e.message : String(e))

function notALedger(url: string, why: string): AppError {
  return new AppError('DATABASE', `${displayLocation(url)} is not a usable CARATS ledger: ${why}`)
}

/** The URL read as the connection will read it, before its thread starts: a malformed one said at once. */
function checkUrl(url: string): void {
  try {
    clientConfig(url)
  } catch (e) {
    throw new AppError(
      'DATABASE',
      `${displayLocation(url)} is not a valid PostgreSQL URL (${errorText(e)}): write it as ` +
        'postgresql://user@host:port/database, or postgresql:///database?host=/var/run/postgresql for the local server',
    )
  }
}

function connect(url: string): PgDb {
  checkUrl(url)
  try {
    return new PgDb(displayLocation(url), url)
  } catch (e) {
    throw new AppError(
      'DATABASE',
      `cannot reach the PostgreSQL ledger ${displayLocation(url)}: ${errorText(e)}. ` +
        'Check the URL, that the server runs, and that this account may connect to that database',
    )
  }
}

interface Identity {
  appId: number
  version: number
}

function readIdentity(db: PgDb): Identity | null {
  const table = db.prepare("SELECT to_regclass('ledger_identity') IS NOT NULL").pluck().get()
  if (!table) return null
  const row = db.prepare('SELECT application_id AS "appId", schema_version AS version FROM ledger_identity').get() as
    Identity | undefined
  return row ?? { appId: 0, version: 0 }
}

function tableCount(db: PgDb): number {
  return db.prepare('SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()').pluck().get() as number
}

function refuseForeign(db: PgDb, url: string, id: Identity | null, latest: number): void {
  if (id === null) {
    if (tableCount(db) > 0)
      throw notALedger(
        url,
        'the database holds tables of another application; give the URL of an empty database for a new ledger',
      )
    return
  }
  if (id.appId !== APPLICATION_ID) throw notALedger(url, 'it belongs to another application')
  if (id.version > latest) {
    throw new AppError(
      'DATABASE',
      `${displayLocation(url)} was written by a newer version of the app (schema ${id.version}, this app knows up to ${latest}): update the app to open it`,
    )
  }
}

/**
 * Builds or brings the schema up to date, holding the schema lock alone (an exclusive
 * transaction: pg-db.ts); the identity is read again under it (another workstation may have done it).
 */
function migrate(db: PgDb, url: string): void {
  db.transaction(() => {
    const id = readIdentity(db)
    const from = id?.version ?? 0
    for (const m of PG_MIGRATIONS.filter((x) => x.version > from)) {
      try {
        db.exec(m.sql)
      } catch (e) {
        throw new AppError(
          'DATABASE',
          `${displayLocation(url)}: schema step ${m.version} (${m.description}) failed: ${errorText(e)}. Nothing was changed`,
        )
      }
    }
  }).exclusive()
}

export function openPgLedger(url: string, opts: OpenOptions = {}): Db {
  const db = connect(url)
  try {
    const id = readIdentity(db)
    refuseForeign(db, url, id, PG_SCHEMA_VERSION)
    db.pragma(`busy_timeout = ${opts.busyTimeoutMs ?? TEAM_WRITE_WAIT_MS}`)
    if (opts.secondary) {
      if (id?.version !== PG_SCHEMA_VERSION)
        throw notALedger(url, `its schema is ${id?.version ?? 0}, not ${PG_SCHEMA_VERSION}: open it in the app first`)
    } else if (id?.version !== PG_SCHEMA_VERSION) {
      migrate(db, url)
    }
    return db as unknown as Db
  } catch (e) {
    db.close()
    throw e instanceof AppError ? e : notALedger(url, errorText(e))
  }
}
