/**
 * The ledger's locks hold while the app runs workers: another process that reads or backs up the
 * ledger (the `sqlite3` shell, a backup tool) must see that the app still has it open.
 *
 * SQLite in WAL mode knows it is the last connection to a file when it can take an exclusive lock
 * on it; the last one out checkpoints the write-ahead log and deletes it and the -shm file. POSIX
 * locks belong to the process and closing any descriptor of the file drops all of them (SQLite,
 * "How To Corrupt An SQLite Database File", 2.2): if the app opens and closes the ledger with
 * node:fs while SQLite holds it (as a worker's connection would, checking the file's header), a
 * `sqlite3` run next believes it is alone, deletes the WAL the app still writes into, and every
 * write the app confirms afterwards is gone once the app is restarted.
 *
 * The browser host runs as a child on a ledger with an open emission; a simulation runs on its
 * worker thread; `/usr/bin/sqlite3` reads the ledger and backs it up; the host confirms more writes
 * (a new emission, another simulation); the host is killed with SIGKILL; the ledger must reopen
 * sound with every write the host confirmed, and the backup must be sound too.
 *
 * SQLite only (left out of the postgres project in vitest.config.ts): these are the file's locks.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { existsSync, rmSync, statSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import type { EmissionDetail, EmissionSummary, JobInfo, Session } from '../../electron/contract'
import { PASSWORD, USERS, openEmissionBackend, tempDir, templatePath } from './ledger-fixture'

const ROOT = join(__dirname, '..', '..')
const SQLITE3 = '/usr/bin/sqlite3'
const FIRST_SALES = 20_000
const MORE_SALES = 2_000

type Reply<T> = { ok: true; result: T } | { ok: false; error: { code: string; message: string } }

let dir: string | undefined
let dbPath: string
let host: ChildProcess | undefined
let hostStderr = ''

beforeAll(async () => {
  await templatePath()
  dir = tempDir('lock')
  const b = await openEmissionBackend(dir)
  dbPath = b.services.dbPath
  b.close()
}, 180_000)

afterAll(async () => {
  if (host && host.exitCode === null && host.signalCode === null) {
    const exited = new Promise<void>((resolve) => host!.once('exit', () => resolve()))
    host.kill('SIGKILL')
    await exited
  }
  if (dir) rmSync(dir, { recursive: true, force: true })
})

/**
 * The browser host from source (serve.ts under tsx, as the crash test runs its child: no build of
 * out/ needed, the workers bundled from their sources), on loopback and any free port.
 */
function startHost(): Promise<{ child: ChildProcess; url: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', join(ROOT, 'electron', 'host', 'serve.ts'), '--db', dbPath, '--port', '0'],
      {
        cwd: ROOT,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, INIT_CWD: ROOT },
      },
    )
    host = child
    let stdout = ''
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`the host did not start within 60 s\n${hostStderr}`))
    }, 60_000)
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (hostStderr += d))
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      stdout += d
      const m = /^listening on (http:\/\/127\.0\.0\.1:\d+\/)$/m.exec(stdout)
      if (m) {
        clearTimeout(timer)
        resolve({ child, url: m[1] })
      }
    })
    child.once('error', reject)
    child.once('exit', (code, signal) => {
      clearTimeout(timer)
      reject(new Error(`the host exited (${signal ?? code}) before listening\n${stdout}${hostStderr}`))
    })
  })
}

/** POST /api/<channel> as the renderer's http transport does; the result, or a failure naming the error. */
async function call<T>(url: string, channel: string, args: unknown, token: string | null): Promise<T> {
  const headers: Record<string, string> = { 'content-type': 'application/json' }
  if (token) headers.authorization = `Bearer ${token}`
  const res = await fetch(new URL(`api/${channel}`, url), { method: 'POST', headers, body: JSON.stringify({ args }) })
  const reply = (await res.json()) as Reply<T>
  if (!reply.ok) throw new Error(`${channel}: ${reply.error.code}: ${reply.error.message}\n${hostStderr}`)
  return reply.result
}

/** Polls the job until it has ended. */
async function jobEnd(url: string, token: string, job: JobInfo, timeoutMs = 90_000): Promise<JobInfo> {
  const deadline = Date.now() + timeoutMs
  let j = job
  while (j.state === 'running') {
    if (Date.now() > deadline)
      throw new Error(`job ${j.kind} still running after ${timeoutMs} ms (${j.done} / ${j.total})`)
    await new Promise((r) => setTimeout(r, 100))
    j = await call<JobInfo>(url, 'jobs:get', { jobId: job.id }, token)
  }
  return j
}

function hostKilled(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve()
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  child.kill('SIGKILL')
  return exited
}

describe('the ledger while another process reads it', () => {
  it('keeps every write the host confirmed after a sqlite3 shell read and backed up the ledger during a run with workers', async () => {
    const { child, url } = await startHost()
    const { token } = await call<Session>(url, 'auth:login', { name: USERS.operator, password: PASSWORD }, null)

    // 1. a simulation on the host's worker thread (a connection of its own to the ledger)
    const first = await jobEnd(
      url,
      token,
      await call<JobInfo>(url, 'sales:simulate', { emission: 1, sales: FIRST_SALES, seed: 3 }, token),
    )
    expect(first.state, `the simulation ended ${first.state}: ${first.message}`).toBe('done')
    expect((await call<EmissionDetail>(url, 'emissions:get', { emission: 1 }, token)).unitsSold).toBe(FIRST_SALES)
    // the sales are in the write-ahead log, not yet checkpointed into the file (wal_autocheckpoint 20000)
    expect(existsSync(`${dbPath}-wal`) && statSync(`${dbPath}-wal`).size).toBeGreaterThan(0)

    // 2. another process reads the ledger and backs it up while the host has it open
    const copy = join(dir!, 'backup.db')
    const shell = spawnSync(SQLITE3, [dbPath, 'SELECT count(*) FROM sales;', `.backup '${copy}'`], {
      encoding: 'utf8',
      timeout: 60_000,
    })
    expect(shell.error, `${SQLITE3} could not run (apt-get install -y sqlite3)`).toBeUndefined()
    expect(shell.status, shell.stderr).toBe(0)
    expect(shell.stdout.trim()).toBe(String(FIRST_SALES))
    // the host still has the ledger open: its write-ahead log and shared memory must still be there
    // (soft: the test goes on to show what their loss costs)
    expect
      .soft(existsSync(`${dbPath}-wal`), 'the sqlite3 shell deleted the write-ahead log the host has open')
      .toBe(true)
    expect.soft(existsSync(`${dbPath}-shm`), 'the sqlite3 shell deleted the -shm file the host has open').toBe(true)

    // 3. the host confirms more writes: on its own thread (an emission) and on a worker (a simulation)
    const created = await call<EmissionSummary>(url, 'emissions:create', { blocks: 1, code: 'LOCK-2' }, token)
    expect(created.emission).toBe(2)
    expect((await call<EmissionDetail>(url, 'emissions:get', { emission: 2 }, token)).code).toBe('LOCK-2')
    // soft from here: each check that fails says what was lost, and the ledger is still checked after the kill
    const second = await jobEnd(
      url,
      token,
      await call<JobInfo>(url, 'sales:simulate', { emission: 1, sales: MORE_SALES, seed: 4 }, token),
    )
    expect.soft(second.state, `the second simulation ended ${second.state}: ${second.message}`).toBe('done')
    const sold = second.state === 'done' ? FIRST_SALES + MORE_SALES : FIRST_SALES
    expect.soft((await call<EmissionDetail>(url, 'emissions:get', { emission: 1 }, token)).unitsSold).toBe(sold)

    // 4. the host dies; what it confirmed must be in the ledger, and the ledger sound
    await hostKilled(child)
    const db = new Database(dbPath, { fileMustExist: true })
    try {
      expect.soft(db.pragma('integrity_check', { simple: true }), 'the ledger is damaged').toBe('ok')
      expect
        .soft(
          db.prepare('SELECT code FROM emissions WHERE emission = 2').pluck().get(),
          'the emission the host confirmed is lost',
        )
        .toBe('LOCK-2')
      expect
        .soft(db.prepare('SELECT count(*) FROM sales').pluck().get(), 'sales the host confirmed are lost')
        .toBe(sold)
      expect.soft(db.prepare('SELECT units_sold FROM blocks WHERE emission = 1').pluck().get()).toBe(sold)
    } finally {
      db.close()
    }

    // the backup is a sound ledger with the sales made before it
    const backup = new Database(copy, { fileMustExist: true })
    try {
      expect(backup.pragma('integrity_check', { simple: true })).toBe('ok')
      expect(backup.prepare('SELECT count(*) FROM sales').pluck().get()).toBe(FIRST_SALES)
    } finally {
      backup.close()
    }
  }, 240_000)
})
