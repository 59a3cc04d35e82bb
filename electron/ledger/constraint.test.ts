/** A broken constraint named by kind and columns, the same on both engines, whatever their wording. */
import Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { testEngine } from '../../test/support/ledger-engine'
import { useScratchPg } from '../../test/support/scratch-pg'
import { brokenConstraint } from './constraint'
import type { Db } from './db'

const TABLES = `CREATE TABLE parent (id INTEGER PRIMARY KEY);
  CREATE TABLE child (id INTEGER PRIMARY KEY, code TEXT UNIQUE, name TEXT NOT NULL, parent INTEGER REFERENCES parent (id),
    qty INTEGER CHECK (qty >= 0));`

function failure(run: () => unknown): unknown {
  try {
    run()
  } catch (e) {
    return e
  }
  throw new Error('the statement did not fail')
}

function expectNamed(db: Db) {
  db.prepare("INSERT INTO child (id, code, name) VALUES (1, 'a', 'one')").run()
  const insert = (sql: string) => brokenConstraint(failure(() => db.prepare(sql).run()))
  expect(insert("INSERT INTO child (id, code, name) VALUES (2, 'a', 'two')")).toEqual({
    kind: 'unique',
    columns: ['child.code'],
  })
  expect(insert("INSERT INTO child (id, code, name) VALUES (3, 'b', NULL)")).toEqual({
    kind: 'not-null',
    columns: ['child.name'],
  })
  expect(insert("INSERT INTO child (id, code, name, qty) VALUES (4, 'c', 'x', -1)")).toMatchObject({ kind: 'check' })
  expect(insert("INSERT INTO child (id, code, name, parent) VALUES (5, 'd', 'x', 99)")).toMatchObject({
    kind: 'foreign-key',
  })
  expect(brokenConstraint(new Error('UNIQUE constraint failed: child.code'))).toBeNull()
  expect(brokenConstraint(failure(() => db.prepare('SELECT * FROM nowhere').all()))).toBeNull()
}

describe.runIf(testEngine() === 'sqlite')('broken constraints on SQLite', () => {
  it('are named by kind and columns', () => {
    const db = new Database(':memory:')
    db.pragma('foreign_keys = ON')
    db.exec(TABLES)
    expectNamed(db as unknown as Db)
    // SQLite's primary key: its own code
    expect(
      brokenConstraint(failure(() => db.prepare("INSERT INTO child (id, code, name) VALUES (1, 'z', 'z')").run())),
    ).toEqual({ kind: 'primary-key', columns: ['child.id'] })
    db.close()
  })
})

describe.runIf(testEngine() === 'postgres')('broken constraints on PostgreSQL', () => {
  const scratch = useScratchPg('carats_constraint', TABLES)
  it('are named by kind and columns, as on SQLite', () => {
    expectNamed(scratch.db() as unknown as Db)
  })
})
