/**
 * Crash safety: a child process selling, or generating blocks, is killed with SIGKILL at random
 * moments; each time the ledger must reopen sound: integrity_check ok, no half-made block, tier
 * counters equal to the sales, sold counts equal to the sales rows, totals in step, audit chain ok.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { spawn } from 'node:child_process'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { openLedger } from '../../electron/ledger/db'
import { openBackend } from '../../electron/services/backend'
import { testEngine, type TestLedgerLocation } from '../support/ledger-engine'
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
function runAndKill(args: string[], lines: number, extraMs: number): Promise<{ seen: string[]; signal: NodeJS.Signals | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] })
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

function checkLedger(): { sales: number } {
  const db = openLedger(dbPath)
  try {
    if (testEngine() === 'sqlite') {
      // the file's pages and its foreign keys (PostgreSQL checks both at each write)
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok')
      expect(db.pragma('foreign_key_check')).toEqual([])
    }
    // no half-made block: a secret always comes with its commitment (the schema checks it too)
    expect(db.prepare("SELECT count(*) FROM blocks WHERE (secret IS NULL) <> (commitment IS NULL) OR (status = 'pending') <> (secret IS NULL)").pluck().get()).toBe(0)
    // sold counts equal the sales rows, block by block
    const perBlock = db.prepare(`SELECT b.emission, b.block, b.units_sold, (SELECT count(*) FROM sales s WHERE s.unit_key BETWEEN b.emission * 10000000000 + b.block * 10000000 AND b.emission * 10000000000 + b.block * 10000000 + 9999999) AS rows,
                                        (SELECT coalesce(max(unit) + 1, 0) FROM sales s WHERE s.unit_key BETWEEN b.emission * 10000000000 + b.block * 10000000 AND b.emission * 10000000000 + b.block * 10000000 + 9999999) AS next
                                 FROM blocks b`).all() as { units_sold: number; rows: number; next: number }[]
    for (const r of perBlock) {
      expect(r.rows).toBe(r.units_sold)
      expect(r.next).toBe(r.units_sold) // no gap: units 0 … units_sold − 1
    }
    // tier counters equal the sales
    const counters = db.prepare('SELECT emission, block, tier, sold FROM block_tiers WHERE sold > 0 ORDER BY emission, block, tier').all()
    const fromSales = db.prepare('SELECT emission, block, tier, count(*) AS sold FROM sales WHERE tier IS NOT NULL GROUP BY emission, block, tier ORDER BY emission, block, tier').all()
    expect(counters).toEqual(fromSales)
    // players' and days' totals equal the sales
    const players = db.prepare('SELECT coalesce(sum(units), 0) AS units, coalesce(sum(staked_cents), 0) AS staked, coalesce(sum(won_cents), 0) AS won FROM players').get()
    const days = db.prepare('SELECT coalesce(sum(units), 0) AS units, coalesce(sum(sales_cents), 0) AS staked, coalesce(sum(prizes_cents), 0) AS won FROM daily_sales').get()
    const sales = db.prepare('SELECT count(*) AS units, coalesce(sum(stake_cents), 0) AS staked, coalesce(sum(prize_cents), 0) AS won FROM sales').get() as { units: number }
    expect(players).toEqual(sales)
    expect(days).toEqual(sales)
    // each player's chain holds exactly the player's sales
    const chained = db.prepare(`WITH RECURSIVE c(k) AS (SELECT last_key FROM players WHERE last_key IS NOT NULL UNION ALL SELECT s.prev_key FROM c JOIN sales s ON s.unit_key = c.k WHERE s.prev_key IS NOT NULL) SELECT count(*) FROM c`).pluck().get()
    expect(chained).toBe(sales.units)
    return { sales: sales.units }
  } finally {
    db.close()
  }
}

describe('crash safety', () => {
  it('survives being killed while selling, again and again', async () => {
    let before = 0
    for (let round = 0; round < 4; round++) {
      const { seen } = await runAndKill(['sell', ...at(String(round))], 1 + (round % 3), 50 + Math.floor(Math.random() * 400))
      const { sales } = checkLedger()
      expect(sales).toBeGreaterThanOrEqual(before + 2000 * seen.length - 2000)
      expect(sales % 2000).toBe(0) // whole batches only
      before = sales
    }
    const b = reopen()
    expect(b.services.audit.verify().ok).toBe(true)
    b.close()
  }, 240_000)

  it('survives being killed while a simulation sells on its worker thread: whole transactions only', async () => {
    let before = checkLedger().sales
    for (let round = 0; round < 2; round++) {
      const { seen } = await runAndKill(['simulate', ...at(String(round + 1))], 2, Math.floor(Math.random() * 800))
      const { sales } = checkLedger()
      // what the last progress line reported is committed; a transaction under way at the kill is not there at all
      const reported = Number(seen.filter((l) => l.startsWith('simulated')).pop()!.split(' ')[1])
      expect(sales).toBeGreaterThanOrEqual(before + reported)
      before = sales
    }
  }, 240_000)

  it('survives being killed while importing a feed on its worker thread: the file is in whole or not at all', async () => {
    const db = openLedger(dbPath)
    const batches = () => db.prepare('SELECT count(*) FROM import_batches').pluck().get() as number
    try {
      for (let round = 0; round < 3; round++) {
        const before = checkLedger().sales
        const filesBefore = batches()
        // rounds 0 and 1 are killed soon after the import starts (it takes about 2 s here), round 2 once it has committed
        const { seen } = await runAndKill(['import', ...at(String(round))], round < 2 ? 1 : 2, 100 + Math.floor(Math.random() * 900))
        const { sales } = checkLedger()
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
    const b = reopen()
    expect(b.services.audit.verify().ok).toBe(true)
    b.close()
  }, 240_000)

  it('survives being killed while generating: no half-made block, and the emission goes back to created', async () => {
    for (let round = 0; round < 2; round++) {
      await runAndKill(['generate', ...at('0')], 1, 500 + Math.floor(Math.random() * 3000))
      checkLedger()
      const b = reopen()
      try {
        const e = b.services.emissions.get(2)
        expect(e.status).toBe('created')
        for (const blk of e.blockList) expect(blk.status === 'pending' ? blk.commitment === null : /^[0-9a-f]{64}$/.test(blk.commitment ?? '')).toBe(true)
        expect(b.services.audit.list({ page: 1, pageSize: 5, action: 'emission.generate-interrupted' }).total).toBe(round + 1)
        expect(b.services.audit.verify().ok).toBe(true)
      } finally {
        b.close()
      }
    }
  }, 240_000)
})
