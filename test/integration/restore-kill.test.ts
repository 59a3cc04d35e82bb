/**
 * `carats restore --replace` killed part way (issue 29, item 6: killed after about 1 s, it left the
 * restored ledger in place with no `ledger.restored` entry). Whenever it is killed, afterwards
 * either the ledger that was there is intact (its log verified, no restore in it), or the restored
 * one is in place with its `ledger.restored` entry and `carats ledger check` finds it sound. A
 * SQLite file only: a team ledger is restored into a new, empty database (cli-team-ledger tests).
 */
import { spawn } from 'node:child_process'
import { chmodSync, copyFileSync, existsSync, readdirSync, rmSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ensureBuilt } from '../../electron/host/build'
import { testEngine } from '../support/ledger-engine'
import { caratsArgv, caratsEnv, ROOT } from './cli-process'
import { sqliteTemplatePath, tempDir } from './ledger-fixture'

const T = 240_000
const keyOf = (db: string) => `${db}.key`
const checkpointOf = (db: string) => `${db}.audit-checkpoint`
const dirs: string[] = []

interface Run {
  code: number | null
  signal: NodeJS.Signals | null
  out: string
  err: string
}

/** `carats --db <db> <args>`; `watch` may kill it (it is given the child and polled every 2 ms). */
function carats(db: string, args: string[], o: { env?: NodeJS.ProcessEnv; watch?: () => boolean } = {}): Promise<Run> {
  const child = spawn(process.execPath, caratsArgv(['--db', db, ...args]), {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: caratsEnv(o.env),
  })
  let out = ''
  let err = ''
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d))
  child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d))
  const poll = o.watch ? setInterval(() => o.watch!() && child.kill('SIGKILL'), 2) : null
  return new Promise((resolve, reject) => {
    child.once('error', reject)
    child.once('close', (code, signal) => {
      if (poll) clearInterval(poll)
      resolve({ code, signal, out, err })
    })
  })
}

async function json<T>(db: string, ...args: string[]): Promise<T> {
  const r = await carats(db, ['--json', ...args])
  if (r.code !== 0) throw new Error(`carats ${args.join(' ')} exited ${r.code}: ${r.out}${r.err}`)
  return JSON.parse(r.out) as T
}

let base = ''
let backup = ''
let emissionsBefore = 0
let emissionsInBackup = 0

/** A copy of the base ledger (file, key, checkpoint) in a folder of its own. */
function ledgerCopy(label: string): string {
  const dir = tempDir(`restore-kill-${label}`)
  dirs.push(dir)
  const db = join(dir, 'ledger.db')
  for (const [from, to] of [
    [base, db],
    [keyOf(base), keyOf(db)],
    [checkpointOf(base), checkpointOf(db)],
  ])
    copyFileSync(from, to)
  chmodSync(keyOf(db), 0o600)
  return db
}

/** What the ledger at `db` is after a restore was killed: the old one intact, or the restored one with its entry, sound. */
async function outcome(db: string): Promise<'old' | 'restored'> {
  const verify = await carats(db, ['audit', 'verify'])
  expect(verify.code, verify.out + verify.err).toBe(0)
  const emissions = (await json<unknown[]>(db, 'emission', 'list')).length
  const restored = await carats(db, ['--json', 'ledger', 'check'])
  if (emissions === emissionsBefore) {
    expect(restored.code, restored.out + restored.err).toBe(0)
    return 'old'
  }
  expect(emissions).toBe(emissionsInBackup)
  expect(restored.code, restored.out + restored.err).toBe(0)
  const log = await carats(db, ['--json', 'audit', 'export', '--out', join(db, '..', `audit-${Date.now()}.csv`)])
  expect(log.code, log.err).toBe(0)
  const entries = (await import('node:fs')).readFileSync(JSON.parse(log.out).file, 'utf8')
  expect(entries).toMatch(/ledger\.restored/)
  return 'restored'
}

beforeAll(async () => {
  if (testEngine() === 'postgres') return
  await ensureBuilt()
  const template = await sqliteTemplatePath()
  const dir = tempDir('restore-kill-base')
  dirs.push(dir)
  base = join(dir, 'ledger.db')
  copyFileSync(template, base)
  copyFileSync(keyOf(template), keyOf(base))
  chmodSync(keyOf(base), 0o600)
  if ((await carats(base, ['audit', 'verify'])).code !== 0) {
    expect(
      (
        await carats(base, [
          'audit',
          'reanchor',
          '--reason',
          'test base: the template was copied without its checkpoint',
        ])
      ).code,
    ).toBe(0)
  }
  backup = join(dir, 'backup.db')
  expect((await carats(base, ['backup', backup])).code).toBe(0)
  emissionsInBackup = (await json<unknown[]>(base, 'emission', 'list')).length
  // the ledger moves on after its backup: one more emission
  await json(base, 'emission', 'create', '--blocks', '1', '--demo', '--code', 'AFTER-BACKUP')
  emissionsBefore = emissionsInBackup + 1
}, T)

afterAll(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

describe.skipIf(testEngine() === 'postgres')('carats restore --replace, killed part way', () => {
  it(
    'killed as soon as the restored ledger is in place: it is there with its ledger.restored entry, or the old one is',
    async () => {
      const db = ledgerCopy('in-place')
      const inode = statSync(db).ino
      const replaced = () =>
        readdirSync(join(db, '..')).some((f) => f.includes('before-restore')) ||
        (existsSync(db) && statSync(db).ino !== inode)
      const r = await carats(db, ['restore', backup, '--replace'], { watch: replaced })
      expect(r.signal).toBe('SIGKILL')
      expect(await outcome(db)).toBe('restored')
    },
    T,
  )

  for (const ms of [300, 1000, 2000]) {
    it(
      `killed after ${ms} ms: the old ledger intact, or the restored one with its entry`,
      async () => {
        const db = ledgerCopy(`after-${ms}`)
        const t0 = Date.now()
        await carats(db, ['restore', backup, '--replace'], { watch: () => Date.now() - t0 >= ms })
        expect(['old', 'restored']).toContain(await outcome(db))
      },
      T,
    )
  }

  // the stages of restore (ledger-office/restore.sqlite.ts): before its journal, the old ledger; from it on, the restored one
  for (const [stage, expected] of [
    ['staged', 'old'],
    ['recorded', 'old'],
    ['journal', 'restored'],
    ['ledger', 'restored'],
    ['key', 'restored'],
  ] as const) {
    it(
      `killed at stage "${stage}": the ${expected} ledger, whole`,
      async () => {
        const db = ledgerCopy(stage)
        const r = await carats(db, ['restore', backup, '--replace'], { env: { CARATS_TEST_RESTORE_STOP_AT: stage } })
        expect(r.signal, r.out + r.err).toBe('SIGKILL')
        expect(await outcome(db)).toBe(expected)
        // the next restore starts clean: nothing of the killed one is in its way
        const again = await carats(db, ['restore', backup, '--replace'])
        expect(again.code, again.out + again.err).toBe(0)
        expect(await outcome(db)).toBe('restored')
      },
      T,
    )
  }
})
