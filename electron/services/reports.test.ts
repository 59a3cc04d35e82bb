import { afterEach, describe, expect, it } from 'vitest'
import { deriveFigures } from '../../game-core/rules'
import { smallDefinition } from '../../test/support/game-fixtures'
import { parseCsv } from '../../test/support/parse-csv'
import { unitKey } from '../ledger/migrations'
import { createAlertsService } from './alerts'
import { checkpointAt, countCheckpoints, createReports, MAX_POINTS, type Reports } from './reports'
import { openLedgerFixture, TEST_ACTOR, type LedgerFixture } from './simulator-fixture'

const def = smallDefinition()
const NOW = Date.parse('2025-03-20T15:00:00Z')
const open: LedgerFixture[] = []
afterEach(() => {
  while (open.length) open.pop()!.close()
})

async function setup(): Promise<{ f: LedgerFixture; reports: Reports }> {
  const f = openLedgerFixture({ definition: def, clock: () => new Date(NOW) })
  open.push(f)
  const alerts = createAlertsService({ db: f.db, clock: f.clock, audit: f.audit, catalog: f.catalog })
  return { f, reports: createReports({ db: f.db, clock: f.clock, catalog: f.catalog, alerts }) }
}

/** Prizes per tier among the units sold before `key` (exclusive), counted from the sales table. */
function soldBefore(f: LedgerFixture, from: number, to: number): number[] {
  const rows = f.db.prepare('SELECT tier, count(*) AS n FROM sales WHERE unit_key >= ? AND unit_key < ? AND tier IS NOT NULL GROUP BY tier').all(from, to) as { tier: number; n: number }[]
  const out = new Array(def.tiers.length).fill(0)
  for (const r of rows) out[r.tier] = r.n
  return out
}

describe('prize counts at checkpoints', () => {
  it('counts each tier among the units before each checkpoint', () => {
    const size = 2500
    const tiers = new Uint8Array(size).fill(255)
    for (let u = 0; u < size; u += 7) tiers[u] = u % 3
    const counts = countCheckpoints(tiers, 3, size)
    for (const k of [0, 1, 2, 399, 400, 999, 1000]) {
      const end = checkpointAt(k, size)
      for (let t = 0; t < 3; t++) {
        let n = 0
        for (let u = 0; u < end; u++) if (tiers[u] === t) n++
        expect(counts[k * 3 + t]).toBe(n)
      }
    }
  })
})

describe('depletion', () => {
  it('of a block agrees with the sales table at every point of its series', async () => {
    const { f, reports } = await setup()
    const e = await f.openEmission({ startsOn: '2025-03-01' })
    await f.simulator.run(TEST_ACTOR, { emission: e, sales: 6543, seed: 4 })
    const r = reports.depletion({ emission: e, block: 1 })
    expect(r).toMatchObject({ emission: e, block: 1, unitsTotal: 10_000, unitsSold: 6543, asOf: new Date(NOW).toISOString() })
    const sold = soldBefore(f, unitKey(e, 1, 0), unitKey(e, 1, 6543))
    expect(r.tiers).toEqual(def.tiers.map((t, i) => ({ amountCents: t.amountCents, initial: t.count, sold: sold[i], remaining: t.count - sold[i] })))
    expect(r.series.length).toBeLessThanOrEqual(MAX_POINTS + 2)
    expect(r.series.length).toBe(MAX_POINTS + 1)
    expect(r.series[0]).toEqual({ unitsSold: 0, remaining: def.tiers.map((t) => t.count) })
    expect(r.series.at(-1)!.unitsSold).toBe(6543)
    let last = -1
    for (const p of r.series) {
      expect(p.unitsSold).toBeGreaterThan(last)
      last = p.unitsSold
      const before = soldBefore(f, unitKey(e, 1, 0), unitKey(e, 1, p.unitsSold))
      expect(p.remaining).toEqual(def.tiers.map((t, i) => t.count - before[i]))
    }
  })

  it('of an emission runs across its blocks in selling order', async () => {
    const { f, reports } = await setup()
    const e = await f.openEmission({ blocks: 3, startsOn: '2025-03-01' })
    await f.simulator.run(TEST_ACTOR, { emission: e, sales: 13_000, seed: 5 })
    const r = reports.depletion({ emission: e })
    expect(r).toMatchObject({ block: null, unitsTotal: 30_000, unitsSold: 13_000 })
    expect(r.tiers.map((t) => t.initial)).toEqual(def.tiers.map((t) => t.count * 3))
    expect(r.series.length).toBe(MAX_POINTS + 1)
    const all = soldBefore(f, unitKey(e, 1, 0), unitKey(e, 4, 0))
    expect(r.tiers.map((t) => t.sold)).toEqual(all)
    for (const p of r.series) {
      const block = Math.floor(p.unitsSold / 10_000) + 1
      const before = soldBefore(f, unitKey(e, 1, 0), unitKey(e, block, p.unitsSold % 10_000))
      expect(p.remaining).toEqual(def.tiers.map((t, i) => 3 * t.count - before[i]))
    }
    // block 1 sold out: all its prizes are gone at 10,000
    const past = r.series.filter((p) => p.unitsSold >= 10_000)
    expect(past.length).toBeGreaterThan(50)
    for (const p of past) p.remaining.forEach((left, t) => expect(left).toBeLessThanOrEqual(2 * def.tiers[t].count))
    // a block not sold yet
    expect(reports.depletion({ emission: e, block: 3 }).series).toEqual([{ unitsSold: 0, remaining: def.tiers.map((t) => t.count) }])
  })

  it('of an emission not generated yet, and of unknown ones', async () => {
    const { f, reports } = await setup()
    const e = f.emissions.create(TEST_ACTOR, { blocks: 2 }).emission
    expect(reports.depletion({ emission: e })).toMatchObject({ unitsSold: 0, series: [{ unitsSold: 0 }] })
    expect(() => reports.depletion({ emission: 99 })).toThrow(/emission 99 does not exist/)
    expect(() => reports.depletion({ emission: e, block: 5 })).toThrow(/has no block 5/)
  })
})

describe('the dashboard', () => {
  it('agrees with the sales table, and counts liability on open emissions only', async () => {
    const { f, reports } = await setup()
    const a = await f.openEmission({ startsOn: '2025-03-01' })
    const b = await f.openEmission({ blocks: 2, startsOn: '2025-03-01' })
    await f.simulator.run(TEST_ACTOR, { emission: a, sales: 4000, seed: 1 })
    await f.simulator.run(TEST_ACTOR, { emission: b, sales: 2500, seed: 2 })
    f.emissions.close(TEST_ACTOR, a)
    const d = reports.dashboard({ includeDemo: true })
    const one = <T>(sql: string) => f.db.prepare(sql).get() as T
    const totals = one<{ n: number; stake: number; prizes: number; won: number }>('SELECT count(*) AS n, sum(stake_cents) AS stake, sum(prize_cents > 0) AS prizes, sum(prize_cents) AS won FROM sales')
    expect(d).toMatchObject({ asOf: new Date(NOW).toISOString(), unitsSold: 6500, salesCents: totals.stake, prizesWon: totals.prizes, prizesWonCents: totals.won })
    expect(d.realisedPayout).toBeCloseTo(totals.won / totals.stake, 12)
    expect(d.theoreticalPayout).toBeCloseTo(deriveFigures(def).payoutRatio, 12)
    const wonOnB = one<{ w: number }>(`SELECT sum(prize_cents) AS w FROM sales WHERE unit_key >= ${unitKey(b, 1, 0)}`).w
    expect(d.remainingLiabilityCents).toBe(2 * deriveFigures(def).prizeTotalCents - wonOnB)
    const soldOnB = (tier: number) => one<{ n: number }>(`SELECT count(*) AS n FROM sales WHERE unit_key >= ${unitKey(b, 1, 0)} AND tier = ${tier}`).n
    expect(d.topPrizesRemaining).toEqual([0, 1].map((i) => ({ amountCents: def.tiers[i].amountCents, initial: 2 * def.tiers[i].count, remaining: 2 * def.tiers[i].count - soldOnB(i) })))
    const days = f.db.prepare(`SELECT strftime('%Y-%m-%d', sold_at / 1000, 'unixepoch') AS day, count(*) AS units, sum(stake_cents) AS salesCents, sum(prize_cents) AS prizesCents
                               FROM sales GROUP BY day ORDER BY day`).all()
    expect(d.salesPerDay).toEqual(days)
    const byTier = f.db.prepare('SELECT tier, count(*) AS n FROM sales WHERE tier IS NOT NULL GROUP BY tier').all() as { tier: number; n: number }[]
    expect(d.depletion).toEqual(def.tiers.map((t, i) => {
      const sold = byTier.find((r) => r.tier === i)?.n ?? 0
      return { amountCents: t.amountCents, initial: 3 * t.count, sold, remaining: 3 * t.count - sold }
    }))
    expect(d.alerts).toEqual([])
  })

  it("keeps demonstration emissions' simulated sales out of the real figures unless asked", async () => {
    const { f, reports } = await setup()
    const demo = await f.openEmission({ startsOn: '2025-03-01' })
    const real = await f.openEmission({ startsOn: '2025-03-01', demo: false })
    await f.simulator.run(TEST_ACTOR, { emission: demo, sales: 300, seed: 1 })
    f.sales.sellBatch(Array.from({ length: 7 }, (_, i) => ({ emission: real, player: `R${i}`, soldAt: Date.parse('2025-03-10T10:00:00Z') + i })))
    expect(reports.dashboard()).toMatchObject({ includesDemo: false, unitsSold: 7 })
    expect(reports.dashboard().salesPerDay).toEqual([{ day: '2025-03-10', units: 7, salesCents: 7 * def.unitPriceCents, prizesCents: expect.any(Number) }])
    expect(reports.dashboard({ includeDemo: true })).toMatchObject({ includesDemo: true, unitsSold: 307 })
  })

  it('is all zeros on an empty ledger', async () => {
    const { reports } = await setup()
    expect(reports.dashboard()).toMatchObject({ unitsSold: 0, salesCents: 0, realisedPayout: 0, theoreticalPayout: 0, remainingLiabilityCents: 0, salesPerDay: [], depletion: [] })
  })
})

describe('CSV exports', () => {
  it('write the depletion tiers and the dashboard as CSV files', async () => {
    const { f, reports } = await setup()
    const e = await f.openEmission({ startsOn: '2025-03-01' })
    await f.simulator.run(TEST_ACTOR, { emission: e, sales: 500, seed: 8 })
    const dep = reports.csv({ report: 'depletion', emission: e, block: 1 })
    expect(dep.fileName).toBe('depletion-E0001-B001-2025-03-20.csv')
    const lines = dep.content.trim().split('\n')
    expect(lines[0]).toBe('emission,block,amount_cents,initial,sold,remaining,expected_remaining,units_sold,units_total,as_of,demo_emission')
    expect(lines.length).toBe(1 + def.tiers.length)
    const r = reports.depletion({ emission: e, block: 1 })
    expect(lines[1]).toBe([e, 1, r.tiers[0].amountCents, r.tiers[0].initial, r.tiers[0].sold, r.tiers[0].remaining, Math.round(r.tiers[0].initial * 0.95), 500, 10_000, r.asOf, 'yes'].join(','))
    expect(reports.csv({ report: 'dashboard' }).content).toContain('summary,units_sold,0\n')
    const dash = reports.csv({ report: 'dashboard', includeDemo: true })
    expect(dash.content).toContain('summary,includes_demo_emissions,yes\n')
    expect(dash.fileName).toBe('dashboard-2025-03-20.csv')
    expect(dash.content.split('\n')[0]).toBe('section,item,value')
    expect(dash.content).toContain('summary,units_sold,500\n')
    expect(dash.content).toMatch(/sales_per_day,2025-03-\d\d\.units,\d+/)
  })

  it('write a text that a spreadsheet would run as a formula as text, with a single quote before it (the shared CSV writer)', async () => {
    const { f, reports } = await setup()
    const e = await f.openEmission({ startsOn: '2025-03-01' })
    // an alert's message as a ledger could hold it
    f.db.prepare("INSERT INTO alerts (kind, emission, block, amount_cents, message, at) VALUES ('top-prizes-sold-out', ?, NULL, 100, ?, ?)").run(e, '=HYPERLINK("http://example.invalid","x")', new Date(NOW).toISOString())
    const rows = parseCsv(reports.csv({ report: 'dashboard' }).content)
    expect(rows.find((r) => r[0] === 'alert')?.[2]).toBe('\'=HYPERLINK("http://example.invalid","x")')
    // the figures stay numbers
    expect(rows.find((r) => r[1] === 'units_sold')?.[2]).toBe('0')
    const dep = parseCsv(reports.csv({ report: 'depletion', emission: e }).content)
    expect(dep.slice(1).every((r) => r.every((c) => !c.startsWith("'")))).toBe(true)
  })
})
