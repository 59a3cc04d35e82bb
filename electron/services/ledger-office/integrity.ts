/**
 * The ledger as a system of record: its whole check (the engine's integrity, the audit chain and its
 * checkpoint, every counter recomputed and every sold unit's prize re-derived), a backup that is
 * a consistent copy taken while the app runs (SQLite: VACUUM INTO reads one snapshot; PostgreSQL:
 * pg_dump, backup.pg.ts), written with its key and checkpoint and checked before it is
 * called good, and the restore of such a backup.
 */
import { copyFileSync, renameSync, rmSync, statSync } from 'node:fs'
import Database from 'better-sqlite3'
import { Worker } from 'node:worker_threads'
import { AppError } from '../../contract/errors'
import type { BackupReport, LedgerCheckReport, RestoreReport } from '../../contract/types'
import { checkpointFilePath, type CheckpointRead } from '../../ledger/checkpoint'
import { inspectLedger, openLedger, type Db } from '../../ledger/db'
import { keyFilePath, readKeyFile, keyProblems, writeKeyFile, type KeyStore } from '../../ledger/keystore'
import { createAuditService, type AuditService } from '../audit'
import { createCatalog, type Catalog } from '../catalog'
import { type Clock, iso } from '../common'
import { workerEntry } from '../../threads/entry'
import { engineOf } from '../../ledger/dialect'
import { displayLocation, isPostgresUrl } from '../../ledger/location'
import { checkLedgerData } from './check'
import { archiveEntries, backupFormat, dumpInto, refuseNotEmpty, restoreInto, withScratchDatabase } from './backup.pg'
import { pgIntegrityOf } from './integrity.pg'
import { commitFileRestore, finishInterruptedRestore, stageFiles, type FileRestore } from './restore'

export interface CheckDeps {
  db: Db
  catalog: Catalog
  audit: AuditService
  clock: Clock
}

export interface CheckOptions {
  /** Re-derive every sold unit's prize from its block's secret (default true). */
  prizes?: boolean
  /** Judge the log against this checkpoint instead of its own (a copy against its ledger's). */
  against?: CheckpointRead
  progress?: (done: number, total: number) => void
}

const verdict = (messages: string[]): LedgerCheckReport['integrity'] => ({
  engine: 'sqlite',
  ok: messages.length === 1 && messages[0] === 'ok',
  messages,
})

/** SQLite's own check of every page and index, on this connection. */
export function integrityOf(db: Db): LedgerCheckReport['integrity'] {
  return verdict((db.pragma('integrity_check(20)') as { integrity_check: string }[]).map((r) => r.integrity_check))
}

/** The same on a worker thread with a read-only connection of its own, to run beside other work. */
function integrityBeside(dbPath: string): Promise<LedgerCheckReport['integrity']> {
  return new Promise((resolve, reject) => {
    const entry = workerEntry('integrity-worker')
    const worker = new Worker(entry.file, { eval: entry.eval, workerData: { dbPath } })
    let answer: { messages?: string[]; error?: string } = { error: 'the worker stopped without an answer' }
    worker.once('message', (m: typeof answer) => (answer = m))
    worker.once('error', (e) => (answer = { error: e.message }))
    // settled once the worker has ended, its connection closed
    worker.once('exit', () =>
      answer.messages
        ? resolve(verdict(answer.messages))
        : reject(new AppError('DATABASE', `the integrity check could not run: ${answer.error}`)),
    )
  })
}

/**
 * The whole check: SQLite's integrity check (on a worker thread, beside the rest), the audit
 * chain and its checkpoint, then every counter and, with `prizes`, every sold unit's prize.
 */
export async function checkLedger(
  deps: CheckDeps & { dbPath: string },
  opts: CheckOptions = {},
): Promise<LedgerCheckReport> {
  const started = performance.now()
  // PostgreSQL has no integrity_check: its catalog and indexes are checked instead (integrity.pg.ts)
  const pending =
    engineOf(deps.db) === 'postgres' ? Promise.resolve(pgIntegrityOf(deps.db)) : integrityBeside(deps.dbPath)
  pending.catch(() => {})
  const audit = deps.audit.verify(opts.against)
  const records = deps.audit.checkRecords()
  const data = checkLedgerData(deps, { prizes: opts.prizes ?? true, progress: opts.progress })
  const integrity = await pending
  const seconds = Number(((performance.now() - started) / 1000).toFixed(2))
  const ok = integrity.ok && audit.ok && records.findings.length === 0 && data.ok
  return { ok, at: iso(deps.clock()), seconds, integrity, audit, records, data }
}

/** What the audit log keeps of a check: enough to show the last verdict. */
export function checkSummary(r: LedgerCheckReport): Record<string, unknown> {
  return {
    ok: r.ok,
    seconds: r.seconds,
    integrity: r.integrity.ok,
    audit: r.audit.ok,
    records: r.records.findings.length,
    checkpoint: r.audit.checkpoint.status,
    salesRows: r.data.salesRows,
    unitsRederived: r.data.unitsRederived,
    problems: r.data.problemCount,
  }
}

const exists = (path: string) => statSync(path, { throwIfNoEntry: false }) !== undefined

function refuseExisting(...paths: string[]): void {
  for (const p of paths)
    if (exists(p))
      throw new AppError(
        'CONFLICT',
        `${p} already exists: choose a new file name for the backup (nothing is overwritten)`,
      )
}

/** A consistent copy of the open ledger at `dest`, from one snapshot, without stopping writers. */
function copyInto(db: Db, dest: string): void {
  try {
    db.prepare('VACUUM INTO ?').run(dest)
  } catch (e) {
    rmSync(dest, { force: true })
    throw new AppError(
      'BAD_ARGUMENTS',
      `cannot write the copy to ${dest}: ${(e as Error).message}; check the folder exists and is writable`,
    )
  }
}

/** The copy checked as a ledger of its own; if its log reaches its ledger's checkpoint, it gets its own. */
async function checkCopy(
  dest: string,
  keys: KeyStore,
  clock: Clock,
  against: CheckpointRead,
  prizes: boolean,
  keyFile?: string,
): Promise<LedgerCheckReport> {
  const copy = openLedger(dest)
  try {
    const catalog = createCatalog({ db: copy, keys })
    const audit = createAuditService({ db: copy, clock, keys, dbPath: dest, keyFile, startCheckpoint: true })
    const report = await checkLedger({ db: copy, dbPath: dest, catalog, audit, clock }, { prizes, against })
    if (report.audit.ok) audit.flushCheckpoint()
    // one self-contained file, as an archive should be (no write-ahead log beside it)
    copy.pragma('journal_mode = DELETE')
    return report
  } finally {
    copy.close()
  }
}

export interface BackupDeps {
  db: Db
  dbPath: string
  keys: KeyStore
  audit: AuditService
  clock: Clock
}

/** A backup's files: the copy, its key and its checkpoint beside it (whatever key file the ledger itself uses). */
const backupFiles = (dest: string) => ({
  file: dest,
  keyFile: `${dest}.key`,
  checkpointFile: `${dest}.audit-checkpoint`,
})

/**
 * A team ledger's backup: pg_dump, its table of contents read whole, then restored into a scratch
 * database and checked there (backup.pg.ts); the copy's checkpoint is put beside the backup.
 */
async function dumpAndCheck(
  deps: BackupDeps,
  files: ReturnType<typeof backupFiles>,
  against: CheckpointRead,
): Promise<LedgerCheckReport> {
  dumpInto(deps.dbPath, files.file)
  deps.keys.saveCopy(files.keyFile)
  archiveEntries(files.file)
  return withScratchDatabase(deps.db, deps.dbPath, async (scratch) => {
    restoreInto(files.file, scratch)
    const check = await checkCopy(scratch, deps.keys, deps.clock, against, false, files.keyFile)
    // the copy's audit service wrote its checkpoint beside the key it was given (a team ledger's rule)
    const written = checkpointFilePath(scratch, files.keyFile)
    if (exists(written)) renameSync(written, files.checkpointFile)
    return check
  })
}

export async function backupLedger(deps: BackupDeps, actor: string, dest: string): Promise<BackupReport> {
  const files = backupFiles(dest)
  refuseExisting(files.file, files.keyFile, files.checkpointFile)
  if (deps.keys.problem) throw deps.keys.problem
  // read before the snapshot: the copy holds at least the entries this checkpoint counts
  const against = deps.audit.readCheckpoint()
  let check: LedgerCheckReport
  if (engineOf(deps.db) === 'postgres') check = await dumpAndCheck(deps, files, against)
  else {
    copyInto(deps.db, dest)
    deps.keys.saveCopy(files.keyFile)
    check = await checkCopy(dest, deps.keys, deps.clock, against, false)
  }
  const bytes = statSync(dest).size
  deps.audit.record(actor, 'ledger.backup', 'ledger', {
    file: dest,
    bytes,
    entries: check.audit.entries,
    ...checkSummary(check),
  })
  return { ...files, bytes, at: check.at, check }
}

export interface RestoreOptions {
  backup: string
  target: string
  /** The backup's key file (default `<backup>.key`). */
  keyFile?: string
  /** Replace a ledger that exists at `target` (it is moved aside, never deleted). */
  replace?: boolean
  clock: Clock
}

function refuseInUse(target: string): void {
  if (exists(`${target}-wal`)) {
    throw new AppError(
      'ILLEGAL_STATE',
      `${target} is open (its write-ahead log ${target}-wal exists): close the app and every carats command on it, then restore again`,
    )
  }
}

function copyBackup(backup: string, tmp: string): void {
  rmSync(tmp, { force: true })
  let src: Db
  try {
    src = new Database(backup, { readonly: true, fileMustExist: true })
  } catch (e) {
    throw new AppError('NOT_FOUND', `cannot read the backup ${backup}: ${(e as Error).message}`)
  }
  try {
    copyInto(src, tmp)
  } finally {
    src.close()
  }
}

/** Files of a restore, put in place; the ledger that was there is moved aside. */
export function restoreFiles(o: RestoreOptions): { movedAside: string | null } {
  if (!exists(o.backup)) throw new AppError('NOT_FOUND', `there is no backup ${o.backup}`)
  if (isPostgresUrl(o.target)) return restoreTeamLedger(o)
  const staged = stageFileRestore(o)
  commitFileRestore(staged)
  return { movedAside: staged.aside }
}

/**
 * A SQLite backup checked, then staged beside the ledger with its key and checkpoint, nothing in
 * place touched (restore.ts): commitFileRestore puts it in place, after its entry is in it.
 */
export function stageFileRestore(o: RestoreOptions): FileRestore {
  if (!exists(o.backup)) throw new AppError('NOT_FOUND', `there is no backup ${o.backup}`)
  if (backupFormat(o.backup) === 'pg_dump') {
    throw new AppError(
      'BAD_ARGUMENTS',
      `${o.backup} is a backup of a team ledger (pg_dump): restore it into an empty PostgreSQL database (--db postgresql://…), not into the file ${o.target}; a ledger is not moved across engines`,
    )
  }
  // the backup checked as it is, before anything is copied or moved
  inspectLedger(o.backup)
  const key = readKeyFile(o.keyFile ?? keyFilePath(o.backup))
  if (!key) throw keyProblems.missing(o.keyFile ?? keyFilePath(o.backup), null)
  // a restore killed while it put its copy in place is finished first
  finishInterruptedRestore(o.target)
  refuseInUse(o.target)
  if (exists(o.target) && !o.replace)
    throw new AppError(
      'CONFLICT',
      `${o.target} exists: add --replace to put it aside (it is kept as <ledger>.before-restore-<time>) and restore over it`,
    )
  // the copy must be a ledger this app opens (migrated if older), before anything in place is touched
  return stageFiles({
    backup: o.backup,
    target: o.target,
    key,
    stamp: iso(o.clock()).replace(/[:.]/g, '-'),
    copy: copyBackup,
  })
}

/** A pg_dump backup restored into an empty database; its key and checkpoint put where the team ledger keeps them. */
function restoreTeamLedger(o: RestoreOptions): { movedAside: null } {
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
  if (exists(checkpoint)) copyFileSync(checkpoint, checkpointFilePath(o.target, keyTo))
  return { movedAside: null }
}

export async function restoreReport(
  deps: CheckDeps & { dbPath: string },
  actor: string,
  backup: string,
  movedAside: string | null,
): Promise<RestoreReport> {
  const check = await checkLedger(deps)
  deps.audit.record(actor, 'ledger.restored', 'ledger', { from: backup, movedAside, ...checkSummary(check) })
  return { backup, movedAside, check }
}
