/**
 * The command line on a team ledger: a postgresql:// URL given to --db is a database, never a file
 * named after it (it once was), and its key file is the one --key-file names.
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ensureBuilt } from '../../electron/host/build'
import { caratsArgv, caratsEnv } from './cli-process'

const HOST = '/var/run/postgresql'
const name = `carats_cli_team_${process.pid}`
const url = `postgresql:///${name}?host=${HOST}`
const dir = mkdtempSync(join(tmpdir(), 'carats-cli-team-'))

beforeAll(async () => {
  await ensureBuilt()
  execFileSync('createdb', ['-h', HOST, name])
}, 300_000)

afterAll(() => {
  execFileSync('dropdb', ['-h', HOST, '--if-exists', '--force', name])
  rmSync(dir, { recursive: true, force: true })
})

const carats = (args: string[], env: NodeJS.ProcessEnv = {}) =>
  spawnSync(process.execPath, caratsArgv(args), { cwd: dir, encoding: 'utf8', env: caratsEnv(env), timeout: 120_000 })

describe('carats --db postgresql://…', () => {
  it('refuses to open the team ledger without its key file, saying how to give it', () => {
    const r = carats(['--db', url, 'emission', 'list'], { CARATS_KEY_FILE: '' })
    expect(r.status).toBe(1)
    expect(r.stderr).toMatch(/give it with --key-file <file> or CARATS_KEY_FILE/)
  })

  it('is never a file named after its URL, from the command line either', () => {
    const key = join(dir, 'nofile.key')
    const r = carats(['--db', url, '--key-file', key, '--json', 'emission', 'list'])
    expect(r.stderr).toBe('')
    expect(JSON.parse(r.stdout)).toEqual([])
    expect(readdirSync(dir).filter((f) => f.startsWith('postgres'))).toEqual([])
    expect(existsSync(key)).toBe(true)
  })

  it('says a malformed URL is one, at once, rather than waiting forever for a connection', () => {
    const r = spawnSync(
      process.execPath,
      caratsArgv(['--db', 'postgresql://[bad', '--key-file', join(dir, 'bad.key'), 'emission', 'list']),
      {
        cwd: dir,
        encoding: 'utf8',
        env: caratsEnv(),
        timeout: 30_000,
      },
    )
    expect(r.signal).toBeNull()
    expect(r.status).toBe(1)
    expect(r.stderr).toMatch(/postgresql:\/\/\[bad is not a valid PostgreSQL URL/)
    expect(existsSync(join(dir, 'bad.key'))).toBe(false)
  })

  it('says why a new ledger has no key when its key file cannot be written, not that its audit log was wiped', () => {
    const fresh = `${name}_nokey`
    execFileSync('createdb', ['-h', HOST, fresh])
    try {
      const key = join(dir, 'no-such-folder', 'ledger.key')
      const r = carats([
        '--db',
        `postgresql:///${fresh}?host=${HOST}`,
        '--key-file',
        key,
        'emission',
        'create',
        '--blocks',
        '1',
        '--demo',
      ])
      expect(r.status).not.toBe(0)
      expect(r.stderr).toMatch(/cannot write the key file .*no-such-folder/)
      expect(r.stderr).not.toMatch(/wiped/)
    } finally {
      execFileSync('dropdb', ['-h', HOST, '--if-exists', '--force', fresh])
    }
  })

  it('takes CARATS_DB and CARATS_KEY_FILE as well', () => {
    const r = carats(['--json', 'emission', 'list'], { CARATS_DB: url, CARATS_KEY_FILE: join(dir, 'nofile.key') })
    expect(r.stderr).toBe('')
    expect(r.status).toBe(0)
  })
})
