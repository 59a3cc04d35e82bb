import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { dbArgument, resolveDbPath, userDataDir } from './paths'

describe('per-user data folder', () => {
  it('follows each platform', () => {
    expect(userDataDir({ platform: 'linux', env: {}, home: '/home/ada' })).toBe('/home/ada/.local/share/carats')
    expect(userDataDir({ platform: 'linux', env: { XDG_DATA_HOME: '/data/ada' }, home: '/home/ada' })).toBe('/data/ada/carats')
    // The XDG spec says to ignore a relative XDG_DATA_HOME.
    expect(userDataDir({ platform: 'linux', env: { XDG_DATA_HOME: 'rel' }, home: '/home/ada' })).toBe('/home/ada/.local/share/carats')
    expect(userDataDir({ platform: 'darwin', env: {}, home: '/Users/ada' })).toBe('/Users/ada/Library/Application Support/carats')
    expect(userDataDir({ platform: 'win32', env: { APPDATA: 'C:\\Users\\ada\\AppData\\Roaming' }, home: 'C:\\Users\\ada' })).toBe(
      join('C:\\Users\\ada\\AppData\\Roaming', 'carats'),
    )
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
    expect(resolveDbPath([], { CARATS_DB: 'postgres://u:p@db.example:5433/team' }, '/d', '/cwd')).toBe('postgres://u:p@db.example:5433/team')
    expect(resolveDbPath([`--db=${url}`], {}, '/d', '/cwd')).toBe(url)
  })
})
