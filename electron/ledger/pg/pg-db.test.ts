/**
 * The PostgreSQL connection as the services use it: better-sqlite3's calls, answered the same way
 * (numbers, 1/0, Buffers, constraint failures named by kind and columns), transactions that roll back
 * whole. Writers side by side: pg-concurrency.test.ts; a connection that heals: pg-reconnect.test.ts.
 */
import { execFileSync } from 'node:child_process'
import { beforeAll, describe, expect, it } from 'vitest'
import { useScratchPg } from '../../../test/support/scratch-pg'

const open = useScratchPg(
  'carats_pgdb',
  'CREATE TABLE t (id BIGINT PRIMARY KEY, label TEXT UNIQUE, big BIGINT, bytes BYTEA, CHECK (big >= 0));',
).connect

describe('a PostgreSQL ledger answers as better-sqlite3 does', () => {
  it('gives rows, plucked values, raw rows, numbers and Buffers', () => {
    const db = open()
    const insert = db.prepare('INSERT INTO t (id, label, big, bytes) VALUES (?, ?, ?, ?)')
    expect(insert.run(1, 'a', 2 ** 40, Buffer.from([1, 2, 3])).changes).toBe(1)
    insert.run([2, 'b', 5, null])
    expect(db.prepare('SELECT id, label, big FROM t WHERE id = ?').get(1)).toEqual({ id: 1, label: 'a', big: 2 ** 40 })
    expect(db.prepare('SELECT label FROM t ORDER BY id').pluck().all()).toEqual(['a', 'b'])
    expect(db.prepare('SELECT id, big FROM t ORDER BY id').raw().all()).toEqual([
      [1, 2 ** 40],
      [2, 5],
    ])
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

  it('names constraint failures by kind and columns, in the server’s own words', () => {
    const db = open()
    const insert = db.prepare('INSERT INTO t (id, label, big) VALUES (?, ?, ?)')
    insert.run(10, 'x', 1)
    expect(() => insert.run(11, 'x', 1)).toThrow(
      expect.objectContaining({
        failure: 'unique',
        columns: ['t.label'],
        pgCode: '23505',
        message: expect.stringMatching(/^duplicate key value violates unique constraint/),
      }),
    )
    expect(() => insert.run(12, 'y', -1)).toThrow(expect.objectContaining({ failure: 'check', pgCode: '23514' }))
  })

  it('rolls a failed transaction back whole, and a failed nested one back to its savepoint', () => {
    const db = open()
    const insert = db.prepare('INSERT INTO t (id, label, big) VALUES (?, ?, ?)')
    expect(() =>
      db
        .transaction(() => {
          insert.run(20, 'p', 1)
          insert.run(21, 'p', 1)
        })
        .immediate(),
    ).toThrow(expect.objectContaining({ failure: 'unique' }))
    expect(db.prepare('SELECT count(*) FROM t WHERE id IN (20, 21)').pluck().get()).toBe(0)
    db.transaction(() => {
      insert.run(22, 'q', 1)
      expect(() => db.transaction(() => insert.run(23, 'q', 1))()).toThrow(
        expect.objectContaining({ failure: 'unique' }),
      )
      insert.run(24, 'r', 1)
    })()
    expect(db.prepare('SELECT id FROM t WHERE id BETWEEN 22 AND 24 ORDER BY id').pluck().all()).toEqual([22, 24])
  })

  it('moves data_version when another connection writes, not on its own writes', () => {
    const a = open()
    const b = open()
    const before = a.pragma('data_version', { simple: true })
    a.prepare('INSERT INTO t (id, label, big) VALUES (?, ?, ?)').run(40, 'own', 1)
    expect(a.pragma('data_version', { simple: true })).toBe(before)
    b.prepare('INSERT INTO t (id, label, big) VALUES (?, ?, ?)').run(41, 'other', 1)
    expect(a.pragma('data_version', { simple: true })).not.toBe(before)
  })
})

describe('what moves data_version: writes of the data, not lease heartbeats nor reads', () => {
  beforeAll(() => {
    open().exec(`CREATE TABLE job_leases (kind TEXT, subject TEXT, holder TEXT, heartbeat_at BIGINT);
      INSERT INTO job_leases VALUES ('simulate', 'emission:1', 'me', 0)`)
  })

  it("leaves another connection's data_version and this one's total_changes() as they were for a quiet write", () => {
    const a = open()
    const b = open()
    const before = a.pragma('data_version', { simple: true })
    const changes = b.prepare('SELECT total_changes()').pluck()
    const own = changes.get() as number
    const beat = b.prepare('UPDATE job_leases SET heartbeat_at = ? WHERE kind = ? AND subject = ? AND holder = ?')
    expect(b.quietly(() => beat.run(Date.now(), 'simulate', 'emission:1', 'me')).changes).toBe(1)
    b.transaction(() => b.quietly(() => beat.run(Date.now(), 'simulate', 'emission:1', 'me')))()
    expect(a.pragma('data_version', { simple: true })).toBe(before)
    expect(changes.get()).toBe(own)
    // the same statement, not quiet: a change like any other
    beat.run(Date.now(), 'simulate', 'emission:1', 'me')
    expect(a.pragma('data_version', { simple: true })).not.toBe(before)
    expect(changes.get()).toBe(own + 1)
    b.prepare('INSERT INTO t (id, label, big) VALUES (?, ?, ?)').run(60, 'data', 1)
  })

  it('leaves it as it was for a transaction that only read', () => {
    const a = open()
    const b = open()
    const before = a.pragma('data_version', { simple: true })
    b.transaction(() => b.prepare('SELECT count(*) FROM t').pluck().get())()
    expect(a.pragma('data_version', { simple: true })).toBe(before)
    b.transaction(() => b.exec('DELETE FROM t WHERE id = 60'))()
    expect(a.pragma('data_version', { simple: true })).not.toBe(before)
  })

  it('sees a write committed by another connection just before its own', () => {
    const a = open()
    const b = open()
    const before = a.pragma('data_version', { simple: true })
    b.prepare('INSERT INTO t (id, label, big) VALUES (?, ?, ?)').run(61, 'theirs', 1)
    // a's own commit right after: what it reads back must not hide b's write
    a.transaction(() => a.prepare('INSERT INTO t (id, label, big) VALUES (?, ?, ?)').run(62, 'mine', 1))()
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

describe('COPY posted without waiting (the bulk path of the sales)', () => {
  const rows = (from: number, n: number) =>
    Array.from({ length: n }, (_, i) => `${from + i}\tcopy${from + i}\t1`).join('\n') + '\n'

  it('sends each chunk at once, and counts its rows once flushed', () => {
    const db = open()
    const changes = db.prepare('SELECT total_changes()').pluck()
    const before = changes.get() as number
    db.transaction(() => {
      db.postCopyIn('COPY t (id, label, big) FROM STDIN', rows(1000, 300))
      db.postCopyIn('COPY t (id, label, big) FROM STDIN', rows(1300, 300))
      db.flush()
      expect(changes.get()).toBe(before + 600)
    }).immediate()
    expect(db.prepare('SELECT count(*) FROM t WHERE id BETWEEN 1000 AND 1599').pluck().get()).toBe(600)
  })

  it("says the first chunk's failure at the flush, and the transaction rolls back whole", () => {
    const db = open()
    expect(() =>
      db
        .transaction(() => {
          db.postCopyIn('COPY t (id, label, big) FROM STDIN', rows(2000, 10))
          db.postCopyIn('COPY t (id, label, big) FROM STDIN', rows(2005, 10)) // ids 2005-2009 twice
          db.postCopyIn('COPY t (id, label, big) FROM STDIN', rows(2100, 10))
          db.flush()
        })
        .immediate(),
    ).toThrow(expect.objectContaining({ failure: 'unique', columns: ['t.id'] }))
    expect(db.prepare('SELECT count(*) FROM t WHERE id BETWEEN 2000 AND 2199').pluck().get()).toBe(0)
    // the connection goes on as before
    db.prepare('INSERT INTO t (id, label, big) VALUES (?, ?, ?)').run(2200, 'after', 1)
    expect(db.prepare('SELECT label FROM t WHERE id = 2200').pluck().get()).toBe('after')
  })

  it('rolls back cleanly when the work fails while chunks are still posted', () => {
    const db = open()
    expect(() =>
      db
        .transaction(() => {
          db.postCopyIn('COPY t (id, label, big) FROM STDIN', rows(4000, 10))
          db.postCopyIn('COPY t (id, label, big) FROM STDIN', rows(4000, 10))
          throw new Error('the batch stopped')
        })
        .immediate(),
    ).toThrow('the batch stopped')
    expect(db.inTransaction).toBe(false)
    expect(db.prepare('SELECT count(*) FROM t WHERE id BETWEEN 4000 AND 4009').pluck().get()).toBe(0)
  })

  it('answers the next statement only after the chunks posted before it', () => {
    const db = open()
    db.transaction(() => {
      db.postCopyIn('COPY t (id, label, big) FROM STDIN', rows(3000, 500))
      expect(db.prepare('SELECT count(*) FROM t WHERE id BETWEEN 3000 AND 3499').pluck().get()).toBe(500)
    }).immediate()
  })
})

describe('a connection whose settings cannot be read', () => {
  it('fails with why, instead of leaving its caller waiting for the connection thread', () => {
    // in a child process: a caller left waiting would block this test's thread for good
    const script =
      "import('./electron/ledger/pg/pg-db.ts').then((m) => { try { new m.PgDb('bad', 'postgresql://[bad') } catch (e) { console.log('refused: ' + e.message) } })"
    const out = execFileSync(process.execPath, ['--import', 'tsx', '-e', script], { encoding: 'utf8', timeout: 60_000 })
    expect(out).toMatch(/^refused: .*Invalid URL/)
  })
})
