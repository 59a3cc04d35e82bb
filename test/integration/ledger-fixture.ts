/**
 * Ledgers for the integration tests. Generating and verifying a real CARATS block takes seconds,
 * so one template ledger (users of every role; emission 1 of one block, generated, verified and
 * open) is built once per code version and copied for each test: into a fresh temp dir on SQLite,
 * into a database of its own on PostgreSQL (CREATE DATABASE … TEMPLATE: pg-template.ts).
 */
import { createHash } from 'node:crypto'
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { MIGRATIONS } from '../../electron/ledger/schema/steps.sqlite'
import { checkpointFilePath } from '../../electron/ledger/checkpoint'
import { keyFilePath } from '../../electron/ledger/keystore'
import { openBackend, type Backend, type BackendOptions } from '../../electron/app/backend'
import { testEngine, type TestLedgerLocation } from '../support/ledger-engine'
import { freshLedgerLocation } from '../support/fresh-ledger'
import { copyPgTemplate, pgTemplate } from './pg-template'
import type { Actor } from '../../electron/services/common'
import type { Role } from '../../electron/contract/define'
import { CARATS } from '../../game-core/carats'

export const PASSWORD = 'correct horse battery'
export const USERS: Record<Role, string> = {
  admin: 'ada',
  operator: 'otto',
  support: 'suzy',
  manager: 'max',
  auditor: 'aude',
  // no account of this role in the template: a test that needs one makes it
  regulator: 'regina',
}
export const actor = (role: Role): Actor => ({ name: USERS[role], role })
export const T0 = Date.parse('2026-03-02T09:00:00Z')

/** The template emission's first sale day. */
export const TEMPLATE_STARTS_ON = '2026-03-01'
const version = createHash('sha256')
  .update(
    MIGRATIONS.map((m) => m.sql).join('\n') +
      CARATS.id +
      `TEST-1 (demo) on sale from ${TEMPLATE_STARTS_ON}; the manager confirmed`,
  )
  .digest('hex')
  .slice(0, 12)
const cacheDir = join(tmpdir(), 'carats-ledger-templates')

export function tempDir(label = 'ledger'): string {
  return mkdtempSync(join(tmpdir(), `carats-${label}-`))
}

const ledgers = new WeakMap<Backend, TestLedgerLocation>()

/** The backend opened on `at`, remembered for ledgerOf. */
function opened(at: TestLedgerLocation, opts: Partial<BackendOptions>): Backend {
  const b = openBackend({ dbPath: at.location, keyFile: at.keyFile, threads: 2, ...opts })
  ledgers.set(b, at)
  return b
}

/** Where a backend of this fixture keeps its ledger (for the CLI: `ledgerArgs(ledgerOf(b))`). */
export function ledgerOf(b: Backend): TestLedgerLocation {
  const at = ledgers.get(b)
  if (!at) throw new Error('this backend was not opened by emptyBackend or openEmissionBackend')
  return at
}

/** A fresh ledger in `dir` (its key file there, on PostgreSQL) with no user and no emission. */
export function emptyBackend(dir: string, opts: Partial<BackendOptions> = {}): Backend {
  return opened(freshLedgerLocation(dir), opts)
}

/** Builds the template ledger at `at`: users of every role, emission 1 open. */
export async function buildTemplate(at: TestLedgerLocation): Promise<void> {
  const b = openBackend({ dbPath: at.location, keyFile: at.keyFile, threads: 2 })
  try {
    const s = b.services
    s.users.setup(USERS.admin, PASSWORD)
    // the first auditor is confirmed by the system; the manager, by that auditor (staff/confirmation.ts)
    const made = (['operator', 'support', 'auditor', 'manager'] as const).map((role) =>
      s.users.create(actor('admin'), { name: USERS[role], role, password: PASSWORD }),
    )
    s.users.confirm(actor('auditor'), made[3].id)
    // on sale from the day before T0: the tests' sales are dated from T0 on (a sale before an
    // emission's first day, or before its creation when it has none, is refused)
    s.emissions.create(actor('operator'), { blocks: 1, code: 'TEST-1', startsOn: TEMPLATE_STARTS_ON, demo: true })
    const g = await s.jobs.wait(s.emissions.generate(actor('operator'), 1).id)
    if (g.state !== 'done') throw new Error(`template generation failed: ${g.message}`)
    const v = await s.jobs.wait(s.emissions.verify(actor('operator'), 1).id)
    if (v.state !== 'done') throw new Error(`template verification failed: ${v.message}`)
    s.emissions.open(actor('operator'), 1)
    if (testEngine() === 'sqlite') s.db.pragma('wal_checkpoint(TRUNCATE)')
  } finally {
    await b.closeGracefully()
  }
}

/**
 * The template's location on this run's engine (a file, or a database's URL), built on first use:
 * awaited in a beforeAll, it keeps the build out of the first test's time.
 */
export async function templatePath(): Promise<string> {
  return testEngine() === 'postgres' ? (await pgTemplate(version, buildTemplate)).location : sqliteTemplatePath()
}

/**
 * The SQLite template's path, built on first use (by whichever test process gets there first). It is
 * built in a folder of its own, which is then renamed into place whole: a ledger, its key and its
 * checkpoint always come from the same build, whatever other processes build at the same time.
 */
export async function sqliteTemplatePath(): Promise<string> {
  const folder = join(cacheDir, `open-emission-${version}`)
  const path = join(folder, 'ledger.db')
  if (existsSync(path)) return path
  mkdirSync(cacheDir, { recursive: true })
  const work = mkdtempSync(join(cacheDir, 'build-'))
  await buildTemplate({ location: join(work, 'ledger.db'), keyFile: undefined })
  try {
    renameSync(work, folder)
  } catch (e) {
    // another process put its build in place first: use that one
    rmSync(work, { recursive: true, force: true })
    if (!existsSync(path)) throw e
  }
  return path
}

/** A copy of the template in `dir` (not opened): emission 1 open with one verified block, users of every role. */
export async function openEmissionLedger(dir: string): Promise<TestLedgerLocation> {
  if (testEngine() === 'postgres') return copyPgTemplate(await pgTemplate(version, buildTemplate), dir)
  const src = await sqliteTemplatePath()
  const dbPath = join(dir, 'ledger.db')
  copyFileSync(src, dbPath)
  copyFileSync(keyFilePath(src), keyFilePath(dbPath))
  copyFileSync(checkpointFilePath(src), checkpointFilePath(dbPath))
  return { location: dbPath, keyFile: undefined }
}

/** The template's copy in `dir`, opened. */
export async function openEmissionBackend(dir: string, opts: Partial<BackendOptions> = {}): Promise<Backend> {
  return opened(await openEmissionLedger(dir), opts)
}

/** A valid play: the winning numbers by click, then "your numbers" by click or drag. */
export function samplePlay(seed = 0, mode: 'play' | 'auto' = 'play'): import('../../game-core/play').Play {
  const events: import('../../game-core/play').RevealEvent[] = []
  let t = 0
  for (let c = 0; c < 6; c++)
    events.push({ t: (t += 250 + ((seed * 37 + c * 11) % 200)), zone: 'winning', cell: c, gesture: 'click' })
  for (let c = 0; c < 24; c++)
    events.push({
      t: (t += 30 + ((seed + c) % 40)),
      zone: 'yours',
      cell: c,
      gesture: mode === 'play' && seed % 2 ? 'drag' : 'click',
    })
  return { mode, status: 'complete', events }
}
