/**
 * Backups and restores of a team ledger on PostgreSQL (docs/ledger.md). A backup is
 * `pg_dump --format=custom` of the ledger's database: one consistent snapshot taken while the
 * workstations go on writing, in PostgreSQL's own archive format, which any lottery DBA can read
 * (pg_restore --list) and restore. Before it is called good, it is restored into a scratch
 * database on the same server and checked there with the whole ledger check, then the scratch
 * database is dropped. A restore goes into an EMPTY database only (a database that holds tables
 * is refused, nothing touched), then is checked. The files beside a backup are those of a SQLite
 * backup: <backup>.key and <backup>.audit-checkpoint.
 */
import { spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { closeSync, copyFileSync, openSync, readSync, renameSync, rmSync, statSync } from 'node:fs'
import { AppError } from '../../contract/errors'
import { displayLocation } from '../../ledger/location'
import { PgDb } from '../../ledger/pg/pg-db'
import { checkpointFilePath } from '../../ledger/checkpoint'
import { keyFilePath, readKeyFile, keyProblems, writeKeyFile } from '../../ledger/keystore'
import type { RestoreOptions } from './context'
import { pathExists } from '../common'

/** The first bytes of a file: a pg_dump archive ("PGDMP"), a SQLite file, or something else. */
export function backupFormat(path: string): 'pg_dump' | 'sqlite' | 'unknown' {
  const head = Buffer.alloc(16)
  const fd = openSync(path, 'r')
  try {
    readSync(fd, head, 0, 16, 0)
  } finally {
    closeSync(fd)
  }
  if (head.subarray(0, 5).toString('latin1') === 'PGDMP') return 'pg_dump'
  if (head.toString('latin1') === 'SQLite format 3\0') return 'sqlite'
  return 'unknown'
}

/** Runs pg_dump or pg_restore; a missing program, or a failure, is said with what to do. */
function runTool(tool: 'pg_dump' | 'pg_restore', args: string[]): string {
  const r = spawnSync(tool, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })
  if (r.error && (r.error as NodeJS.ErrnoException).code === 'ENOENT') {
    throw new AppError(
      'ILLEGAL_STATE',
      `${tool} is not installed on this workstation: a team ledger is backed up and restored with PostgreSQL's own tools; install the postgresql-client package (apt-get install postgresql-client), of the server's major version or newer`,
    )
  }
  if (r.error) throw new AppError('DATABASE', `${tool} could not run: ${r.error.message}`)
  if (r.status !== 0) {
    const why = (r.stderr || r.stdout || '').trim().split('\n').slice(0, 5).join('; ')
    throw new AppError(
      'DATABASE',
      `${tool} failed (exit ${r.status}): ${why.replace(/postgres(ql)?:\/\/[^\s"']+/gi, (u) => displayLocation(u))}`,
    )
  }
  return r.stdout
}

/** pg_dump of the ledger at `url` into `dest` (custom format, no owners or privileges: restorable by another role). */
export function dumpInto(url: string, dest: string): void {
  const tmp = `${dest}.partial`
  rmSync(tmp, { force: true })
  try {
    runTool('pg_dump', ['--format=custom', '--no-owner', '--no-privileges', `--file=${tmp}`, `--dbname=${url}`])
    renameSync(tmp, dest)
  } catch (e) {
    rmSync(tmp, { force: true })
    throw e
  }
}

/** The archive's table of contents, read whole by pg_restore: a truncated or foreign file is refused. */
export function archiveEntries(file: string): number {
  const list = runTool('pg_restore', ['--list', file])
  return list.split('\n').filter((l) => /^\d+;/.test(l)).length
}

/** pg_restore of `file` into the database at `url` (empty), in one transaction: all or nothing. */
export function restoreInto(file: string, url: string): void {
  runTool('pg_restore', [
    '--no-owner',
    '--no-privileges',
    '--exit-on-error',
    '--single-transaction',
    `--dbname=${url}`,
    file,
  ])
}

/** `url` with its database replaced by `database` (host, port, user and options kept). */
export function withDatabase(url: string, database: string): string {
  const u = new URL(url)
  u.pathname = `/${encodeURIComponent(database)}`
  return u.toString()
}

const databaseOf = (url: string) => decodeURIComponent(new URL(url).pathname.slice(1))

/** The tables the database at `url` holds (its current schema); the database must exist. */
export function tablesIn(url: string): number {
  let db: PgDb
  try {
    db = new PgDb(displayLocation(url), url)
  } catch (e) {
    throw new AppError(
      'NOT_FOUND',
      `cannot reach ${displayLocation(url)}: ${(e as Error).message}. Create the database first (CREATE DATABASE …), empty, then restore into it`,
    )
  }
  try {
    return db.prepare('SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()').pluck().get() as number
  } finally {
    db.close()
  }
}

/** Refuses a target that holds tables: a restore never mixes into, nor replaces, a database. */
export function refuseNotEmpty(url: string): void {
  const n = tablesIn(url)
  if (n > 0) {
    throw new AppError(
      'CONFLICT',
      `${displayLocation(url)} holds ${n} table${n > 1 ? 's' : ''}: a team ledger is restored into an EMPTY database only (nothing was touched); create one (CREATE DATABASE …) and give its URL`,
    )
  }
}

/**
 * A scratch database beside the ledger's (same server), made through the ledger's connection, for
 * `use`; dropped afterwards whatever happens. Needs the CREATEDB privilege.
 */
export async function withScratchDatabase<R>(
  ledger: PgDb | { exec(sql: string): unknown },
  url: string,
  use: (scratchUrl: string) => Promise<R>,
): Promise<R> {
  const name = `${databaseOf(url)}_check_${randomBytes(4).toString('hex')}`.slice(-63)
  try {
    ledger.exec(`CREATE DATABASE "${name}"`)
  } catch (e) {
    throw new AppError(
      'DATABASE',
      `the backup was written but cannot be checked: a scratch database could not be made on the server (${(e as Error).message}); give this account the CREATEDB privilege, or check the file with pg_restore --list`,
    )
  }
  try {
    return await use(withDatabase(url, name))
  } finally {
    ledger.exec(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)
  }
}

export const fileBytes = (path: string) => statSync(path).size

/** A pg_dump backup restored into an empty database; its key and checkpoint put where the team ledger keeps them. */
export function restoreTeamLedger(o: RestoreOptions): { movedAside: null } {
  const format = backupFormat(o.backup)
  if (format === 'sqlite') {
    throw new AppError(
      'BAD_ARGUMENTS',
      `${o.backup} is a backup of a SQLite ledger file: restore it into a file (--db <file>), not into the PostgreSQL database ${displayLocation(o.target)}; a ledger is not moved across engines`,
    )
  }
  if (format !== 'pg_dump')
    throw new AppError(
      'BAD_ARGUMENTS',
      `${o.backup} is not a backup of a CARATS ledger (neither a pg_dump archive nor a SQLite file)`,
    )
  if (o.replace)
    throw new AppError(
      'BAD_ARGUMENTS',
      '--replace is for a ledger file: a team ledger is restored into a new, empty database (nothing is replaced)',
    )
  archiveEntries(o.backup)
  const keyFrom = o.keyFile ?? `${o.backup}.key`
  const key = readKeyFile(keyFrom)
  if (!key) throw keyProblems.missing(keyFrom, null)
  const keyTo = keyFilePath(o.target)
  const theirs = readKeyFile(keyTo)
  if (theirs && !theirs.equals(key))
    throw new AppError(
      'CONFLICT',
      `${keyTo} holds another key than the backup's: give a new key file (--key-file before the command, or CARATS_KEY_FILE); nothing was touched`,
    )
  refuseNotEmpty(o.target)
  restoreInto(o.backup, o.target)
  if (!theirs) writeKeyFile(keyTo, key)
  const checkpoint = `${o.backup}.audit-checkpoint`
  if (pathExists(checkpoint)) copyFileSync(checkpoint, checkpointFilePath(o.target, keyTo))
  return { movedAside: null }
}
