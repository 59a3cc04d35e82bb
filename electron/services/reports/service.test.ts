import { afterEach, describe, expect, it } from 'vitest'
import { version } from '../../../package.json'
import { deriveFigures } from '../../../game-core/rules'
import { utcDay } from '../../ledger/dialect'
import { smallDefinition } from '../../../test/support/game-fixtures'
import { parseCsv } from '../../../test/support/parse-csv'
import { unitKey } from '../../ledger/unit-key'
import { createAlertsService } from '../alerts'
import { checkpointAt, countCheckpoints, createReports, MAX_POINTS, type Reports } from './service'
import { openLedgerFixture, TEST_ACTOR, type LedgerFixture } from '../../../test/support/simulator-world'

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
  const rows = f.db
    .prepare(
      'SELECT tier, count(*) AS n FROM sales WHERE unit_key >= ? AND unit_key < ? AND tier IS NOT NULL GROUP BY tier',
    )
    .all(from, to) as { tier: number; n: number }[]
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
    expect(r).toMatchObject({
      emission: e,
      block: 1,
      unitsTotal: 10_000,
      unitsSold: 6543,
      asOf: new Date(NOW).toISOString(),
    })
    const sold = soldBefore(f, unitKey(e, 1, 0), unitKey(e, 1, 6543))
    expect(r.tiers).toEqual(
      def.tiers.map((t, i) => ({
        amountCents: t.amountCents,
        initial: t.count,
        sold: sold[i],
        remaining: t.count - sold[i],
      })),
    )
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
    expect(reports.depletion({ emission: e, block: 3 }).series).toEqual([
      { unitsSold: 0, remaining: def.tiers.map((t) => t.count) },
    ])
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
    const totals = one<{ n: number; stake: number; prizes: number; won: number }>(
      'SELECT count(*) AS n, sum(stake_cents) AS stake, count(CASE WHEN prize_cents > 0 THEN 1 END) AS prizes, sum(prize_cents) AS won FROM sales',
    )
    expect(d).toMatchObject({
      asOf: new Date(NOW).toISOString(),
      unitsSold: 6500,
      salesCents: totals.stake,
      prizesWon: totals.prizes,
      prizesWonCents: totals.won,
    })
    expect(d.realisedPayout).toBeCloseTo(totals.won / totals.stake, 12)
    expect(d.theoreticalPayout).toBeCloseTo(deriveFigures(def).payoutRatio, 12)
    const wonOnB = one<{ w: number }>(`SELECT sum(prize_cents) AS w FROM sales WHERE unit_key >= ${unitKey(b, 1, 0)}`).w
    expect(d.remainingLiabilityCents).toBe(2 * deriveFigures(def).prizeTotalCents - wonOnB)
    const soldOnB = (tier: number) =>
      one<{ n: number }>(`SELECT count(*) AS n FROM sales WHERE unit_key >= ${unitKey(b, 1, 0)} AND tier = ${tier}`).n
    expect(d.topPrizesRemaining).toEqual(
      [0, 1].map((i) => ({
        amountCents: def.tiers[i].amountCents,
        initial: 2 * def.tiers[i].count,
        remaining: 2 * def.tiers[i].count - soldOnB(i),
      })),
    )
    const day = utcDay(f.db, 'sold_at')
    const days = f.db
      .prepare(
        `SELECT ${day} AS day, count(*) AS units, sum(stake_cents) AS "salesCents", sum(prize_cents) AS "prizesCents"
                               FROM sales GROUP BY ${day} ORDER BY day`,
      )
      .all()
    expect(d.salesPerDay).toEqual(days)
    const byTier = f.db.prepare('SELECT tier, count(*) AS n FROM sales WHERE tier IS NOT NULL GROUP BY tier').all() as {
      tier: number
      n: number
    }[]
    expect(d.depletion).toEqual(
      def.tiers.map((t, i) => {
        const sold = byTier.find((r) => r.tier === i)?.n ?? 0
        return { amountCents: t.amountCents, initial: 3 * t.count, sold, remaining: 3 * t.count - sold }
      }),
    )
    expect(d.alerts).toEqual([])
  })

  it("keeps demonstration emissions' simulated sales out of the real figures unless asked", async () => {
    const { f, reports } = await setup()
    const demo = await f.openEmission({ startsOn: '2025-03-01' })
    const real = await f.openEmission({ startsOn: '2025-03-01', demo: false })
    await f.simulator.run(TEST_ACTOR, { emission: demo, sales: 300, seed: 1 })
    f.sales.sellBatch(
      Array.from({ length: 7 }, (_, i) => ({
        emission: real,
        player: `R${i}`,
        soldAt: Date.parse('2025-03-10T10:00:00Z') + i,
      })),
    )
    expect(reports.dashboard()).toMatchObject({ includesDemo: false, unitsSold: 7 })
    expect(reports.dashboard().salesPerDay).toEqual([
      { day: '2025-03-10', units: 7, salesCents: 7 * def.unitPriceCents, prizesCents: expect.any(Number) },
    ])
    expect(reports.dashboard({ includeDemo: true })).toMatchObject({ includesDemo: true, unitsSold: 307 })
  })

  it('says an empty ledger has no activity: no payout realised (not a 0 that looks like one), nothing per day', async () => {
    const { reports } = await setup()
    expect(reports.dashboard()).toMatchObject({
      unitsSold: 0,
      salesCents: 0,
      realisedPayout: null,
      theoreticalPayout: 0,
      remainingLiabilityCents: 0,
      salesPerDay: [],
      depletion: [],
    })
  })

  it('names the software version that read the figures and the filters they were read under', async () => {
    const { reports } = await setup()
    expect(reports.dashboard()).toMatchObject({
      version,
      asOf: new Date(NOW).toISOString(),
      filters: { emission: null, from: null, to: null, includeDemo: false },
    })
  })
})

/** The period's figures read from the sales table itself: sale days from…to (UTC), one emission or all. */
function salesIn(f: LedgerFixture, from: string, to: string, emission?: number) {
  const keys =
    emission === undefined
      ? ''
      : `AND unit_key >= ${unitKey(emission, 1, 0)} AND unit_key < ${unitKey(emission + 1, 1, 0)}`
  const day = utcDay(f.db, 'sold_at')
  return f.db
    .prepare(
      `SELECT count(*) AS units, coalesce(sum(stake_cents), 0) AS stake, count(CASE WHEN prize_cents > 0 THEN 1 END) AS winners, coalesce(sum(prize_cents), 0) AS won,
                              count(DISTINCT ${day}) AS days FROM sales WHERE ${day} BETWEEN ? AND ? ${keys}`,
    )
    .get(from, to) as { units: number; stake: number; winners: number; won: number; days: number }
}

describe('the dashboard under filters', () => {
  async function twoEmissions() {
    const { f, reports } = await setup()
    const a = await f.openEmission({ startsOn: '2025-03-01' })
    const b = await f.openEmission({ blocks: 2, startsOn: '2025-03-01' })
    await f.simulator.run(TEST_ACTOR, { emission: a, sales: 3000, seed: 3 })
    await f.simulator.run(TEST_ACTOR, { emission: b, sales: 2000, seed: 4 })
    return { f, reports, a, b }
  }

  it('counts the sales of the chosen days and emission only, as the sales table says', async () => {
    const { f, reports, a, b } = await twoEmissions()
    for (const [from, to, emission] of [
      ['2025-03-05', '2025-03-09', undefined],
      ['2025-03-05', '2025-03-09', b],
      ['2025-03-12', '2025-03-12', a],
      ['0000-01-01', '9999-12-31', a],
    ] as const) {
      const want = salesIn(f, from, to, emission)
      expect(want.units, `${from}…${to} ${emission}`).toBeGreaterThan(0)
      const d = reports.dashboard({ includeDemo: true, from, to, emission })
      expect(d).toMatchObject({
        unitsSold: want.units,
        salesCents: want.stake,
        prizesWon: want.winners,
        prizesWonCents: want.won,
        filters: { from, to, emission: emission ?? null },
      })
      expect(d.realisedPayout).toBeCloseTo(want.won / want.stake, 12)
      expect(d.salesPerDay.length).toBe(want.days)
      expect(d.salesPerDay.every((x) => x.day >= from && x.day <= to)).toBe(true)
      expect(d.salesPerDay.reduce((n, x) => n + x.units, 0)).toBe(want.units)
    }
  })

  it("keeps the state's figures (liability, top prizes, depletion) those of every sale so far, of the chosen emission", async () => {
    const { f, reports, b } = await twoEmissions()
    const all = reports.dashboard({ includeDemo: true, emission: b })
    const some = reports.dashboard({ includeDemo: true, emission: b, from: '2025-03-10', to: '2025-03-11' })
    expect(some.unitsSold).toBeLessThan(all.unitsSold)
    expect(some).toMatchObject({
      remainingLiabilityCents: all.remainingLiabilityCents,
      topPrizesRemaining: all.topPrizesRemaining,
      depletion: all.depletion,
      depletionUnits: { sold: 2000, total: 20_000 },
    })
    const wonOnB = salesIn(f, '0000-01-01', '9999-12-31', b).won
    expect(all.remainingLiabilityCents).toBe(2 * deriveFigures(def).prizeTotalCents - wonOnB)
    expect(all.depletion.map((t) => t.initial)).toEqual(def.tiers.map((t) => 2 * t.count))
    expect(reports.dashboard({ includeDemo: true }).depletionUnits).toEqual({ sold: 5000, total: 30_000 })
  })

  it('says a period without sales has none: no units, no payout realised, no day', async () => {
    const { reports, a } = await twoEmissions()
    const d = reports.dashboard({ includeDemo: true, emission: a, from: '2024-01-01', to: '2024-12-31' })
    expect(d).toMatchObject({
      unitsSold: 0,
      salesCents: 0,
      prizesWon: 0,
      realisedPayout: null,
      salesPerDay: [],
      theoreticalPayout: deriveFigures(def).payoutRatio,
    })
  })

  it('counts a demonstration emission chosen by its number, and says so', async () => {
    const { reports, a } = await twoEmissions()
    expect(reports.dashboard()).toMatchObject({ unitsSold: 0, includesDemo: false })
    expect(reports.dashboard({ emission: a })).toMatchObject({ unitsSold: 3000, includesDemo: true })
  })

  it('refuses a range that runs backwards, a day that does not exist, and an unknown emission, saying which', async () => {
    const { reports } = await setup()
    expect(() => reports.dashboard({ from: '2025-03-10', to: '2025-03-01' })).toThrow(
      expect.objectContaining({
        code: 'BAD_ARGUMENTS',
        extras: { field: 'to' },
        message: expect.stringMatching(/starts on 2025-03-10, after its end on 2025-03-01/),
      }),
    )
    expect(() => reports.dashboard({ from: '2025-02-30' })).toThrow(
      expect.objectContaining({
        code: 'BAD_ARGUMENTS',
        extras: { field: 'from' },
        message: expect.stringMatching(/2025-02-30 is not a day of the calendar/),
      }),
    )
    expect(() => reports.dashboard({ to: '10/03/2025' })).toThrow(
      expect.objectContaining({ extras: { field: 'to' }, message: expect.stringMatching(/not a date YYYY-MM-DD/) }),
    )
    expect(() => reports.dashboard({ emission: 42 })).toThrow(/emission 42 does not exist/)
    expect(reports.dashboard({ from: '2025-03-10', to: '2025-03-10' }).filters).toMatchObject({
      from: '2025-03-10',
      to: '2025-03-10',
    })
  })
})

describe('CSV exports', () => {
  it('write the depletion tiers, one row per tier, in the machine form by default', async () => {
    const { f, reports } = await setup()
    const e = await f.openEmission({ startsOn: '2025-03-01' })
    await f.simulator.run(TEST_ACTOR, { emission: e, sales: 500, seed: 8 })
    const dep = reports.csv({ report: 'depletion', emission: e, block: 1 })
    expect(dep.fileName).toBe('depletion-E0001-B001-2025-03-20.csv')
    const lines = dep.content.trim().split('\n')
    expect(lines[0]).toBe(
      `# software=carats-back-office ${version},as_of=2025-03-20T15:00:00.000Z,emission=${e},block=1`,
    )
    expect(lines[1]).toBe(
      'emission,block,amount_cents,initial,sold,remaining,expected_remaining,units_sold,units_total,as_of,demo_emission',
    )
    expect(lines.length).toBe(2 + def.tiers.length)
    const r = reports.depletion({ emission: e, block: 1 })
    expect(lines[2]).toBe(
      [
        e,
        1,
        r.tiers[0].amountCents,
        r.tiers[0].initial,
        r.tiers[0].sold,
        r.tiers[0].remaining,
        Math.round(r.tiers[0].initial * 0.95),
        500,
        10_000,
        r.asOf,
        'yes',
      ].join(','),
    )
  })

  it("write the dashboard's sales, one row per day and emission of its period, agreeing with the sales table", async () => {
    const { f, reports } = await setup()
    const a = await f.openEmission({ startsOn: '2025-03-01' })
    const b = await f.openEmission({ startsOn: '2025-03-01' })
    await f.simulator.run(TEST_ACTOR, { emission: a, sales: 800, seed: 8 })
    await f.simulator.run(TEST_ACTOR, { emission: b, sales: 600, seed: 9 })
    const file = reports.csv({
      report: 'dashboard',
      includeDemo: true,
      from: '2025-03-05',
      to: '2025-03-08',
      form: 'machine',
    })
    expect(file.fileName).toBe('dashboard-2025-03-05_2025-03-08-2025-03-20.csv')
    const [about, head, ...rows] = parseCsv(file.content)
    expect(about).toEqual([
      `# software=carats-back-office ${version}`,
      'as_of=2025-03-20T15:00:00.000Z',
      'emission=',
      'from=2025-03-05',
      'to=2025-03-08',
      'include_demo=yes',
    ])
    expect(head).toEqual([
      'day',
      'emission',
      'demo_emission',
      'units_sold',
      'sales_cents',
      'winning_units',
      'prizes_won_cents',
      'realised_payout',
      'theoretical_payout',
    ])
    for (const e of [a, b]) {
      const mine = rows.filter((r) => Number(r[1]) === e)
      const want = salesIn(f, '2025-03-05', '2025-03-08', e)
      expect(mine.length).toBe(want.days)
      expect(mine.reduce((n, r) => n + Number(r[3]), 0)).toBe(want.units)
      expect(mine.reduce((n, r) => n + Number(r[4]), 0)).toBe(want.stake)
      expect(mine.reduce((n, r) => n + Number(r[5]), 0)).toBe(want.winners)
      expect(mine.reduce((n, r) => n + Number(r[6]), 0)).toBe(want.won)
      for (const r of mine) expect(Number(r[7])).toBeCloseTo(Number(r[6]) / Number(r[4]), 12)
    }
    expect(
      rows.every(
        (r) => r[0] >= '2025-03-05' && r[0] <= '2025-03-08' && Number(r[8]) === deriveFigures(def).payoutRatio,
      ),
    ).toBe(true)
  })

  it('write the office form in French: BOM, semicolons, euros with a decimal comma, French days, French headers', async () => {
    const { f, reports } = await setup()
    const e = await f.openEmission({ startsOn: '2025-03-01' })
    await f.simulator.run(TEST_ACTOR, { emission: e, sales: 700, seed: 2 })
    const { content } = reports.csv({ report: 'dashboard', emission: e, form: 'office', locale: 'fr' })
    expect(content.charCodeAt(0)).toBe(0xfeff)
    const [about, head, ...rows] = parseCsv(content.slice(1), ';')
    expect(about[0]).toBe(`# Logiciel\u00a0: Carats back-office ${version}`)
    expect(about).toContain(`Émission\u00a0: ${e}`)
    expect(head).toEqual([
      'Jour',
      'Émission',
      'Démonstration',
      'Unités vendues',
      'Ventes (€)',
      'Unités gagnantes',
      'Lots gagnés (€)',
      'Taux de retour réalisé (%)',
      'Taux de retour théorique (%)',
    ])
    const want = salesIn(f, '0000-01-01', '9999-12-31', e)
    expect(rows.reduce((n, r) => n + Number(r[3]), 0)).toBe(want.units)
    for (const r of rows) {
      expect(r[0]).toMatch(/^\d\d\/03\/2025$/)
      expect(r[4]).toMatch(/^\d+,\d\d$/)
      expect(r[2]).toBe('oui')
    }
    const euros = rows.reduce((n, r) => n + Math.round(Number(r[4].replace(',', '.')) * 100), 0)
    expect(euros).toBe(want.stake)
    // the English office form: commas between cells, points in numbers
    const en = parseCsv(
      reports.csv({ report: 'dashboard', emission: e, form: 'office', locale: 'en' }).content.slice(1),
    )
    expect(en[1][4]).toBe('Sales (€)')
    expect(en[2][4]).toMatch(/^\d+\.\d\d$/)
  })

  it("say 'no activity' on the first line of an export of a period without sales", async () => {
    const { f, reports } = await setup()
    const e = await f.openEmission({ startsOn: '2025-03-01' })
    await f.simulator.run(TEST_ACTOR, { emission: e, sales: 50, seed: 2 })
    const [about, head, ...rows] = parseCsv(
      reports
        .csv({ report: 'dashboard', emission: e, from: '2024-01-01', to: '2024-01-31', form: 'office' })
        .content.slice(1),
      ';',
    )
    expect(about.at(-1)).toBe('Aucune activité')
    expect(head[0]).toBe('Jour')
    expect(rows).toEqual([])
  })

  it("write the dashboard's prize tiers as of the reading, one row per tier", async () => {
    const { f, reports } = await setup()
    const e = await f.openEmission({ startsOn: '2025-03-01' })
    await f.simulator.run(TEST_ACTOR, { emission: e, sales: 900, seed: 5 })
    const d = reports.dashboard({ emission: e })
    const [about, head, ...rows] = parseCsv(reports.csv({ report: 'dashboard-tiers', emission: e }).content)
    expect(about).toEqual([
      `# software=carats-back-office ${version}`,
      'as_of=2025-03-20T15:00:00.000Z',
      `emission=${e}`,
      'include_demo=',
    ])
    expect(head).toEqual(['amount_cents', 'initial', 'sold', 'remaining', 'share_won'])
    expect(rows.map((r) => r.slice(0, 4).map(Number))).toEqual(
      d.depletion.map((t) => [t.amountCents, t.initial, t.sold, t.remaining]),
    )
  })

  it('write a text that a spreadsheet would run as a formula as text, with a single quote before it (the shared CSV writer)', async () => {
    const { f, reports } = await setup()
    const e = await f.openEmission({ startsOn: '2025-03-01' })
    await f.simulator.run(TEST_ACTOR, { emission: e, sales: 50, seed: 2 })
    for (const form of ['office', 'machine'] as const) {
      const dep = parseCsv(
        reports.csv({ report: 'depletion', emission: e, form, locale: 'en' }).content.replace(/^\ufeff/, ''),
      )
      // the figures stay numbers: none is prefixed
      expect(dep.slice(2).every((r) => r.every((c) => !c.startsWith("'")))).toBe(true)
    }
  })
})
