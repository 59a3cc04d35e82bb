/** A quiet write (a lease's heartbeat) moves no cache's idea of the ledger's data; any other write does. */
import Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { testEngine } from '../../test/support/ledger-engine'
import { useScratchPg } from '../../test/support/scratch-pg'
import type { Db } from './db'
import { ownChanges, quietWrite } from './quiet-writes'

const TABLES = 'CREATE TABLE beats (id INTEGER PRIMARY KEY, at BIGINT NOT NULL); INSERT INTO beats VALUES (1, 0);'

function expectOwnChanges(db: Db): void {
  const beat = db.prepare('UPDATE beats SET at = ? WHERE id = 1')
  const before = ownChanges(db)
  expect(quietWrite(db, () => beat.run(5)).changes).toBe(1)
  expect(db.prepare('SELECT at FROM beats').pluck().get()).toBe(5)
  expect(ownChanges(db)).toBe(before)
  beat.run(6)
  expect(ownChanges(db)).toBe(before + 1)
}

describe.runIf(testEngine() === 'sqlite')('quiet writes on SQLite', () => {
  it("leave the connection's own changes where they were; another write moves them", () => {
    const db = new Database(':memory:')
    db.exec(TABLES)
    expectOwnChanges(db as unknown as Db)
    db.close()
  })
})

describe.runIf(testEngine() === 'postgres')('quiet writes on PostgreSQL', () => {
  const scratch = useScratchPg('carats_quiet', TABLES)
  it("leave the connection's own changes where they were; another write moves them", () => {
    expectOwnChanges(scratch.db() as unknown as Db)
  })

  it("move no other workstation's data_version; another write does", () => {
    const db = scratch.db() as unknown as Db
    const other = scratch.connect() as unknown as Db
    const version = () => other.pragma('data_version', { simple: true }) as number
    const seen = version()
    quietWrite(db, () => db.prepare('UPDATE beats SET at = ? WHERE id = 1').run(7))
    expect(version()).toBe(seen)
    db.prepare('UPDATE beats SET at = ? WHERE id = 1').run(8)
    expect(version()).not.toBe(seen)
  })
})
