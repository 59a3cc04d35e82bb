import { execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import {
  databaseUrl,
  dropOrphanTestLedgers,
  dropTestLedger,
  dropTestLedgers,
  ledgerArgs,
  ownerPid,
  testDatabaseName,
  testEngine,
  testLedgerLocation,
  testLedgersMade,
  testServerUrl,
} from '../support/ledger-engine'
import { cloneTestLedger } from '../support/test-ledgers'

const dir = mkdtempSync(join(tmpdir(), 'carats-engine-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const databases = () =>
  execFileSync(
    'psql',
    [testServerUrl(), '-XAtqc', "SELECT datname FROM pg_database WHERE starts_with(datname, 'carats_t_')"],
    { encoding: 'utf8' },
  )
    .split('\n')
    .filter(Boolean)

describe('the test engine', () => {
  it('is read from CARATS_TEST_ENGINE, SQLite by default, and a wrong name is refused', () => {
    expect(testEngine({})).toBe('sqlite')
    expect(testEngine({ CARATS_TEST_ENGINE: 'postgres' })).toBe('postgres')
    expect(() => testEngine({ CARATS_TEST_ENGINE: 'mysql' })).toThrow(
      /CARATS_TEST_ENGINE=mysql is not an engine: use sqlite \(the default\) or postgres/,
    )
  })

  it("names databases by process, so a crashed run's can be told from a live one's", () => {
    const name = testDatabaseName()
    expect(name).toMatch(new RegExp(`^carats_t_${process.pid}_\\d+_[0-9a-f]{8}$`))
    expect(ownerPid(name)).toBe(process.pid)
    expect(ownerPid('carats_main')).toBeNull()
    expect(databaseUrl('postgresql:///postgres?host=/var/run/postgresql', name)).toBe(
      `postgresql:///${name}?host=/var/run/postgresql`,
    )
  })
})

describe.skipIf(testEngine() !== 'sqlite')('a SQLite test ledger', () => {
  it("is a file in the test's folder, its key beside it", () => {
    const l = testLedgerLocation(dir, 'books')
    expect(l).toEqual({ location: join(dir, 'books.db'), keyFile: undefined })
    expect(ledgerArgs(l)).toEqual(['--db', join(dir, 'books.db')])
    expect(existsSync(l.location)).toBe(false)
  })

  it('is copied with its key beside the copy', () => {
    const from = testLedgerLocation(dir, 'from')
    writeFileSync(from.location, 'ledger bytes')
    writeFileSync(`${from.location}.key`, 'key bytes')
    const copy = cloneTestLedger(from, dir, 'copy')
    expect(copy).toEqual({ location: join(dir, 'copy.db'), keyFile: undefined })
    expect(readFileSync(copy.location, 'utf8')).toBe('ledger bytes')
    expect(readFileSync(`${copy.location}.key`, 'utf8')).toBe('key bytes')
  })
})

describe.skipIf(testEngine() !== 'postgres')('a PostgreSQL test ledger', () => {
  it('is a database of its own, made at once and dropped with the others of this process', () => {
    const a = testLedgerLocation(dir)
    const b = testLedgerLocation(dir, 'other')
    expect(a.location).not.toBe(b.location)
    expect(a.keyFile).toBe(join(dir, 'ledger.key'))
    expect(existsSync(a.keyFile!)).toBe(false)
    expect(ledgerArgs(b)).toEqual(['--db', b.location, '--key-file', join(dir, 'other.key')])
    const names = testLedgersMade()
    expect(names).toHaveLength(2)
    expect(databases()).toEqual(expect.arrayContaining(names))
    expect(execFileSync('psql', [a.location, '-XAtqc', 'SELECT current_database()'], { encoding: 'utf8' }).trim()).toBe(
      names[0],
    )
    dropTestLedgers()
    expect(testLedgersMade()).toEqual([])
    expect(databases()).not.toEqual(expect.arrayContaining([names[0]]))
    expect(databases()).not.toEqual(expect.arrayContaining([names[1]]))
  })

  it('is dropped at once by the fixture that closes it, and only if this process made it', () => {
    const l = testLedgerLocation(dir)
    const name = new URL(l.location).pathname.slice(1)
    dropTestLedger(databaseUrl(testServerUrl(), 'postgres'))
    dropTestLedger(join(dir, 'a.db'))
    expect(databases()).toContain(name)
    dropTestLedger(l.location)
    expect(databases()).not.toContain(name)
    expect(testLedgersMade()).not.toContain(name)
  })

  it('is copied whole, its key file too, even while a connection is open on it', () => {
    const from = testLedgerLocation(dir, 'from')
    const sql = (url: string, q: string) =>
      execFileSync('psql', [url, '-XAtq', '-v', 'ON_ERROR_STOP=1', '-c', q], { encoding: 'utf8' }).trim()
    sql(from.location, "CREATE TABLE t (n int8, s text); INSERT INTO t VALUES (1, 'un'), (2, 'deux')")
    writeFileSync(from.keyFile!, 'k'.repeat(64), { mode: 0o600 })
    const copy = cloneTestLedger(from, dir, 'copy')
    expect(sql(copy.location, "SELECT string_agg(s, ',' ORDER BY n) FROM t")).toBe('un,deux')
    expect(readFileSync(copy.keyFile!, 'utf8')).toBe('k'.repeat(64))
    expect(copy.keyFile).toBe(join(dir, 'copy.key'))
  })

  it("left by a process that no longer runs is dropped; a live process's is kept", () => {
    const dead = `carats_t_999999999_1_0badf00d`
    execFileSync('psql', [testServerUrl(), '-XAtqc', `CREATE DATABASE ${dead}`])
    const mine = testLedgerLocation(dir)
    const dropped = dropOrphanTestLedgers((pid) => pid !== 999999999)
    expect(dropped).toContain(dead)
    expect(databases()).not.toContain(dead)
    const mineName = new URL(mine.location).pathname.slice(1)
    expect(testLedgersMade()).toContain(mineName)
    expect(databases()).toContain(mineName)
  })
})
