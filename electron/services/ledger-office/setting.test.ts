/**
 * The Ledger setting service: what it shows, what it saves (and refuses), and the connection
 * test against the local PostgreSQL server (databases carats_setting_*, dropped after).
 */
import { execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest'
import { AppError } from '../../contract/errors'
import type { LedgerTestResult } from '../../contract/ledger-setting'
import { keyFingerprint, writeKeyFile } from '../../ledger/keystore'
import type { LedgerChoice } from '../../ledger/paths'
import { openBackend, type Backend } from '../../app/backend'
import type { Actor } from '../common'
import { withoutPostgres } from '../../../test/support/ledger-engine'

const ADMIN: Actor = { name: 'ada', role: 'admin' }
const SERVER = 'postgresql:///postgres?host=/var/run/postgresql'
const made: string[] = []

function psql(sql: string): string {
  return execFileSync('psql', [SERVER, '-XtAc', sql], { encoding: 'utf8' }).trim()
}
/** An empty database of this suite's own; its URL. */
function newDatabase(): string {
  const name = `carats_setting_${process.pid}_${randomBytes(3).toString('hex')}`
  psql(`CREATE DATABASE ${name}`)
  made.push(name)
  return `postgresql:///${name}?host=/var/run/postgresql`
}
afterAll(() => {
  for (const name of made) psql(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
})

let dir: string
let dataDir: string
let b: Backend
const open = (choice: Partial<LedgerChoice> = {}) => {
  const dbPath = join(dir, 'here.db')
  return openBackend({
    dbPath,
    threads: 1,
    ledgerChoice: { location: dbPath, source: 'default', keyFileSource: null, dataDir, ...choice },
  })
}
const codes = (r: LedgerTestResult) => r.steps.map((s) => `${s.step}:${s.ok ? 'ok' : 'no'}:${s.code}`)
function refusal(f: () => unknown): { code: string; field?: string; message: string } {
  try {
    f()
  } catch (e) {
    if (e instanceof AppError) return { code: e.code, field: e.extras.field, message: e.message }
    throw e
  }
  throw new Error('not refused')
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ledger-setting-'))
  dataDir = join(dir, 'data')
  b = open()
})
afterEach(async () => {
  await b.closeGracefully()
  rmSync(dir, { recursive: true, force: true })
})

describe('the ledger setting', () => {
  it('shows the ledger open now and that nothing is saved', () => {
    expect(b.services.ledgerSetting.view()).toEqual({
      current: {
        engine: 'sqlite',
        location: join(dir, 'here.db'),
        keyFile: join(dir, 'here.db.key'),
        source: 'default',
      },
      saved: null,
      savedProblem: null,
      settingFile: join(dataDir, 'ledger.json'),
      defaultFile: join(dataDir, 'carats.db'),
      overriddenBy: null,
    })
  })

  it('saves a team ledger for the next start (0600), audited, its password never shown', () => {
    const url = 'postgresql://ada:s3cret@db.example:5433/team'
    const v = b.services.ledgerSetting.save(ADMIN, { ledger: 'team', url, keyFile: '/etc/carats/team.key' })
    expect(v.saved).toEqual({
      ledger: 'team',
      url: 'postgresql://ada:***@db.example:5433/team',
      keyFile: '/etc/carats/team.key',
    })
    expect(v.current.engine).toBe('sqlite') // the running ledger is not switched
    const file = join(dataDir, 'ledger.json')
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ ledger: 'team', url, keyFile: '/etc/carats/team.key' })
    expect(statSync(file).mode & 0o777).toBe(0o600)
    const entry = b.services.audit.list({ page: 1, pageSize: 5 }).items.find((e) => e.action === 'ledger.setting')
    expect(entry).toMatchObject({ actor: 'ada', object: 'setting:ledger' })
    expect(JSON.stringify(entry)).not.toContain('s3cret')
    // sent back masked, the saved password is kept; another account's masked password is refused
    b.services.ledgerSetting.save(ADMIN, {
      ledger: 'team',
      url: 'postgresql://ada:***@db.example:5433/team2',
      keyFile: '/etc/carats/team.key',
    })
    expect(JSON.parse(readFileSync(file, 'utf8')).url).toBe('postgresql://ada:s3cret@db.example:5433/team2')
    const other = refusal(() =>
      b.services.ledgerSetting.save(ADMIN, {
        ledger: 'team',
        url: 'postgresql://eve:***@evil.example/team',
        keyFile: '/k',
      }),
    )
    expect(other).toMatchObject({
      code: 'BAD_ARGUMENTS',
      field: 'url',
      message: expect.stringMatching(/masked.*type the password/),
    })
    // back to this workstation's file
    expect(b.services.ledgerSetting.save(ADMIN, { ledger: 'file' }).saved).toEqual({ ledger: 'file' })
  })

  it("refuses a URL that is not PostgreSQL's and a relative key file, saving nothing", () => {
    const bad = refusal(() =>
      b.services.ledgerSetting.save(ADMIN, { ledger: 'team', url: 'mysql://db/team', keyFile: '/k' }),
    )
    expect(bad).toMatchObject({
      code: 'BAD_ARGUMENTS',
      field: 'url',
      message: expect.stringContaining('must be a PostgreSQL URL'),
    })
    const relative = refusal(() =>
      b.services.ledgerSetting.save(ADMIN, { ledger: 'team', url: 'postgresql:///team', keyFile: 'team.key' }),
    )
    expect(relative).toMatchObject({
      code: 'BAD_ARGUMENTS',
      field: 'keyFile',
      message: expect.stringContaining('must be an absolute path'),
    })
    expect(b.services.ledgerSetting.view().saved).toBeNull()
  })

  it('says when the saved file is broken, and a save mends it', () => {
    mkdirSync(dataDir, { recursive: true })
    writeFileSync(join(dataDir, 'ledger.json'), '{"ledger": "team", "url": "postgresql:///x"}')
    const v = b.services.ledgerSetting.view()
    expect(v.saved).toBeNull()
    expect(v.savedProblem).toMatch(
      new RegExp(`^the ledger setting ${join(dataDir, 'ledger.json')} cannot be used: "keyFile" is missing`),
    )
    expect(b.services.ledgerSetting.save(ADMIN, { ledger: 'file' })).toMatchObject({
      saved: { ledger: 'file' },
      savedProblem: null,
    })
  })

  it('says when --db or CARATS_DB decides instead of the setting, and shows a team URL masked', async () => {
    await b.closeGracefully()
    b = open({ source: 'environment' })
    expect(b.services.ledgerSetting.view().overriddenBy).toBe('environment')
    await b.closeGracefully()
    b = open({ source: 'argument', location: join(dir, 'here.db') })
    expect(b.services.ledgerSetting.view().overriddenBy).toBe('argument')
  })
})

describe.skipIf(withoutPostgres())('the connection test (needs PostgreSQL: skipped by npm run test:sqlite)', () => {
  it('finds an empty database, and a key file that will be made', async () => {
    const url = newDatabase()
    const r = await b.services.ledgerSetting.test({ url, keyFile: join(dir, 'team.key') })
    expect(codes(r)).toEqual(['server:ok:reached', 'database:ok:empty', 'keyFile:ok:keyWillBeMade'])
    expect(r.ok).toBe(true)
    // nothing was written: still empty
    expect(
      execFileSync('psql', [url, '-XtAc', "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'"], {
        encoding: 'utf8',
      }).trim(),
    ).toBe('0')
  })

  it('recognises a ledger and its key, and refuses another key, a missing one, a folder that is not there', async () => {
    const url = newDatabase()
    const keyFile = join(dir, 'team.key')
    const team = openBackend({ dbPath: url, keyFile, threads: 1 })
    await team.closeGracefully()
    const test = (k: string) => b.services.ledgerSetting.test({ url, keyFile: k })
    expect(codes(await test(keyFile))).toEqual(['server:ok:reached', 'database:ok:ledger', 'keyFile:ok:keyMatches'])
    const other = join(dir, 'other.key')
    writeKeyFile(other, randomBytes(32))
    const wrong = await test(other)
    expect(codes(wrong)[2]).toBe('keyFile:no:keyWrong')
    expect(wrong.steps[2].params.expected).toBe(
      keyFingerprint(Buffer.from(readFileSync(keyFile, 'utf8').trim(), 'hex')).slice(0, 16),
    )
    expect(codes(await test(join(dir, 'gone.key')))[2]).toBe('keyFile:no:keyMissing')
    const fresh = await b.services.ledgerSetting.test({
      url: newDatabase(),
      keyFile: join(dir, 'no-such-folder', 'team.key'),
    })
    expect(codes(fresh)[2]).toBe('keyFile:no:keyDirMissing')
  })

  it('says the server cannot be reached, the database does not exist, or holds another application', async () => {
    const noServer = await b.services.ledgerSetting.test({
      url: 'postgresql:///x?host=/nonexistent-socket-dir',
      keyFile: '/k',
    })
    expect(codes(noServer)).toEqual(['server:no:refused', 'database:no:notChecked', 'keyFile:no:notChecked'])
    const noDb = await b.services.ledgerSetting.test({
      url: 'postgresql:///carats_setting_never_made?host=/var/run/postgresql',
      keyFile: '/k',
    })
    expect(codes(noDb)[0]).toBe('server:no:noDatabase')
    const url = newDatabase()
    execFileSync('psql', [url, '-XtAc', 'CREATE TABLE orders (id int)'])
    expect(codes(await b.services.ledgerSetting.test({ url, keyFile: '/k' })).slice(1)).toEqual([
      'database:no:foreign',
      'keyFile:no:notChecked',
    ])
  })
})
