/**
 * The ledger as a system of record: its whole check (the engine's integrity, the audit chain and its
 * checkpoint, every counter recomputed and every sold unit's prize re-derived), a backup that is
 * a consistent copy taken while the app runs (SQLite: VACUUM INTO reads one snapshot; PostgreSQL:
 * pg_dump, backup.pg.ts), written with its key and checkpoint and checked before it is
 * called good, and the restore of such a backup.
 */
import { renameSync, statSync } from 'node:fs'
import { AppError } from '../../contract/errors'
import type { BackupReport, LedgerCheckReport, RestoreReport } from '../../contract/types'
import { checkpointFilePath, type CheckpointRead } from '../../ledger/checkpoint'
import { inspectLedger, openLedger, type Db } from '../../ledger/db'
import { keyFilePath, readKeyFile, keyProblems, type KeyStore } from '../../ledger/keystore'
import { createAuditService, type AuditService } from '../audit'
import { createCatalog, type Catalog } from '../catalog'
import { type Clock, iso, pathExists } from '../common'
import { engineOf } from '../../ledger/dialect'
import { isPostgresUrl } from '../../ledger/location'
import { checkLedgerData } from './check'
import type { RestoreOptions } from './context'
import {
  archiveEntries,
  backupFormat,
  dumpInto,
  restoreInto,
  restoreTeamLedger,
  withScratchDatabase,
} from './backup.pg'
import { pgIntegrityOf } from './integrity.pg'
import { copyBackup, copyInto, integrityBeside, refuseInUse } from './integrity.sqlite'
import { commitFileRestore, finishInterruptedRestore, stageFiles, type FileRestore } from './restore.sqlite'

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

function refuseExisting(...paths: string[]): void {
  for (const p of paths)
    if (pathExists(p))
      throw new AppError(
        'CONFLICT',
        `${p} already exists: choose a new file name for the backup (nothing is overwritten)`,
      )
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
    if (pathExists(written)) renameSync(written, files.checkpointFile)
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

/** Files of a restore, put in place; the ledger that was there is moved aside. */
export function restoreFiles(o: RestoreOptions): { movedAside: string | null } {
  if (!pathExists(o.backup)) throw new AppError('NOT_FOUND', `there is no backup ${o.backup}`)
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
  if (!pathExists(o.backup)) throw new AppError('NOT_FOUND', `there is no backup ${o.backup}`)
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
  if (pathExists(o.target) && !o.replace)
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
