/**
 * The server's connections terminated mid-job (issue 30, item 3), on PostgreSQL: what a restart,
 * a failover or an administrator's pg_terminate_backend does to a workstation at work. A child
 * process (ledger-crash-child.ts) imports a feed, simulates or generates; the test ends every
 * connection to the ledger but its own at a random moment. Afterwards nothing is half-applied
 * (whole feeds, whole batches, whole blocks), the ledger is sound (ledger-crash-checks.ts, audit
 * verify, ledger check), a write cut says the connection was lost, and a job cut is over (failed
 * or, having connected again, done), its emission back where it may be taken up again.
 */
import { spawn, spawnSync } from 'node:child_process'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openLedger } from '../../electron/ledger/db'
import { openBackend } from '../../electron/app/backend'
import { checkLedger } from '../../electron/services/ledger-office'
import { testEngine, type TestLedgerLocation } from '../support/ledger-engine'
import { expectSoundLedger } from './ledger-crash-checks'
import { openEmissionLedger, templatePath, tempDir } from './ledger-fixture'

const ROOT = join(__dirname, '..', '..')
const CHILD = join(__dirname, 'ledger-crash-child.ts')

let dir: string
let ledger: TestLedgerLocation
beforeAll(async () => {
  if (testEngine() !== 'postgres') return
  await templatePath()
  dir = tempDir('terminate')
  ledger = await openEmissionLedger(dir)
}, 180_000)
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true })
})

/** Ends every server connection to the ledger's database (the child's, and its worker threads'). */
function terminateAll(): void {
  const u = new URL(ledger.location)
  const database = decodeURIComponent(u.pathname.slice(1))
  const sql = `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = '${database}' AND pid <> pg_backend_pid()`
  const r = spawnSync(
    'psql',
    ['-XAtq', '-h', u.searchParams.get('host') ?? '/var/run/postgresql', '-d', 'postgres', '-c', sql],
    { encoding: 'utf8' },
  )
  if (r.status !== 0) throw new Error(`psql: ${r.stderr}`)
}

interface Run {
  seen: string[]
  stderr: string
  code: number | null
}

/**
 * Runs the child until it has printed `lines` lines, ends its server connections `afterMs` later,
 * then lets it go on until it ends by itself or prints `done` (it then waits to be killed).
 */
function runAndTerminate(mode: string, seed: string, lines: number, afterMs: number, done: RegExp): Promise<Run> {
  return new Promise((resolve, reject) => {
    const args = [mode, ledger.location, seed, '--key-file', ledger.keyFile!]
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, ...args], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    const run: Run = { seen: [], stderr: '', code: null }
    let armed = false
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      run.seen.push(...d.split('\n').filter(Boolean))
      if (!armed && run.seen.length >= lines) {
        armed = true
        setTimeout(terminateAll, afterMs)
      }
      if (run.seen.some((l) => done.test(l))) child.kill('SIGKILL')
    })
    child.stderr.setEncoding('utf8').on('data', (d: string) => (run.stderr += d))
    child.on('error', reject)
    child.on('exit', (code) => resolve({ ...run, code }))
  })
}

/** Sound by SQL, by the audit log and by the ledger check; the number of sales and import records. */
async function expectWhole(): Promise<{ sales: number; imports: number }> {
  const { sales } = expectSoundLedger(ledger.location)
  const b = openBackend({ dbPath: ledger.location, keyFile: ledger.keyFile, threads: 1 })
  try {
    const { db, catalog, audit, clock, dbPath } = b.services
    const report = await checkLedger({ db, catalog, audit, clock, dbPath }, { prizes: false })
    expect({ ok: report.ok, audit: report.audit.ok, data: report.data.ok }).toEqual({
      ok: true,
      audit: true,
      data: true,
    })
    return { sales, imports: db.prepare('SELECT count(*) FROM import_batches').pluck().get() as number }
  } finally {
    await b.closeGracefully()
  }
}

/**
 * A child's failure is the lost connection, said as such (or it did not fail); and its clean-up,
 * outside the transaction that was cut, connected again: it left no lease behind.
 */
function expectLossSaid(run: Run): void {
  if (run.code !== 0 && run.code !== null)
    expect(run.stderr).toMatch(/connection to the team ledger .* was lost|cannot reach the team ledger/)
  const db = openLedger(ledger.location)
  try {
    expect(db.prepare('SELECT count(*) FROM job_leases').pluck().get()).toBe(0)
  } finally {
    db.close()
  }
}

describe.runIf(testEngine() === 'postgres')('server connections terminated mid-job', () => {
  it('mid-import: the feed is in whole, with its record, or not at all', async () => {
    for (let round = 0; round < 3; round++) {
      const before = await expectWhole()
      const run = await runAndTerminate('import', `t${round}`, 1, 100 + Math.floor(Math.random() * 900), /^imported/)
      expectLossSaid(run)
      const after = await expectWhole()
      const whole = after.sales === before.sales + 30_000 && after.imports === before.imports + 1
      const none = after.sales === before.sales && after.imports === before.imports
      expect(whole || none).toBe(true)
      if (run.seen.some((l) => l.startsWith('imported'))) expect(whole).toBe(true)
    }
  }, 300_000)

  it('mid-simulation: whole batches only, and what was reported is there', async () => {
    const before = await expectWhole()
    const run = await runAndTerminate('simulate', '7', 2, Math.floor(Math.random() * 800), /^done/)
    expectLossSaid(run)
    const after = await expectWhole()
    const reported = Number(
      run.seen
        .filter((l) => l.startsWith('simulated'))
        .pop()
        ?.split(' ')[1] ?? 0,
    )
    expect(after.sales).toBeGreaterThanOrEqual(before.sales + reported)
  }, 300_000)

  it('mid-generation: the job ends, its emission generated or back to created, no half-made block', async () => {
    const run = await runAndTerminate(
      'generate',
      '0',
      1,
      300 + Math.floor(Math.random() * 2000),
      /^(done|failed|cancelled)$/,
    )
    expectLossSaid(run)
    await expectWhole()
    const db = openLedger(ledger.location)
    try {
      const status = db.prepare('SELECT status FROM emissions WHERE emission = 2').pluck().get()
      const leases = db.prepare("SELECT count(*) FROM job_leases WHERE subject = 'emission:2'").pluck().get()
      expect({ status, leases }).toEqual({ status: run.seen.includes('done') ? 'generated' : 'created', leases: 0 })
    } finally {
      db.close()
    }
  }, 300_000)
})
