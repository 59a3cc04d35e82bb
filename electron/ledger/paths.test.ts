import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { writeLedgerSetting } from './setting-file'
import { dbArgument, keyFileArgument, resolveLedger, userDataDir } from './paths'

/** The location chosen from the command line and the environment alone (no setting in /d). */
const resolveDbPath = (argv: string[], env: Record<string, string | undefined>, dataDir: string, cwd: string) =>
  resolveLedger({ argv, env, dataDir, cwd }).location

describe('per-user data folder', () => {
  it('follows each platform', () => {
    expect(userDataDir({ platform: 'linux', env: {}, home: '/home/ada' })).toBe('/home/ada/.local/share/carats')
    expect(userDataDir({ platform: 'linux', env: { XDG_DATA_HOME: '/data/ada' }, home: '/home/ada' })).toBe(
      '/data/ada/carats',
    )
    // The XDG spec says to ignore a relative XDG_DATA_HOME.
    expect(userDataDir({ platform: 'linux', env: { XDG_DATA_HOME: 'rel' }, home: '/home/ada' })).toBe(
      '/home/ada/.local/share/carats',
    )
    expect(userDataDir({ platform: 'darwin', env: {}, home: '/Users/ada' })).toBe(
      '/Users/ada/Library/Application Support/carats',
    )
    expect(
      userDataDir({ platform: 'win32', env: { APPDATA: 'C:\\Users\\ada\\AppData\\Roaming' }, home: 'C:\\Users\\ada' }),
    ).toBe(join('C:\\Users\\ada\\AppData\\Roaming', 'carats'))
  })
})

describe('ledger path', () => {
  it('reads --db in both spellings', () => {
    expect(dbArgument(['--db', 'a.db'])).toBe('a.db')
    expect(dbArgument(['x', '--db=b.db', '--port', '3'])).toBe('b.db')
    expect(dbArgument(['--port', '3'])).toBeUndefined()
  })

  it('refuses --db without a file', () => {
    expect(() => dbArgument(['--db'])).toThrow(/needs a file/)
    expect(() => dbArgument(['--db', '--port', '3'])).toThrow(/needs a file/)
    expect(() => dbArgument(['--db='])).toThrow(/needs a file/)
  })

  it('prefers --db, then CARATS_DB, then the per-user folder', () => {
    expect(resolveDbPath(['--db', 'x.db'], { CARATS_DB: '/e/y.db' }, '/d', '/cwd')).toBe('/cwd/x.db')
    expect(resolveDbPath([], { CARATS_DB: '/e/y.db' }, '/d', '/cwd')).toBe('/e/y.db')
    expect(resolveDbPath([], { CARATS_DB: '' }, '/d', '/cwd')).toBe('/d/carats.db')
    expect(resolveDbPath([], {}, '/d', '/cwd')).toBe('/d/carats.db')
  })

  it('takes a PostgreSQL URL as it is, never as a file name', () => {
    const url = 'postgresql:///carats?host=/var/run/postgresql'
    expect(resolveDbPath(['--db', url], {}, '/d', '/cwd')).toBe(url)
    expect(resolveDbPath([], { CARATS_DB: 'postgres://u:p@db.example:5433/team' }, '/d', '/cwd')).toBe(
      'postgres://u:p@db.example:5433/team',
    )
    expect(resolveDbPath([`--db=${url}`], {}, '/d', '/cwd')).toBe(url)
  })
})

describe('the ledger choice with the workstation setting', () => {
  const dirs: string[] = []
  const dataDir = () => {
    const d = mkdtempSync(join(tmpdir(), 'carats-paths-'))
    dirs.push(d)
    return d
  }
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
  })
  const team = {
    ledger: 'team' as const,
    url: 'postgresql://ada:s3cret@db.example/team',
    keyFile: '/etc/carats/team.key',
  }

  it("opens the setting's team database with its key file when nothing overrides it", () => {
    const d = dataDir()
    writeLedgerSetting(d, team)
    expect(resolveLedger({ argv: [], env: {}, dataDir: d, cwd: '/cwd' })).toEqual({
      location: team.url,
      source: 'setting',
      keyFile: team.keyFile,
      keyFileSource: 'setting',
      dataDir: d,
    })
  })

  it("lets --db, then CARATS_DB, override the setting; the setting's key file then does not apply", () => {
    const d = dataDir()
    writeLedgerSetting(d, team)
    expect(
      resolveLedger({ argv: ['--db', 'x.db'], env: { CARATS_DB: '/e/y.db' }, dataDir: d, cwd: '/cwd' }),
    ).toMatchObject({ location: '/cwd/x.db', source: 'argument', keyFileSource: null })
    const env = resolveLedger({ argv: [], env: { CARATS_DB: '/e/y.db' }, dataDir: d, cwd: '/cwd' })
    expect(env).toMatchObject({ location: '/e/y.db', source: 'environment', keyFileSource: null })
    expect(env.keyFile).toBeUndefined()
  })

  it("prefers --key-file, then CARATS_KEY_FILE, to the setting's key file", () => {
    const d = dataDir()
    writeLedgerSetting(d, team)
    const env = { CARATS_KEY_FILE: '/env/k.key' }
    expect(resolveLedger({ argv: ['--key-file', 'k.key'], env, dataDir: d, cwd: '/cwd' })).toMatchObject({
      keyFile: '/cwd/k.key',
      keyFileSource: 'argument',
    })
    expect(resolveLedger({ argv: ['--key-file=/a/k.key'], env, dataDir: d, cwd: '/cwd' })).toMatchObject({
      keyFile: '/a/k.key',
      keyFileSource: 'argument',
    })
    expect(resolveLedger({ argv: [], env, dataDir: d, cwd: '/cwd' })).toMatchObject({
      location: team.url,
      keyFile: '/env/k.key',
      keyFileSource: 'environment',
    })
    expect(() => keyFileArgument(['--key-file'])).toThrow(/--key-file needs a file name/)
  })

  it('opens the default file for a "file" setting or none', () => {
    const d = dataDir()
    expect(resolveLedger({ argv: [], env: {}, dataDir: d, cwd: '/cwd' })).toMatchObject({
      location: join(d, 'carats.db'),
      source: 'default',
    })
    writeLedgerSetting(d, { ledger: 'file' })
    expect(resolveLedger({ argv: [], env: {}, dataDir: d, cwd: '/cwd' })).toMatchObject({
      location: join(d, 'carats.db'),
      source: 'setting',
    })
  })

  it('refuses a broken setting, naming the file and what is wrong, and never falls back to the file', () => {
    const d = dataDir()
    const file = join(d, 'ledger.json')
    const choose = () => resolveLedger({ argv: [], env: {}, dataDir: d, cwd: '/cwd' })
    writeFileSync(file, '{ "ledger": "team", ')
    expect(choose).toThrow(`the ledger setting ${file} cannot be used: it is not valid JSON`)
    writeFileSync(file, '{ "ledger": "cloud" }')
    expect(choose).toThrow(/"ledger" is "cloud": it must be "file" or "team"/)
    writeFileSync(file, JSON.stringify({ ...team, url: 'db.example/team' }))
    expect(choose).toThrow(/"url" must be a PostgreSQL URL/)
    writeFileSync(file, JSON.stringify({ ...team, keyFile: 'team.key' }))
    expect(choose).toThrow(/"keyFile" must be an absolute path/)
    writeFileSync(file, JSON.stringify({ ledger: 'team', url: team.url }))
    expect(choose).toThrow(/"keyFile" is missing/)
    writeFileSync(file, '[]')
    expect(choose).toThrow(/one JSON object/)
    // an override does not need the setting, broken or not
    expect(resolveLedger({ argv: ['--db', '/x.db'], env: {}, dataDir: d, cwd: '/cwd' }).location).toBe('/x.db')
  })
})
