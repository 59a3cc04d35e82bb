/**
 * Opening the ledger: one SQLite file, WAL mode, foreign keys, a busy timeout, and the numbered
 * migrations. A file that is not a ledger (empty, truncated, another program's), is corrupt, or
 * comes from a newer version of the app is refused with AppError('DATABASE') and left untouched;
 * a new ledger is made only where no file exists.
 *
 * The ledger's files are never opened here except through SQLite: on Linux, closing any file
 * descriptor of a file drops every POSIX lock the process holds on it (SQLite's "How To Corrupt
 * An SQLite Database File", 2.2), so a header read with fs while a worker thread has the ledger
 * open would let another process delete the write-ahead log under the app. Only stat is used.
 */
import Database from 'better-sqlite3'
import { statSync } from 'node:fs'
import { AppError } from '../contract/errors'
import { isPostgresUrl } from './location'
import { LATEST_VERSION, MIGRATIONS } from './schema/steps.sqlite'
import { APPLICATION_ID, type Migration } from './schema/migration'
import { openPgLedger } from './pg/open'
import type { Db, OpenOptions } from './db-types'

export type { Db, OpenOptions }

function notALedger(path: string, why: string): AppError {
  return new AppError('DATABASE', `${path} is not a usable CARATS ledger: ${why}`)
}

const RESTORE = 'restore it from a backup (carats restore), or choose another --db path for a new ledger'

/** Ledgers up to this size get the whole-file check on every open. */
const FULL_CHECK_MAX_BYTES = 256 * 2 ** 20

interface FileState {
  exists: boolean
  size: number
  /** Bytes in the write-ahead log: a clean close checkpoints and removes it. */
  walBytes: number
}

function fileState(path: string): FileState {
  const st = statSync(path, { throwIfNoEntry: false })
  if (st && !st.isFile()) throw notALedger(path, 'it is not a file')
  const wal = statSync(`${path}-wal`, { throwIfNoEntry: false })
  return { exists: Boolean(st), size: st?.size ?? 0, walBytes: wal?.size ?? 0 }
}

function connect(path: string, readonly = false): Db {
  try {
    // Inside Electron the main process points CARATS_SQLITE_BINDING at the Electron-ABI build of
    // the driver (build/native/electron/); plain Node (tests, CLI, browser host) uses the default.
    const nativeBinding = process.env.CARATS_SQLITE_BINDING
    return new Database(path, { readonly, fileMustExist: readonly, ...(nativeBinding ? { nativeBinding } : {}) })
  } catch (e) {
    throw notALedger(path, errorText(e))
  }
}

const errorText = (e: unknown) => (e instanceof Error ? e.message : String(e))

function readIdentity(db: Db, path: string): { version: number; appId: number } {
  try {
    return {
      version: db.pragma('user_version', { simple: true }) as number,
      appId: db.pragma('application_id', { simple: true }) as number,
    }
  } catch (e) {
    if ((e as { code?: string }).code === 'SQLITE_NOTADB')
      throw notALedger(path, `the file is not an SQLite database; ${RESTORE}`)
    throw notALedger(path, `the file is damaged (${errorText(e)}); ${RESTORE}`)
  }
}

/** A file that is there but is not (yet) one of this app's ledgers is never taken for a new one. */
function refuseForeign(
  db: Db,
  path: string,
  file: FileState,
  id: { version: number; appId: number },
  latest: number,
): void {
  if (id.version > latest) {
    throw new AppError(
      'DATABASE',
      `${path} was written by a newer version of the app (schema ${id.version}, this app knows up to ${latest}): update the app to open it`,
    )
  }
  if (id.appId !== 0 && id.appId !== APPLICATION_ID) throw notALedger(path, 'it belongs to another application')
  if (!file.exists || id.version > 0) return
  if (file.size === 0) throw notALedger(path, `the file is empty (0 bytes), which no ledger ever is; ${RESTORE}`)
  const tables = db.prepare("SELECT count(*) FROM sqlite_master WHERE type = 'table'").pluck().get() as number
  if (tables > 0) throw notALedger(path, 'it is an SQLite database of another application')
  throw notALedger(path, `it is an empty SQLite database, not a ledger; ${RESTORE}`)
}

/** The header's page count against the file's size: a cut file is refused before any page is missed. */
function refuseTruncated(db: Db, path: string, file: FileState): void {
  if (!file.exists || file.walBytes > 0) return
  const pageSize = db.pragma('page_size', { simple: true }) as number
  const pages = db.pragma('page_count', { simple: true }) as number
  if (file.size % pageSize !== 0 || pages * pageSize > file.size) {
    throw notALedger(
      path,
      `the file is truncated (${file.size} bytes, its header says ${pages * pageSize}); ${RESTORE}`,
    )
  }
}

function setPragmas(db: Db, busyTimeoutMs: number): void {
  db.pragma('journal_mode = WAL')
  // With WAL, NORMAL keeps the file consistent after a crash; only the last commits may be lost on power failure.
  db.pragma('synchronous = NORMAL')
  db.pragma('foreign_keys = ON')
  db.pragma(`busy_timeout = ${Math.max(0, Math.floor(busyTimeoutMs))}`)
  // the sales indexes take random inserts (player, sale id): keep their pages in memory
  db.pragma('cache_size = -131072')
  // A batch of sales rewrites most of the players table (its players are spread over it): with
  // the default (a checkpoint past 1,000 pages, i.e. after each batch) every batch also copied
  // those pages back into the file and synced it. 20,000 pages (80 MB of WAL) lets the same pages
  // of many batches be copied once; the simulator's main thread spent about a quarter less.
  db.pragma(`wal_autocheckpoint = ${CHECKPOINT_PAGES}`)
  // Readers always there (the vault's rounds while a block is simulated) keep the log from being
  // started afresh, and it grows (to 330 MB); reused at that size afterwards, the imports into
  // that ledger ran a third slower (docs/benchmarks.md, the regulator's vault). So the log is cut
  // back to what a checkpoint lets grow each time it starts afresh.
  const pageSize = db.pragma('page_size', { simple: true }) as number
  db.pragma(`journal_size_limit = ${CHECKPOINT_PAGES * pageSize}`)
}

const CHECKPOINT_PAGES = 20_000

/**
 * The whole-file check reads every page (about 4 s for a ledger with a whole block sold): always
 * on the tables that describe emissions, blocks, users and the audit log, and on everything when
 * the file is small or the last process did not close it.
 */
function quickCheck(db: Db, path: string, file: FileState, fullCheckMaxBytes: number): void {
  const whole = file.walBytes > 0 || file.size <= fullCheckMaxBytes
  const small = "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT IN ('sales', 'players')"
  const targets = whole ? [null] : (db.prepare(small).pluck().all() as string[])
  for (const table of targets) {
    const check = db.pragma(table ? `quick_check("${table}")` : 'quick_check', { simple: true })
    if (check !== 'ok') throw notALedger(path, `the file is damaged (${String(check)}); ${RESTORE}`)
  }
}

/**
 * Opens the ledger at `dbPath` and brings its schema up to date: a SQLite file (made where no file
 * exists), or a team ledger on PostgreSQL when `dbPath` is a `postgresql://` URL.
 */
export function openLedger(dbPath: string, opts: OpenOptions = {}): Db {
  if (isPostgresUrl(dbPath)) return openPgLedger(dbPath, opts)
  const migrations = opts.migrations ?? MIGRATIONS
  const latest = migrations.length ? migrations[migrations.length - 1].version : 0
  const file = fileState(dbPath)
  const db = connect(dbPath)
  try {
    const id = readIdentity(db, dbPath)
    refuseForeign(db, dbPath, file, id, latest)
    refuseTruncated(db, dbPath, file)
    setPragmas(db, opts.busyTimeoutMs ?? 5000)
    if (opts.secondary) {
      if (id.version !== latest)
        throw notALedger(dbPath, `its schema is ${id.version}, not ${latest}: open it in the app first`)
      return db
    }
    if (id.version > 0) quickCheck(db, dbPath, file, opts.fullCheckMaxBytes ?? FULL_CHECK_MAX_BYTES)
    migrate(db, dbPath, migrations, id.version)
    return db
  } catch (e) {
    db.close()
    if (e instanceof AppError) throw e
    throw notALedger(dbPath, errorText(e))
  }
}

/**
 * Checks a ledger file without writing to it (a backup, before it is restored): refused as
 * openLedger refuses, and read whole by SQLite's quick check.
 */
export function inspectLedger(path: string): void {
  const file = fileState(path)
  if (!file.exists) throw notALedger(path, 'there is no such file')
  const db = connect(path, true)
  try {
    const id = readIdentity(db, path)
    refuseForeign(db, path, file, id, LATEST_VERSION)
    refuseTruncated(db, path, file)
    quickCheck(db, path, file, Number.POSITIVE_INFINITY)
  } catch (e) {
    // SQLite's own words for a damaged file (a cut schema page: "malformed database schema") name the file too
    if (e instanceof AppError) throw e
    throw notALedger(path, `the file is damaged (${errorText(e)}); ${RESTORE}`)
  } finally {
    db.close()
  }
}

/** The pending migrations and the version number commit together: a crash or a failed step leaves the file as it was. */
function migrate(db: Db, path: string, migrations: readonly Migration[], from: number): void {
  const pending = migrations.filter((m) => m.version > from)
  if (pending.length === 0) return
  let step = pending[0]
  try {
    db.transaction(() => {
      for (const m of pending) {
        step = m
        db.exec(m.sql)
      }
      db.pragma(`application_id = ${APPLICATION_ID}`)
      db.pragma(`user_version = ${pending[pending.length - 1].version}`)
    }).immediate()
  } catch (e) {
    throw new AppError(
      'DATABASE',
      `${path} has a schema (version ${from}) that this app cannot bring up to date: step ${step.version} ` +
        `(${step.description}) failed: ${errorText(e)}. The file was left as it was; restore a backup made by a released version of the app`,
    )
  }
}

export { LATEST_VERSION }
