/**
 * Crash safety, on both engines: a child process selling, or generating blocks, is killed with
 * SIGKILL at random moments; each time the ledger must reopen sound (ledger-crash-checks.ts: no
 * half-made block, tier counters and sold counts equal to the sales rows, totals in step, one audit
 * chain; on SQLite integrity_check and foreign_key_check too).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { spawn } from 'node:child_process'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { openLedger } from '../../electron/ledger/db'
import { openBackend } from '../../electron/app/backend'
import { checkLedger } from '../../electron/services/ledger-office'
import type { TestLedgerLocation } from '../support/ledger-engine'
import { expectSoundLedger } from './ledger-crash-checks'
import { openEmissionLedger, templatePath, tempDir } from './ledger-fixture'

const ROOT = join(__dirname, '..', '..')
const CHILD = join(__dirname, 'ledger-crash-child.ts')

let dir: string
let ledger: TestLedgerLocation
let dbPath: string
/** The child's arguments after its mode: the ledger, and its key file where it is not beside it. */
const at = (...rest: string[]) => [dbPath, ...rest, ...(ledger.keyFile ? ['--key-file', ledger.keyFile] : [])]
const reopen = () => openBackend({ dbPath, keyFile: ledger.keyFile })
beforeAll(async () => {
  await templatePath()
  dir = tempDir('crash')
  ledger = await openEmissionLedger(dir)
  dbPath = ledger.location
}, 180_000)
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** Runs the child until it has printed `lines` lines (or `afterMs` passed once it printed one), then kills it. */
function runAndKill(
  args: string[],
  lines: number,
  extraMs: number,
): Promise<{ seen: string[]; signal: NodeJS.Signals | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, ...args], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    const seen: string[] = []
    let stderr = ''
    let armed = false
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      seen.push(...d.split('\n').filter(Boolean))
      if (!armed && seen.length >= lines) {
        armed = true
        setTimeout(() => child.kill('SIGKILL'), extraMs)
      }
    })
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d))
    child.on('error', reject)
    child.on('exit', (code, signal) => {
      if (signal !== 'SIGKILL') reject(new Error(`the child ended by itself (code ${code}): ${stderr}`))
      else resolve({ seen, signal })
    })
  })
}

const soundLedger = () => expectSoundLedger(dbPath)

/** The ledger check (carats ledger check) finds nothing wrong: the SQL above, the audit log, every counter. */
async function expectCheckSound(): Promise<void> {
  const b = reopen()
  try {
    const { db, catalog, audit, clock } = b.services
    const report = await checkLedger({ db, catalog, audit, clock, dbPath }, { prizes: false })
    expect({ ok: report.ok, integrity: report.integrity.ok, audit: report.audit.ok, data: report.data.ok }).toEqual({
      ok: true,
      integrity: true,
      audit: true,
      data: true,
    })
  } finally {
    await b.closeGracefully()
  }
}

describe('crash safety', () => {
  it('survives being killed while selling, again and again', async () => {
    let before = 0
    for (let round = 0; round < 4; round++) {
      const { seen } = await runAndKill(
        ['sell', ...at(String(round))],
        1 + (round % 3),
        50 + Math.floor(Math.random() * 400),
      )
      const { sales } = soundLedger()
      expect(sales).toBeGreaterThanOrEqual(before + 2000 * seen.length - 2000)
      expect(sales % 2000).toBe(0) // whole batches only
      before = sales
    }
    const b = reopen()
    expect(b.services.audit.verify().ok).toBe(true)
    b.close()
  }, 240_000)

  it('survives being killed while a simulation sells on its worker thread: whole transactions only', async () => {
    let before = soundLedger().sales
    for (let round = 0; round < 2; round++) {
      const { seen } = await runAndKill(['simulate', ...at(String(round + 1))], 2, Math.floor(Math.random() * 800))
      const { sales } = soundLedger()
      // what the last progress line reported is committed; a transaction under way at the kill is not there at all
      const reported = Number(
        seen
          .filter((l) => l.startsWith('simulated'))
          .pop()!
          .split(' ')[1],
      )
      expect(sales).toBeGreaterThanOrEqual(before + reported)
      before = sales
    }
  }, 240_000)

  it('survives being killed while importing a feed on its worker thread: the file is in whole or not at all', async () => {
    const db = openLedger(dbPath)
    const batches = () => db.prepare('SELECT count(*) FROM import_batches').pluck().get() as number
    try {
      for (let round = 0; round < 3; round++) {
        const before = soundLedger().sales
        const filesBefore = batches()
        // rounds 0 and 1 are killed soon after the import starts (it takes about 2 s here), round 2 once it has committed
        const { seen } = await runAndKill(
          ['import', ...at(String(round))],
          round < 2 ? 1 : 2,
          100 + Math.floor(Math.random() * 900),
        )
        const { sales } = soundLedger()
        const done = seen.some((l) => l.startsWith('imported'))
        // killed before its commit: nothing of it; after: all of it, with its record
        if (sales === before) expect(batches()).toBe(filesBefore)
        else {
          expect(sales).toBe(before + 30_000)
          expect(batches()).toBe(filesBefore + 1)
        }
        if (done) expect(sales).toBe(before + 30_000)
      }
    } finally {
      db.close()
    }
    await expectCheckSound()
  }, 240_000)

  it('survives being killed while generating: no half-made block, and the emission goes back to created', async () => {
    for (let round = 0; round < 2; round++) {
      await runAndKill(['generate', ...at('0')], 1, 500 + Math.floor(Math.random() * 3000))
      soundLedger()
      const b = reopen()
      try {
        const e = b.services.emissions.get(2)
        expect(e.status).toBe('created')
        for (const blk of e.blockList)
          expect(blk.status === 'pending' ? blk.commitment === null : /^[0-9a-f]{64}$/.test(blk.commitment ?? '')).toBe(
            true,
          )
        expect(b.services.audit.list({ page: 1, pageSize: 5, action: 'emission.generate-interrupted' }).total).toBe(
          round + 1,
        )
        expect(b.services.audit.verify().ok).toBe(true)
      } finally {
        b.close()
      }
    }
  }, 240_000)
})
