/**
 * Ledgers of the engine under test (ledger-engine.ts) copied, or read and altered behind the app.
 * Kept apart from ledger-engine.ts, which every test file's setup loads: this one loads the driver.
 */
import { spawnSync } from 'node:child_process'
import { copyFileSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { openLedger, type Db } from '../../electron/ledger/db'
import { keyFilePath } from '../../electron/ledger/keystore'
import { testEngine, testLedgerLocation, type TestLedgerLocation } from './ledger-engine'

/**
 * A copy of the ledger at `source` in `dir`, its key too: the file copied on SQLite (its
 * write-ahead log checkpointed first by the caller), pg_dump into a fresh database on PostgreSQL
 * (a consistent snapshot, even with connections open).
 */
export function cloneTestLedger(source: TestLedgerLocation, dir: string, name = 'ledger'): TestLedgerLocation {
  const sourceKey = source.keyFile ?? keyFilePath(source.location)
  if (testEngine() === 'sqlite') {
    const location = join(dir, `${name}.db`)
    copyFileSync(source.location, location)
    copyFileSync(sourceKey, keyFilePath(location))
    return { location, keyFile: undefined }
  }
  const copy = testLedgerLocation(dir, name)
  const r = spawnSync(
    'bash',
    [
      '-o',
      'pipefail',
      '-c',
      'pg_dump --no-owner --no-privileges "$1" | psql -Xq -v ON_ERROR_STOP=1 "$2"',
      'clone',
      source.location,
      copy.location,
    ],
    { encoding: 'utf8', timeout: 300_000 },
  )
  if (r.status !== 0)
    throw new Error(
      `could not copy ${source.location} into ${copy.location}: ${(r.stderr || r.error?.message || '').trim()}`,
    )
  copyFileSync(sourceKey, copy.keyFile!)
  return copy
}

/**
 * Runs `fn` on a connection of the test's own to the ledger (to read or alter it behind the app):
 * better-sqlite3 on the file (read-only unless told), openLedger on a PostgreSQL database.
 */
export function withTestLedger<T>(l: TestLedgerLocation, fn: (db: Db) => T, opts: { write?: boolean } = {}): T {
  const db =
    testEngine() === 'sqlite'
      ? new Database(l.location, { readonly: !opts.write, fileMustExist: true })
      : openLedger(l.location)
  try {
    return fn(db)
  } finally {
    db.close()
  }
}
