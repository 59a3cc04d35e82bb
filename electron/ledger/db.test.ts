import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { brokenBy } from '../../test/support/refusal'
import Database from 'better-sqlite3'
import { mkdtempSync, rmSync, writeFileSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openLedger } from './db'
import { LATEST_VERSION, MIGRATIONS } from './schema/steps.sqlite'
import { unitKey, splitUnitKey } from './unit-key'
import { AppError } from '../contract/errors'
import { testEngine, testLedgerLocation } from '../../test/support/ledger-engine'

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ledger-'))
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

function expectDatabaseError(fn: () => unknown, pattern: RegExp): void {
  try {
    fn()
  } catch (e) {
    expect(e).toBeInstanceOf(AppError)
    expect((e as AppError).code).toBe('DATABASE')
    expect((e as AppError).message).toMatch(pattern)
    return
  }
  throw new Error('expected a DATABASE error')
}

// The SQLite file itself: its pragmas, WAL, a further connection, foreign, empty, damaged and
// truncated files, user_version migrations. SQLite only (the PostgreSQL ledger has its own tests).
describe.skipIf(testEngine() === 'postgres')('openLedger', () => {
  it("opens a further connection (the simulation worker's) on a ledger at the latest schema, and refuses one that is not", () => {
    const path = join(dir, 'a.db')
    const db = openLedger(path)
    db.prepare("INSERT INTO players (name) VALUES ('P1')").run()
    const more = openLedger(path, { secondary: true })
    expect(more.prepare('SELECT count(*) FROM players').pluck().get()).toBe(1)
    expect(more.pragma('foreign_keys', { simple: true })).toBe(1)
    more.close()
    db.close()
    const old = join(dir, 'old.db')
    const raw = new Database(old)
    raw.exec('CREATE TABLE t (x)')
    raw.pragma('user_version = 1')
    raw.close()
    expectDatabaseError(() => openLedger(old, { secondary: true }), new RegExp(`schema is 1, not ${LATEST_VERSION}`))
  })

  it('creates the schema with WAL, foreign keys and a busy timeout', () => {
    const db = openLedger(join(dir, 'a.db'))
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal')
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1)
    expect(db.pragma('busy_timeout', { simple: true })).toBe(5000)
    // a write-ahead log grown while readers held it is cut back when it starts afresh
    const pageSize = db.pragma('page_size', { simple: true }) as number
    expect(db.pragma('journal_size_limit', { simple: true })).toBe(20_000 * pageSize)
    expect(db.pragma('user_version', { simple: true })).toBe(LATEST_VERSION)
    const tables = (
      db.prepare("SELECT name FROM sqlite_master WHERE type='table' ORDER BY name").all() as { name: string }[]
    ).map((r) => r.name)
    expect(tables).toEqual(
      expect.arrayContaining([
        'emissions',
        'blocks',
        'block_tiers',
        'sales',
        'players',
        'users',
        'audit',
        'alerts',
        'daily_sales',
        'import_batches',
      ]),
    )
    db.close()
  })

  it('reopens an existing ledger without migrating again', () => {
    const path = join(dir, 'a.db')
    openLedger(path).close()
    const db = openLedger(path)
    expect(db.pragma('user_version', { simple: true })).toBe(LATEST_VERSION)
    db.close()
  })

  it('refuses a ledger from a newer version and leaves it untouched', () => {
    const path = join(dir, 'a.db')
    const newer = [
      ...MIGRATIONS,
      { version: LATEST_VERSION + 1, description: 'future', sql: 'CREATE TABLE future (x INTEGER);' },
    ]
    openLedger(path, { migrations: newer }).close()
    const before = readFileSync(path)
    expectDatabaseError(
      () => openLedger(path),
      new RegExp(`newer version of the app \\(schema ${LATEST_VERSION + 1}, this app knows up to ${LATEST_VERSION}\\)`),
    )
    expect(readFileSync(path).equals(before)).toBe(true)
  })

  it('refuses a file that is not SQLite', () => {
    const path = join(dir, 'notes.db')
    writeFileSync(path, 'hello, this is not a database at all, just some words\n'.repeat(100))
    expectDatabaseError(() => openLedger(path), /not an SQLite database/)
    expect(readFileSync(path, 'utf8')).toMatch(/^hello/)
  })

  it('refuses a corrupt ledger', () => {
    const path = join(dir, 'a.db')
    const db = openLedger(path)
    db.pragma('journal_mode = DELETE')
    db.close()
    const bytes = readFileSync(path)
    // keep the header, scribble over the schema page and the rest
    for (let i = 100; i < bytes.length; i++) bytes[i] = (i * 7919) & 255
    writeFileSync(path, bytes)
    expectDatabaseError(() => openLedger(path), /damaged|malformed|not a database/)
    // a large ledger, closed cleanly, gets the check of its small tables only: still refused
    expectDatabaseError(() => openLedger(path, { fullCheckMaxBytes: 0 }), /damaged|malformed|not a database/)
  })

  it('refuses an emptied file instead of making a new ledger in it, and leaves it as it is', () => {
    const path = join(dir, 'emptied.db')
    writeFileSync(path, '')
    expectDatabaseError(
      () => openLedger(path),
      /the file is empty \(0 bytes\), which no ledger ever is; restore it from a backup/,
    )
    expect(readFileSync(path).length).toBe(0)
    const sqlite = join(dir, 'blank.db')
    new Database(sqlite).exec('VACUUM')
    expectDatabaseError(() => openLedger(sqlite), /an empty SQLite database, not a ledger/)
  })

  it('refuses a truncated ledger', () => {
    const path = join(dir, 'a.db')
    const db = openLedger(path)
    db.exec(
      'WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200) INSERT INTO players (name) SELECT hex(randomblob(500)) || i FROM n',
    )
    db.close()
    const bytes = readFileSync(path)
    // whole pages missing: SQLite finds the header's size beyond the file
    writeFileSync(path, bytes.subarray(0, Math.floor(bytes.length / 2)))
    expectDatabaseError(
      () => openLedger(path, { fullCheckMaxBytes: 0 }),
      /damaged \(database disk image is malformed\); restore it/,
    )
    writeFileSync(path, bytes.subarray(0, bytes.length - 100))
    expectDatabaseError(() => openLedger(path, { fullCheckMaxBytes: 0 }), /the file is truncated/)
  })

  it('says so when an old schema cannot be brought up to date, and leaves it as it was', () => {
    const path = join(dir, 'old.db')
    const early = MIGRATIONS.slice(0, 1)
    openLedger(path, { migrations: early }).close()
    // a ledger of a development version: schema 1 that already had the table of step 2
    const raw = new Database(path)
    raw.exec(MIGRATIONS[1].sql)
    raw.close()
    expectDatabaseError(
      () => openLedger(path),
      /schema \(version 1\) that this app cannot bring up to date: step 2 \(leases of long tasks\) failed: table task_leases already exists\. The file was left as it was/,
    )
    const after = new Database(path)
    expect(after.pragma('user_version', { simple: true })).toBe(1)
    expect(after.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'ledger_meta'").pluck().get()).toBe(0)
    after.close()
  })

  it("keeps every account as it was when the regulator's role comes (migration 16)", () => {
    const path = join(dir, 'v15.db')
    const old = openLedger(path, { migrations: MIGRATIONS.slice(0, 15) })
    old
      .prepare(
        `INSERT INTO users (name, role, password_hash, password_salt, active, created_at, last_login_at, skeleton,
           granted_by, confirmed_by, confirmed_at)
         VALUES ('Aude', 'auditor', x'01', x'02', 1, '2026-01-01T00:00:00Z', '2026-01-02T00:00:00Z', 'aude', 'ada', '', '2026-01-01T00:00:00Z')`,
      )
      .run()
    const before = old.prepare('SELECT * FROM users').all()
    old.close()
    const db = openLedger(path)
    expect(db.prepare('SELECT * FROM users').all()).toEqual(before)
    const add = db.prepare(
      "INSERT INTO users (name, role, password_hash, password_salt, created_at, skeleton) VALUES (?, ?, x'01', x'02', 't', ?)",
    )
    add.run('regis', 'regulator', 'regis')
    expect(() => add.run('root', 'root', 'root')).toThrow(/CHECK constraint failed/)
    // the look-alike index came along: a second "aude" by skeleton is refused
    expect(() => add.run('aude2', 'support', 'aude')).toThrow(/UNIQUE constraint failed: users.skeleton/)
    db.close()
  })

  it('gives the sales of a ledger from before claims their claims, from 5,000 € up (migration 10)', () => {
    const path = join(dir, 'v9.db')
    const old = openLedger(path, { migrations: MIGRATIONS.slice(0, 9) })
    old
      .prepare(
        "INSERT INTO emissions (emission, code, blocks, definition, definition_digest, created_at) VALUES (1, 'E1', 1, '{}', 'x', '2026-01-01T00:00:00Z')",
      )
      .run()
    old.prepare("INSERT INTO players (id, name) VALUES (7, 'zoe')").run()
    const sell = old.prepare(
      'INSERT INTO sales (unit_key, player_id, sold_at, stake_cents, prize_cents) VALUES (?, 7, ?, 500, ?)',
    )
    for (const [unit, prize] of [
      [1, 50_000_000],
      [2, 1_000_000],
      [3, 100_000],
      [4, 0],
      [5, 500_000],
    ])
      sell.run(unitKey(1, 1, unit), 1000 + unit, prize)
    old.close()
    const db = openLedger(path)
    const claims = db
      .prepare('SELECT unit_key, emission, player_id, sold_at, prize_cents, status FROM claims ORDER BY unit_key')
      .all()
    expect(claims).toEqual(
      [1, 2, 5].map((unit) => ({
        unit_key: unitKey(1, 1, unit),
        emission: 1,
        player_id: 7,
        sold_at: 1000 + unit,
        prize_cents: [0, 50_000_000, 1_000_000, 0, 0, 500_000][unit],
        status: 'pending',
      })),
    )
    expect(db.prepare('SELECT claim_threshold_cents FROM emissions').pluck().get()).toBe(500_000)
    db.close()
  })

  it("refuses another application's SQLite database", () => {
    const path = join(dir, 'other.db')
    const other = new Database(path)
    other.exec('CREATE TABLE contacts (name TEXT)')
    other.close()
    expectDatabaseError(() => openLedger(path), /another application/)
  })
})

/** The schema's own rules, on either engine. */
describe('the ledger schema', () => {
  it('keeps the audit log append-only', () => {
    const db = openLedger(testLedgerLocation(dir, 'a').location)
    db.prepare(
      "INSERT INTO audit (seq, at, actor, action, object, details, prev_hash, hash) VALUES (1, 't','a','x','o','{}','0','1')",
    ).run()
    expect(() => db.prepare("UPDATE audit SET actor = 'mallory'").run()).toThrow(/append-only/)
    expect(() => db.prepare('DELETE FROM audit').run()).toThrow(/append-only/)
    db.close()
  })

  it('never stores a unit twice, and derives emission, block and unit from the key', () => {
    const db = openLedger(testLedgerLocation(dir, 'a').location)
    db.prepare("INSERT INTO players (name) VALUES ('p1')").run()
    const ins = db.prepare(
      'INSERT INTO sales (unit_key, sale_id, player_id, sold_at, stake_cents, prize_cents) VALUES (?, ?, 1, 0, 500, 0)',
    )
    const key = unitKey(12, 345, 8_015_999)
    ins.run(key, 's1')
    expect(['unique', 'primary-key']).toContain(brokenBy(() => ins.run(key, 's2')))
    expect(brokenBy(() => ins.run(key + 1, 's1'))).toBe('unique')
    expect(db.prepare('SELECT emission, block, unit FROM sales').get()).toEqual({
      emission: 12,
      block: 345,
      unit: 8_015_999,
    })
    expect(splitUnitKey(key)).toEqual({ emission: 12, block: 345, unit: 8_015_999 })
    db.close()
  })

  it('refuses a block that has a secret without a commitment', () => {
    const db = openLedger(testLedgerLocation(dir, 'a').location)
    db.prepare(
      "INSERT INTO emissions (emission, code, blocks, definition, definition_digest, created_at) VALUES (1, 'E1', 1, '{}', 'x', 't')",
    ).run()
    expect(
      brokenBy(() =>
        db
          .prepare("INSERT INTO blocks (emission, block, status, secret) VALUES (1, 1, 'generated', ?)")
          .run(Buffer.from([0])),
      ),
    ).toBe('check')
    db.close()
  })
})
