/**
 * `carats user …`: accounts from the command line, and the way back in for an administrator whom
 * anyone locked out by typing 5 wrong passwords at the sign-in (issue 29, item 6): `user unlock`.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir, userInfo } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AppError } from '../../electron/contract/errors'
import { ensureBuilt } from '../../electron/host/build'
import { openBackend } from '../../electron/app/backend'
import { ledgerArgs, testLedgerLocation } from '../support/ledger-engine'
import { caratsArgv, caratsEnv } from './cli-process'

const root = join(__dirname, '../..')
const dir = mkdtempSync(join(tmpdir(), 'carats-cli-users-'))
const ledger = testLedgerLocation(dir)
const PASSWORD = 'correct horse battery'
const T = 120_000

function carats(args: string[], input?: string) {
  const r = spawnSync(process.execPath, caratsArgv([...ledgerArgs(ledger), ...args]), {
    cwd: root,
    encoding: 'utf8',
    input,
    env: caratsEnv(),
    timeout: T,
  })
  return { code: r.status, out: r.stdout, err: r.stderr }
}

/** Sign-ins through the app's own service, as the screens make them: the user's name, or the refusal's reason. */
async function signIn(password: string, times = 1): Promise<string[]> {
  const b = openBackend({ dbPath: ledger.location, keyFile: ledger.keyFile, threads: 1 })
  try {
    const out: string[] = []
    for (let i = 0; i < times; i++) {
      try {
        out.push((await b.services.users.login('admin', password)).user.name)
      } catch (e) {
        if (!(e instanceof AppError)) throw e
        out.push(e.extras.reason?.key ?? e.code)
      }
    }
    return out
  } finally {
    await b.closeGracefully()
  }
}

beforeAll(() => ensureBuilt(), 300_000)
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe.sequential('carats user', () => {
  it(
    'adds the administrator, with the password on standard input',
    () => {
      const r = carats(
        ['--json', 'user', 'add', '--name', 'admin', '--role', 'admin', '--password-stdin'],
        `${PASSWORD}\n`,
      )
      expect(r.err).toBe('')
      expect(JSON.parse(r.out)).toMatchObject({ name: 'admin', role: 'admin', active: true })
    },
    T,
  )

  it(
    'unlocks an administrator locked out by 5 wrong passwords, audited under the OS user',
    async () => {
      expect(await signIn('not the password', 5)).toEqual(Array(5).fill('WRONG_CREDENTIALS'))
      expect(await signIn(PASSWORD)).toEqual(['SIGN_IN_LOCKED'])
      const list = carats(['user', 'list'])
      expect(list.code).toBe(0)
      expect(list.out).toMatch(/^admin +admin +active +locked until \d{4}-\d\d-\d\dT/m)
      const r = carats(['user', 'unlock', 'ADMIN'])
      expect(r.err).toBe('')
      expect(r.code).toBe(0)
      expect(r.out).toBe('admin unlocked: its failed sign-ins are forgotten (audited)\n')
      expect(await signIn(PASSWORD)).toEqual(['admin'])
      const audit = JSON.parse(carats(['--json', 'user', 'list']).out) as { name: string; lockedUntil: string | null }[]
      expect(audit).toMatchObject([{ name: 'admin', lockedUntil: null }])
      const b = openBackend({ dbPath: ledger.location, keyFile: ledger.keyFile, threads: 1 })
      try {
        const entry = b.services.audit.list({ action: 'user.unlock', page: 1, pageSize: 5 }).items[0]
        expect(entry).toMatchObject({ actor: `os:${userInfo().username}`, action: 'user.unlock' })
        expect(JSON.parse(entry.details)).toMatchObject({ name: 'admin', lockouts: 1, failures: 5 })
      } finally {
        await b.closeGracefully()
      }
    },
    T,
  )

  it(
    'says so when the account was not locked, and refuses a name that is no account',
    () => {
      const r = carats(['user', 'unlock', 'admin'])
      expect(r.code).toBe(0)
      expect(r.out).toBe('admin was not locked: nothing to do\n')
      const none = carats(['user', 'unlock', 'nobody'])
      expect(none.code).toBe(1)
      expect(none.err).toBe('carats user unlock: there is no account named "nobody" (carats user list)\n')
      const usage = carats(['user', 'unlock'])
      expect(usage.code).toBe(2)
      expect(usage.err).toBe('carats user unlock: name the account: carats user unlock <name>\n')
    },
    T,
  )
})
