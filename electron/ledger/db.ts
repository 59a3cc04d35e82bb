/**
 * Opening the ledger: one SQLite file, WAL mode, foreign keys, a busy timeout, and the numbered
 * migrations. A file that is not a ledger, is corrupt, or comes from a newer version of the app
 * is refused with AppError('DATABASE') and left untouched.
 */
import Database from 'better-sqlite3'
import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs'
import { AppError } from '../contract/errors'
import { APPLICATION_ID, LATEST_VERSION, MIGRATIONS, type Migration } from './migrations'

export type Db = Database.Database

const SQLITE_MAGIC = 'SQLite format 3\0'

function readHeader(path: string): string {
  const fd = openSync(path, 'r')
  try {
    const buf = Buffer.alloc(16)
    const n = readSync(fd, buf, 0, 16, 0)
    return buf.subarray(0, n).toString('latin1')
  } finally {
    closeSync(fd)
  }
}

function notALedger(path: string, why: string): AppError {
  return new AppError('DATABASE', `${path} is not a usable CARATS ledger: ${why}`)
}

/** Ledgers up to this size get the whole-file check on every open. */
const FULL_CHECK_MAX_BYTES = 256 * 2 ** 20

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
}

/** Opens (creating if needed) the ledger at `dbPath` and brings its schema up to date. */
export function openLedger(dbPath: string, opts: OpenOptions = {}): Db {
  const migrations = opts.migrations ?? MIGRATIONS
  const latest = migrations.length ? migrations[migrations.length - 1].version : 0
  if (existsSync(dbPath)) {
    const st = statSync(dbPath)
    if (!st.isFile()) throw notALedger(dbPath, 'it is not a file')
    // An empty file is what some tools leave behind when they create a database: treat it as new.
    if (st.size > 0 && readHeader(dbPath) !== SQLITE_MAGIC) throw notALedger(dbPath, 'the file is not an SQLite database')
  }

  // A clean close checkpoints and removes the write-ahead log; one left with content means the
  // last process died (or another is using the file now).
  const wal = `${dbPath}-wal`
  const uncleanShutdown = existsSync(wal) && statSync(wal).size > 0
  const fileSize = existsSync(dbPath) ? statSync(dbPath).size : 0

  let db: Db
  try {
    // Inside Electron the main process points CARATS_SQLITE_BINDING at the Electron-ABI build of
    // the driver (build/native/electron/); plain Node (tests, CLI, browser host) uses the default.
    const nativeBinding = process.env.CARATS_SQLITE_BINDING
    db = new Database(dbPath, nativeBinding ? { nativeBinding } : {})
  } catch (e) {
    throw notALedger(dbPath, e instanceof Error ? e.message : String(e))
  }
  try {
    let version: number
    let appId: number
    try {
      version = db.pragma('user_version', { simple: true }) as number
      appId = db.pragma('application_id', { simple: true }) as number
    } catch (e) {
      throw notALedger(dbPath, `the file is damaged (${e instanceof Error ? e.message : String(e)})`)
    }
    if (version > latest) {
      throw new AppError(
        'DATABASE',
        `${dbPath} was written by a newer version of the app (schema ${version}, this app knows up to ${latest}): update the app to open it`,
      )
    }
    if (appId !== 0 && appId !== APPLICATION_ID) throw notALedger(dbPath, 'it belongs to another application')
    if (appId === 0 && version === 0) {
      const tables = db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table'").get() as { n: number }
      if (tables.n > 0) throw notALedger(dbPath, 'it is an SQLite database of another application')
    }

    db.pragma('journal_mode = WAL')
    // With WAL, NORMAL keeps the file consistent after a crash; only the last commits may be lost on power failure.
    db.pragma('synchronous = NORMAL')
    db.pragma('foreign_keys = ON')
    db.pragma('busy_timeout = 5000')
    // the sales indexes take random inserts (player, sale id): keep their pages in memory
    db.pragma('cache_size = -131072')
    // A batch of sales rewrites most of the players table (its players are spread over it): with
    // the default (a checkpoint past 1,000 pages, i.e. after each batch) every batch also copied
    // those pages back into the file and synced it. 20,000 pages (80 MB of WAL) lets the same pages
    // of many batches be copied once; the simulator's main thread spent about a quarter less.
    db.pragma('wal_autocheckpoint = 20000')

    if (opts.secondary) {
      if (version !== latest) throw notALedger(dbPath, `its schema is ${version}, not ${latest}: open it in the app first`)
      return db
    }
    if (version > 0) {
      // The whole-file check reads every page (about 4 s for a ledger with a whole block sold):
      // always on the tables that describe emissions, blocks, users and the audit log, and on
      // everything when the file is small or the last process did not close it.
      const whole = uncleanShutdown || fileSize <= (opts.fullCheckMaxBytes ?? FULL_CHECK_MAX_BYTES)
      const targets = whole ? [null] : (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT IN ('sales', 'players')").pluck().all() as string[])
      for (const table of targets) {
        const check = db.pragma(table ? `quick_check("${table}")` : 'quick_check', { simple: true })
        if (check !== 'ok') throw notALedger(dbPath, `the file is damaged (${String(check)}); restore it from a backup`)
      }
    }
    migrate(db, migrations, version)
    return db
  } catch (e) {
    db.close()
    if (e instanceof AppError) throw e
    throw notALedger(dbPath, e instanceof Error ? e.message : String(e))
  }
}

function migrate(db: Db, migrations: readonly Migration[], from: number): void {
  for (const m of migrations) {
    if (m.version <= from) continue
    // Each migration and its version number commit together: a crash leaves the old or the new schema.
    db.transaction(() => {
      db.exec(m.sql)
      db.pragma(`application_id = ${APPLICATION_ID}`)
      db.pragma(`user_version = ${m.version}`)
    }).immediate()
  }
}

export { LATEST_VERSION }
