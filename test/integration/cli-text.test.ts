/**
 * The command line under the one text rule, and its check of the audit chain listing every
 * broken entry (issue 29, item 1). Both engines: the log altered with the `sqlite3` shell or
 * `psql`, the triggers out of the way.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ensureBuilt } from '../../electron/host/build'
import { ledgerArgs, testLedgerLocation } from '../support/ledger-engine'
import { outsideSql } from '../support/outside-sql'
import { caratsArgv, caratsEnv } from './cli-process'

const root = join(__dirname, '../..')
const dir = mkdtempSync(join(tmpdir(), 'carats-cli-text-'))
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
const addUser = (name: string, role = 'admin') =>
  carats(['--json', 'user', 'add', '--name', name, '--role', role, '--password-stdin'], `${PASSWORD}\n`)

beforeAll(() => ensureBuilt(), 300_000)
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe.sequential('the command line', () => {
  it(
    'refuses a name with an invisible or bidirectional character, naming the option and the character, and composes the others',
    () => {
      expect(addUser('admin').code).toBe(0)
      for (const [name, char] of [
        ['bob\u200b', 'U+200B'],
        ['b\u202eob', 'U+202E'],
        ['bo\u0007b', 'U+0007'],
      ]) {
        const r = addUser(name, 'support')
        expect(r.code, name).toBe(1)
        expect(r.err).toContain(`carats user add: --name: it holds ${char} at character`)
      }
      expect(JSON.parse(addUser('He\u0301le\u0300ne', 'support').out)).toMatchObject({ name: 'H\u00e9l\u00e8ne' })
      expect(carats(['emission', 'create', '--blocks', '1', '--code', 'X\u2066Y']).err).toMatch(
        /--code: it holds U\+2066 at character 2/,
      )
    },
    T,
  )

  it(
    'lists every altered entry of the audit log, in audit verify and in ledger check',
    () => {
      expect(carats(['audit', 'verify']).code).toBe(0)
      const pg = ledger.location.startsWith('postgresql:')
      const alter = `UPDATE audit SET actor = 'eve' WHERE seq = 2; UPDATE audit SET object = 'user:99' WHERE seq = 3`
      outsideSql(
        ledger.location,
        pg
          ? `ALTER TABLE audit DISABLE TRIGGER USER; ${alter}; ALTER TABLE audit ENABLE TRIGGER USER`
          : `DROP TRIGGER IF EXISTS audit_no_update; ${alter}`,
      )
      const verify = carats(['audit', 'verify'])
      expect(verify.code).toBe(1)
      expect(verify.out).toContain(
        'audit log BROKEN at 2 entries:\n  entry 2: entry 2 was altered after it was written\n  entry 3: entry 3 was altered after it was written\n',
      )
      const json = JSON.parse(carats(['--json', 'audit', 'verify']).out) as { bad: unknown[]; badCount: number }
      expect(json).toMatchObject({ badCount: 2, bad: [{ seq: 2 }, { seq: 3 }] })
      const check = carats(['ledger', 'check', '--no-prizes'])
      expect(check.code).toBe(1)
      expect(check.out).toMatch(/NOT SOUND[\s\S]*audit log BROKEN at 2 entries:\n {2}entry 2: [^\n]*\n {2}entry 3: /)
    },
    T,
  )
})
