/**
 * A SQLite ledger's restore made whole or not at all. The backup is copied beside the ledger, as
 * `<ledger>.restoring` with its own key and checkpoint files (`<ledger>.restoring.key`,
 * `<ledger>.restoring.audit-checkpoint`), opened (migrated), checked, and given its
 * `ledger.restored` entry there (integrity-commands.ts); only then is it put in place. Killed
 * before, nothing in place was touched (the staged files are cleared by the next restore).
 *
 * Putting it in place is three files over three, each with a rename, the old ones kept aside as
 * `<ledger>.before-restore-<time>[.key|.audit-checkpoint]`: it starts with a journal,
 * `<ledger>.restore-journal`, written whole (fsync) before the first rename. Killed between the
 * renames, the journal is there: the next opening of the ledger (openBackend) or the next restore
 * finishes the renames first, so the restored ledger is never seen with the old key or checkpoint,
 * nor without its entry.
 *
 * CARATS_TEST_RESTORE_STOP_AT=<stage> kills the process at that stage (tests only): staged,
 * recorded (integrity-commands.ts), journal, ledger, key, checkpoint.
 */
import { pathExists } from '../common'
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs'
import Database from 'better-sqlite3'
import { checkpointFilePath } from '../../ledger/checkpoint'
import { openLedger } from '../../ledger/db'
import { keyFilePath, writeKeyFile } from '../../ledger/keystore'

/** A restore staged beside its target: the copy's path, and where the ledger in place goes (null: there is none). */
export interface FileRestore {
  target: string
  tmp: string
  aside: string | null
}

interface Journal {
  format: 'carats-restore-journal/1'
  tmp: string
  aside: string | null
  /** Of the ledger, key and checkpoint files, those the copy has (the others in place only go aside). */
  staged: [boolean, boolean, boolean]
}

const filesOf = (db: string) => [db, keyFilePath(db), checkpointFilePath(db)]
const journalOf = (target: string) => `${target}.restore-journal`
const STAGES = ['ledger', 'key', 'checkpoint'] as const

/** Tests only: the process is killed at the named stage of a restore. */
export function restoreStage(stage: string): void {
  if (process.env.CARATS_TEST_RESTORE_STOP_AT === stage) process.kill(process.pid, 'SIGKILL')
}

/** The staged files gone (a restore that will not be put in place, or one killed before its journal). */
export function discardFileRestore(r: Pick<FileRestore, 'tmp'>): void {
  for (const f of [...filesOf(r.tmp), `${r.tmp}-wal`, `${r.tmp}-shm`]) rmSync(f, { force: true })
}

/** The backup copied (by `copy`) beside the target with its key and checkpoint, and opened once (migrated); nothing in place touched. */
export function stageFiles(o: {
  backup: string
  target: string
  key: Buffer
  stamp: string
  copy: (backup: string, tmp: string) => void
}): FileRestore {
  const r: FileRestore = {
    target: o.target,
    tmp: `${o.target}.restoring`,
    aside: pathExists(o.target) ? `${o.target}.before-restore-${o.stamp}` : null,
  }
  discardFileRestore(r)
  try {
    o.copy(o.backup, r.tmp)
    openLedger(r.tmp).close()
    writeKeyFile(keyFilePath(r.tmp), o.key)
    const checkpoint = checkpointFilePath(o.backup)
    if (pathExists(checkpoint)) writeFileWhole(checkpointFilePath(r.tmp), readFileSync(checkpoint))
  } catch (e) {
    discardFileRestore(r)
    throw e
  }
  restoreStage('staged')
  return r
}

function writeFileWhole(path: string, data: Buffer, mode = 0o600): void {
  const fd = openSync(`${path}.partial`, 'w', mode)
  try {
    writeSync(fd, data)
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
  renameSync(`${path}.partial`, path)
}

/** The staged copy put in place: its journal first, then the renames. */
export function commitFileRestore(r: FileRestore): void {
  if (pathExists(`${r.tmp}-wal`)) {
    // a connection left its write-ahead log: folded into the file, which alone is renamed
    const d = new Database(r.tmp)
    d.pragma('wal_checkpoint(TRUNCATE)')
    d.close()
  }
  const staged = filesOf(r.tmp).map(pathExists) as Journal['staged']
  const journal: Journal = { format: 'carats-restore-journal/1', tmp: r.tmp, aside: r.aside, staged }
  writeFileWhole(journalOf(r.target), Buffer.from(JSON.stringify(journal)))
  restoreStage('journal')
  rollForward(r.target, journal)
}

/** The renames a journal stands for, each done once: a file already moved is not moved again. */
function rollForward(target: string, j: Journal): void {
  const from = filesOf(j.tmp)
  const to = filesOf(target)
  const aside = j.aside ? filesOf(j.aside) : null
  for (let i = 0; i < 3; i++) {
    if (j.staged[i] && !pathExists(from[i])) continue
    if (aside && pathExists(to[i]) && !pathExists(aside[i])) renameSync(to[i], aside[i])
    if (j.staged[i]) renameSync(from[i], to[i])
    restoreStage(STAGES[i])
  }
  rmSync(journalOf(target), { force: true })
}

/** A restore killed while it put its copy in place, finished (its journal rolled forward); false when there was none. */
export function finishInterruptedRestore(target: string): boolean {
  const path = journalOf(target)
  if (!pathExists(path)) return false
  let j: Journal
  try {
    j = JSON.parse(readFileSync(path, 'utf8')) as Journal
  } catch {
    // a journal is written whole before any rename: one that does not read was never acted on
    rmSync(path, { force: true })
    return false
  }
  rollForward(target, j)
  return true
}
