/**
 * A SQLite ledger file's own checks and copies (integrity.ts): SQLite's integrity check, on a
 * worker thread beside the rest of the check; a consistent copy by VACUUM INTO from one snapshot,
 * without stopping writers; what a restore over a file refuses.
 */
import { pathExists } from '../common'
import Database from 'better-sqlite3'
import { rmSync } from 'node:fs'
import { Worker } from 'node:worker_threads'
import { AppError } from '../../contract/errors'
import type { LedgerCheckReport } from '../../contract/types'
import type { Db } from '../../ledger/db'
import { workerEntry } from '../../threads/entry'

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
export function integrityBeside(dbPath: string): Promise<LedgerCheckReport['integrity']> {
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

/** A consistent copy of the open ledger at `dest`, from one snapshot, without stopping writers. */
export function copyInto(db: Db, dest: string): void {
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

export function refuseInUse(target: string): void {
  if (pathExists(`${target}-wal`)) {
    throw new AppError(
      'ILLEGAL_STATE',
      `${target} is open (its write-ahead log ${target}-wal exists): close the app and every carats command on it, then restore again`,
    )
  }
}

export function copyBackup(backup: string, tmp: string): void {
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
