/**
 * The PostgreSQL connection as the services use it: better-sqlite3's calls, answered the same way
 * (numbers, 1/0, Buffers, SQLite's wording of constraint failures), transactions that roll back
 * whole, and one writer at a time across connections.
 */
import { execFileSync } from 'node:child_process'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PgDb } from './pg-db'

const HOST = '/var/run/postgresql'
const name = `carats_pgdb_${process.pid}_${Date.now()}`
const url = `postgresql:///${name}?host=${HOST}`
const opened: PgDb[] = []
const open = () => {
  const db = new PgDb(name, url)
  opened.push(db)
  return db
}

beforeAll(() => {
  execFileSync('createdb', ['-h', HOST, name])
  const db = open()
  db.exec(`CREATE TABLE ledger_identity (application_id BIGINT, schema_version BIGINT, writes BIGINT NOT NULL DEFAULT 0);
    INSERT INTO ledger_identity VALUES (1, 1, 0);
    CREATE TABLE t (id BIGINT PRIMARY KEY, label TEXT UNIQUE, big BIGINT, bytes BYTEA, CHECK (big >= 0));`)
})

afterAll(() => {
  for (const db of opened) db.close()
  execFileSync('dropdb', ['-h', HOST, '--if-exists', '--force', name])
})

describe('a PostgreSQL ledger answers as better-sqlite3 does', () => {
  it('gives rows, plucked values, raw rows, numbers and Buffers', () => {
    const db = open()
    const insert = db.prepare('INSERT INTO t (id, label, big, bytes) VALUES (?, ?, ?, ?)')
    expect(insert.run(1, 'a', 2 ** 40, Buffer.from([1, 2, 3])).changes).toBe(1)
    insert.run([2, 'b', 5, null])
    expect(db.prepare('SELECT id, label, big FROM t WHERE id = ?').get(1)).toEqual({ id: 1, label: 'a', big: 2 ** 40 })
    expect(db.prepare('SELECT label FROM t ORDER BY id').pluck().all()).toEqual(['a', 'b'])
    expect(db.prepare('SELECT id, big FROM t ORDER BY id').raw().all()).toEqual([[1, 2 ** 40], [2, 5]])
    expect(db.prepare('SELECT count(*) FROM t').pluck().get()).toBe(2)
    expect(db.prepare('SELECT sum(big) FROM t').pluck().get()).toBe(2 ** 40 + 5)
    expect(db.prepare('SELECT 1 = 1').pluck().get()).toBe(1)
    const bytes = db.prepare('SELECT bytes FROM t WHERE id = 1').pluck().get()
    expect(Buffer.isBuffer(bytes)).toBe(true)
    expect([...(bytes as Buffer)]).toEqual([1, 2, 3])
    expect(db.prepare('SELECT id FROM t WHERE id = ?').get(99)).toBeUndefined()
  })

  it('walks a large result in pages', () => {
    const db = open()
    db.exec('CREATE TABLE many AS SELECT g AS n FROM generate_series(1, 12001) g')
    let sum = 0
    let count = 0
    for (const n of db.prepare('SELECT n FROM many ORDER BY n').pluck().iterate() as Iterable<number>) {
      sum += n
      count++
    }
    expect(count).toBe(12001)
    expect(sum).toBe((12001 * 12002) / 2)
    expect(db.inTransaction).toBe(false)
  })

  it('words constraint failures as SQLite does', () => {
    const db = open()
    db.prepare('INSERT INTO t (id, label, big) VALUES (?, ?, ?)').run(10, 'x', 1)
    expect(() => db.prepare('INSERT INTO t (id, label, big) VALUES (?, ?, ?)').run(11, 'x', 1)).toThrow(/UNIQUE constraint failed: t\.label/)
    expect(() => db.prepare('INSERT INTO t (id, label, big) VALUES (?, ?, ?)').run(12, 'y', -1)).toThrow(/CHECK constraint failed/)
  })

  it('rolls a failed transaction back whole, and a failed nested one back to its savepoint', () => {
    const db = open()
    const insert = db.prepare('INSERT INTO t (id, label, big) VALUES (?, ?, ?)')
    expect(() =>
      db.transaction(() => {
        insert.run(20, 'p', 1)
        insert.run(21, 'p', 1)
      }).immediate(),
    ).toThrow(/UNIQUE/)
    expect(db.prepare('SELECT count(*) FROM t WHERE id IN (20, 21)').pluck().get()).toBe(0)
    db.transaction(() => {
      insert.run(22, 'q', 1)
      expect(() => db.transaction(() => insert.run(23, 'q', 1))()).toThrow(/UNIQUE/)
      insert.run(24, 'r', 1)
    })()
    expect(db.prepare('SELECT id FROM t WHERE id BETWEEN 22 AND 24 ORDER BY id').pluck().all()).toEqual([22, 24])
  })

  it('lets one writer at a time hold the ledger, and says so when the wait is too long', () => {
    const a = open()
    const b = open()
    b.pragma('busy_timeout = 200')
    expect(() =>
      a.transaction(() => {
        a.prepare('INSERT INTO t (id, label, big) VALUES (?, ?, ?)').run(30, 'w', 1)
        b.transaction(() => b.prepare('INSERT INTO t (id, label, big) VALUES (?, ?, ?)').run(31, 'v', 1)).immediate()
      }).immediate(),
    ).toThrow(/database is locked/)
    expect(b.prepare('SELECT count(*) FROM t WHERE id IN (30, 31)').pluck().get()).toBe(0)
  })

  it("moves data_version when another connection writes, not on its own writes", () => {
    const a = open()
    const b = open()
    const before = a.pragma('data_version', { simple: true })
    a.prepare('INSERT INTO t (id, label, big) VALUES (?, ?, ?)').run(40, 'own', 1)
    expect(a.pragma('data_version', { simple: true })).toBe(before)
    b.prepare('INSERT INTO t (id, label, big) VALUES (?, ?, ?)').run(41, 'other', 1)
    expect(a.pragma('data_version', { simple: true })).not.toBe(before)
  })
})

describe("SQLite's statements about the connection", () => {
  it('answers PRAGMA data_version and total_changes() as prepared statements', () => {
    const db = open()
    const changes = db.prepare('SELECT total_changes()').pluck()
    const before = changes.get() as number
    db.prepare('INSERT INTO t (id, label, big) VALUES (?, ?, ?), (?, ?, ?)').run(50, 'c1', 1, 51, 'c2', 1)
    expect(changes.get()).toBe(before + 2)
    expect(typeof db.prepare('PRAGMA data_version').pluck().get()).toBe('number')
  })
})
