/**
 * Opening a team ledger on PostgreSQL: an empty database becomes a ledger, a database of another
 * application or of a newer version is refused untouched, and the key file must be given.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { openLedger } from '../db'
import { openLedgerKey } from '../keystore'
import { PG_SCHEMA_VERSION } from '../schema/steps.pg'

const HOST = '/var/run/postgresql'
const made: string[] = []
const dir = mkdtempSync(join(tmpdir(), 'carats-pg-open-'))

function newDatabase(tag: string): string {
  const name = `carats_open_${tag}_${process.pid}_${made.length}`
  execFileSync('createdb', ['-h', HOST, name])
  made.push(name)
  return `postgresql:///${name}?host=${HOST}`
}

function psql(url: string, sql: string): string {
  return execFileSync('psql', [url, '-XAtq', '-c', sql], { encoding: 'utf8' }).trim()
}

afterAll(() => {
  for (const name of made) execFileSync('dropdb', ['-h', HOST, '--if-exists', '--force', name])
  rmSync(dir, { recursive: true, force: true })
})

describe('a team ledger on PostgreSQL', () => {
  it('is made in an empty database, and opened again as it is', () => {
    const url = newDatabase('new')
    const db = openLedger(url)
    expect(db.prepare('SELECT schema_version FROM ledger_identity').pluck().get()).toBe(PG_SCHEMA_VERSION)
    db.prepare("INSERT INTO ledger_meta (name, value) VALUES ('probe', 'kept')").run()
    db.close()
    const again = openLedger(url)
    expect(again.prepare("SELECT value FROM ledger_meta WHERE name = 'probe'").pluck().get()).toBe('kept')
    again.close()
  })

  it("refuses another application's database and leaves it as it was", () => {
    const url = newDatabase('foreign')
    psql(url, 'CREATE TABLE invoices (id int); INSERT INTO invoices VALUES (1)')
    expect(() => openLedger(url)).toThrow(
      /not a usable CARATS ledger: the database holds tables of another application/,
    )
    expect(psql(url, "SELECT string_agg(tablename, ',') FROM pg_tables WHERE schemaname = 'public'")).toBe('invoices')
  })

  it('refuses a ledger of a newer version of the app', () => {
    const url = newDatabase('newer')
    openLedger(url).close()
    psql(url, `UPDATE ledger_identity SET schema_version = ${PG_SCHEMA_VERSION + 1}`)
    expect(() => openLedger(url)).toThrow(
      /written by a newer version of the app \(schema \d+, this app knows up to \d+\): update the app/,
    )
  })

  it('says so when the server cannot be reached, without the password', () => {
    expect(() => openLedger('postgresql://carats:s3cret@127.0.0.1:1/none')).toThrow(
      /cannot reach the PostgreSQL ledger postgresql:\/\/carats:\*\*\*@127\.0\.0\.1:1\/none/,
    )
    try {
      openLedger('postgresql://carats:s3cret@127.0.0.1:1/none')
    } catch (e) {
      expect(String(e)).not.toContain('s3cret')
    }
  })

  it('needs its key file to be given', () => {
    const url = newDatabase('key')
    const db = openLedger(url)
    try {
      const saved = process.env.CARATS_KEY_FILE
      delete process.env.CARATS_KEY_FILE
      try {
        expect(() => openLedgerKey(db, url)).toThrow(
          /keeps its master key in a file of its own: give it with --key-file <file> or CARATS_KEY_FILE/,
        )
      } finally {
        if (saved !== undefined) process.env.CARATS_KEY_FILE = saved
      }
      const keys = openLedgerKey(db, url, { keyFile: join(dir, 'team.key') })
      expect(keys.problem).toBeNull()
      expect(existsSync(join(dir, 'team.key'))).toBe(true)
    } finally {
      db.close()
    }
  })
})
