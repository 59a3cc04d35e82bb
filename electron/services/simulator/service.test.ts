import { afterEach, describe, expect, it } from 'vitest'
import { validatePlay } from '../../../game-core/play'
import { smallDefinition } from '../../../test/support/game-fixtures'
import { unpackPlay } from '../../ledger/play-codec'
import { openLedgerFixture, TEST_ACTOR, type LedgerFixture } from '../../../test/support/simulator-world'
import { createSalesGenerator, HOURLY_WEIGHTS, inProcessDrafts, playerName, seededRng, type DraftBatch } from './drafts'
import { sellDrafts } from './selling'
import { workerDrafts } from './drafts-thread'
import { formatSerial } from '../../../game-core/serial'
import { splitUnitKey } from '../../ledger/unit-key'
import { createPlayersService } from '../players'

const NOW = Date.parse('2025-03-20T15:00:00Z')
const fixedClock = () => new Date(NOW)
const def = smallDefinition()

const open: LedgerFixture[] = []
function fixture(opts: { workers?: boolean } = {}): LedgerFixture {
  const f = openLedgerFixture({ definition: def, clock: fixedClock, ...opts })
  open.push(f)
  return f
}
afterEach(() => {
  while (open.length) open.pop()!.close()
})

interface SaleRow {
  unit_key: number
  player: string
  sold_at: number
  play: number
  events: Buffer
}
/** What the simulator decides (outcomes come from each ledger's own block secrets). */
const salesOf = (f: LedgerFixture) =>
  f.db
    .prepare(
      'SELECT s.unit_key, p.name AS player, s.sold_at, s.play, s.events FROM sales s JOIN players p ON p.id = s.player_id ORDER BY s.unit_key',
    )
    .all() as SaleRow[]

describe('seeded draws', () => {
  it('repeat for a seed and differ between seeds', () => {
    const a = seededRng(7)
    const b = seededRng(7)
    const c = seededRng(8)
    const xs = Array.from({ length: 5 }, () => a())
    expect(Array.from({ length: 5 }, () => b())).toEqual(xs)
    expect(Array.from({ length: 5 }, () => c())).not.toEqual(xs)
    for (const x of xs) expect(x >= 0 && x < 1).toBe(true)
  })

  it('gives distinct player names to distinct ranks', () => {
    const names = new Set(Array.from({ length: 100_000 }, (_, i) => playerName(i)))
    expect(names.size).toBe(100_000)
    expect(playerName(3)).toMatch(/^P\d{7}$/)
  })
})

describe('drafts made on a worker thread', () => {
  const opts = {
    seed: 5,
    players: 300,
    count: 5000,
    fromMs: Date.parse('2025-03-01T00:00:00Z'),
    toMs: Date.parse('2025-03-15T00:00:00Z'),
    zones: { winningCells: def.winningCells, yoursCells: def.yoursCells },
  }
  const plain = (b: DraftBatch) => ({
    ...b,
    ranks: [...b.ranks],
    soldAt: [...b.soldAt],
    codes: [...b.codes],
    ends: [...b.ends],
    events: [...b.events],
  })

  it('are the drafts of this thread, batch for batch, in the order asked', async () => {
    const here = inProcessDrafts(opts)
    const there = workerDrafts(opts)
    try {
      // asked ahead, as the simulator does
      const asked = [there.request(1000), there.request(2500), there.request(1500)]
      const got = await Promise.all(asked)
      const want = [await here.request(1000), await here.request(2500), await here.request(1500)]
      expect(got.map((b) => b.count)).toEqual([1000, 2500, 1500])
      expect(got.map(plain)).toEqual(want.map(plain))
    } finally {
      there.close()
      here.close()
    }
  })

  it('fail what is still asked when closed', async () => {
    const there = workerDrafts(opts)
    const pending = there.request(5000)
    there.close()
    await expect(pending).rejects.toMatchObject({ code: 'CANCELLED' })
    await expect(there.request(10)).rejects.toMatchObject({ code: 'INTERNAL' })
  })
})

describe('the sales generator', () => {
  const from = Date.parse('2025-03-01T00:00:00Z')
  const to = Date.parse('2025-03-15T00:00:00Z')
  const drafts = (() => {
    const g = createSalesGenerator({ seed: 42, players: 1000, count: 20_000, fromMs: from, toMs: to, zones: def })
    return Array.from({ length: 20_000 }, () => g.next())
  })()

  it('makes only plays that follow the rules, winning numbers first', () => {
    for (const d of drafts) {
      expect(validatePlay(d.play, def)).toEqual([])
      const firstYours = d.play.events.findIndex((e) => e.zone === 'yours')
      if (firstYours >= 0) expect(d.play.events.slice(0, firstYours).every((e) => e.zone === 'winning')).toBe(true)
    }
  })

  it('mixes click, drag and auto plays and interrupts about 2 %', () => {
    const n = { click: 0, drag: 0, auto: 0 }
    let interrupted = 0
    for (const d of drafts) {
      n[d.style]++
      if (d.play.status === 'interrupted') interrupted++
    }
    // habits 55/20/25 kept 80 % of the time, else uniform: 50.7 %, 22.7 %, 26.7 %
    expect(n.click / drafts.length).toBeGreaterThan(0.4)
    expect(n.drag / drafts.length).toBeGreaterThan(0.15)
    expect(n.auto / drafts.length).toBeGreaterThan(0.18)
    expect(interrupted / drafts.length).toBeGreaterThan(0.013)
    expect(interrupted / drafts.length).toBeLessThan(0.027)
  })

  it('reveals at human pace: clicks 150–900 ms apart, drags 30–90 ms a cell, auto on a fixed cadence', () => {
    for (const d of drafts.slice(0, 3000)) {
      const ev = d.play.events
      for (let i = 1; i < ev.length; i++) {
        if (ev[i].zone !== ev[i - 1].zone) continue
        const gap = ev[i].t - ev[i - 1].t
        if (d.style === 'click') expect(gap >= 150 && gap <= 900).toBe(true)
        if (d.style === 'auto') expect(gap).toBe(120)
        if (d.style === 'drag' && ev[i].cell === ev[i - 1].cell + 1 && ev[i].zone === 'winning')
          expect(gap >= 30 && gap <= 90).toBe(true)
      }
      if (d.style === 'drag') expect(ev.every((e) => e.gesture === 'drag')).toBe(true)
      if (d.style !== 'drag') expect(ev.every((e) => e.gesture === 'click')).toBe(true)
    }
  })

  it('has a few heavy players and many occasional ones', () => {
    const per = new Map<string, number>()
    for (const d of drafts) per.set(d.player, (per.get(d.player) ?? 0) + 1)
    const counts = [...per.values()].sort((a, b) => b - a)
    const top10 = counts.slice(0, 10).reduce((a, b) => a + b, 0)
    // 1 % of the accounts buy far more than 1 % of the units; the median account buys little
    expect(top10 / drafts.length).toBeGreaterThan(0.04)
    expect(counts[Math.floor(counts.length / 2)]).toBeLessThan(counts[0] / 10)
  })

  it('spreads sales in time order over the window, busier in the evening than at night', () => {
    let last = -Infinity
    const byHour = new Array(24).fill(0)
    for (const d of drafts) {
      expect(d.soldAt).toBeGreaterThanOrEqual(last)
      expect(d.soldAt >= from && d.soldAt < to).toBe(true)
      last = d.soldAt
      byHour[(new Date(d.soldAt).getUTCHours() + 1) % 24]++
    }
    const evening = byHour[19] + byHour[20]
    const night = byHour[3] + byHour[4]
    expect(evening / night).toBeGreaterThan(
      (HOURLY_WEIGHTS[19] + HOURLY_WEIGHTS[20]) / (HOURLY_WEIGHTS[3] + HOURLY_WEIGHTS[4]) / 2,
    )
    const days = new Set(drafts.map((d) => new Date(d.soldAt).toISOString().slice(0, 10)))
    expect(days.size).toBe(14)
  })
})

describe('the simulator', () => {
  it('is deterministic from its seed on the same ledger state', async () => {
    const runs: SaleRow[][] = []
    // the second run makes its drafts on a worker thread, as the app does
    for (const [seed, workers] of [
      [5, false],
      [5, true],
      [6, false],
    ] as const) {
      const f = fixture({ workers })
      const e = await f.openEmission({ startsOn: '2025-03-01' })
      await f.simulator.run(TEST_ACTOR, { emission: e, sales: 3000, seed, batchSize: 700 })
      runs.push(salesOf(f))
    }
    expect(runs[0].length).toBe(3000)
    expect(runs[1]).toEqual(runs[0])
    expect(runs[2]).not.toEqual(runs[0])
  })

  it('sells units in order with valid plays and keeps every counter in step', async () => {
    const f = fixture()
    const e = await f.openEmission({ startsOn: '2025-03-10' })
    const r = await f.simulator.run(TEST_ACTOR, { emission: e, sales: 4000, players: 300, seed: 9 })
    expect(r).toMatchObject({ sold: 4000, players: 300 })
    const rows = salesOf(f)
    rows.forEach((s, i) => {
      expect(s.unit_key % 10_000_000).toBe(i)
      const play = unpackPlay(s.play, s.events)!
      expect(validatePlay(play, def)).toEqual([])
      expect(s.sold_at).toBeGreaterThanOrEqual(Date.parse('2025-03-10T00:00:00Z'))
      expect(s.sold_at).toBeLessThanOrEqual(NOW)
      if (i > 0) expect(s.sold_at).toBeGreaterThanOrEqual(rows[i - 1].sold_at)
    })
    expect(new Set(rows.map((s) => s.player)).size).toBeLessThanOrEqual(300)
    expect(f.catalog.block(e, 1).units_sold).toBe(4000)
    const tiers = f.db.prepare('SELECT tier, sold FROM block_tiers WHERE emission = ? ORDER BY tier').all(e) as {
      tier: number
      sold: number
    }[]
    const counted = f.db
      .prepare('SELECT tier, count(*) AS n FROM sales WHERE tier IS NOT NULL GROUP BY tier')
      .all() as { tier: number; n: number }[]
    for (const t of tiers) expect(t.sold).toBe(counted.find((c) => c.tier === t.tier)?.n ?? 0)
    const audit = f.db
      .prepare("SELECT action FROM audit WHERE action LIKE 'sales.simulate%' ORDER BY seq")
      .pluck()
      .all()
    expect(audit).toEqual(['sales.simulate-start', 'sales.simulate'])
  })

  it('continues the history after the last sale on a second run', async () => {
    const f = fixture()
    const e = await f.openEmission({ startsOn: '2025-03-01' })
    await f.simulator.run(TEST_ACTOR, { emission: e, sales: 1000, seed: 1 })
    const lastFirst = salesOf(f).at(-1)!.sold_at
    await f.simulator.run(TEST_ACTOR, { emission: e, sales: 1000, seed: 2 })
    const rows = salesOf(f)
    expect(rows.length).toBe(2000)
    expect(rows[1000].sold_at).toBeGreaterThan(lastFirst)
  })

  it('stops between two batches on cancel, keeping the batches already sold', async () => {
    const f = fixture()
    const e = await f.openEmission()
    const ac = new AbortController()
    const run = f.simulator.run(
      TEST_ACTOR,
      { emission: e, sales: 5000, batchSize: 500 },
      {
        signal: ac.signal,
        progress: (done) => {
          if (done >= 1000) ac.abort()
        },
      },
    )
    await expect(run).rejects.toMatchObject({ code: 'CANCELLED', message: expect.stringMatching(/after 1000 sales/) })
    expect(f.catalog.block(e, 1).units_sold).toBe(1000)
    expect(f.db.prepare("SELECT count(*) FROM audit WHERE action = 'sales.simulate-cancelled'").pluck().get()).toBe(1)
  })

  it('on a worker thread, as the app does, also stops between two batches on cancel, and says how many it sold', async () => {
    const f = fixture({ workers: true })
    const e = await f.openEmission()
    const ac = new AbortController()
    const run = f.simulator.run(
      TEST_ACTOR,
      { emission: e, sales: 8000, batchSize: 500 },
      {
        signal: ac.signal,
        progress: (done) => {
          if (done >= 1000) ac.abort()
        },
      },
    )
    await expect(run).rejects.toMatchObject({ code: 'CANCELLED', message: expect.stringMatching(/after \d+ sales/) })
    // the cancel reaches the worker while it may already sell the next batch
    const sold = f.catalog.block(e, 1).units_sold
    expect(sold % 500).toBe(0)
    expect(sold).toBeGreaterThanOrEqual(1000)
    expect(sold).toBeLessThan(8000)
    expect(f.db.prepare('SELECT count(*) FROM sales').pluck().get()).toBe(sold)
    const end = f.db
      .prepare("SELECT details FROM audit WHERE action = 'sales.simulate-cancelled'")
      .pluck()
      .get() as string
    expect(JSON.parse(end)).toMatchObject({ sold })
  })

  it("on a worker thread, leaves the app's connection in step: a player's chain and totals run across both", async () => {
    const f = fixture({ workers: true })
    const e = await f.openEmission({ startsOn: '2025-03-01' })
    const players = createPlayersService({ db: f.db, catalog: f.catalog })
    const heavy = playerName(0)
    // this connection sells first (and caches the player), the worker next, this connection again
    f.sales.sellNext(e, { player: heavy, soldAt: '2025-03-01T08:00:00Z' })
    await f.simulator.run(TEST_ACTOR, { emission: e, sales: 3000, players: 50, seed: 4 })
    f.sales.sellNext(e, { player: heavy, soldAt: '2025-03-20T15:00:00Z' })
    const mine = f.db
      .prepare(
        'SELECT unit_key, prize_cents FROM sales WHERE player_id = (SELECT id FROM players WHERE name = ?) ORDER BY unit_key',
      )
      .all(heavy) as { unit_key: number; prize_cents: number }[]
    expect(mine.length).toBeGreaterThan(10)
    const last = players.last(heavy)
    expect(last.lastUnits.map((u) => u.serial)).toEqual(
      mine
        .slice(-10)
        .reverse()
        .map((s) => formatSerial(splitUnitKey(s.unit_key), def.blockSize)),
    )
    expect(last).toMatchObject({
      units: mine.length,
      wonCents: mine.reduce((n, s) => n + s.prize_cents, 0),
      lastSaleAt: '2025-03-20T15:00:00.000Z',
    })
  })

  it('sizes its batches by time when asked: a tenth of the most at first, then between 1,000 and the most', async () => {
    const f = fixture()
    const e = await f.openEmission({ startsOn: '2025-03-01' })
    const gen = {
      seed: 2,
      players: 200,
      count: 9000,
      fromMs: Date.parse('2025-03-01T00:00:00Z'),
      toMs: NOW,
      zones: def,
    }
    const sizes: number[] = []
    let before = 0
    await sellDrafts(
      f.sales,
      inProcessDrafts(gen),
      { emission: e, sales: 9000, batchSize: 4000, batchMs: 1, gen },
      {
        progress: (sold) => {
          sizes.push(sold - before)
          before = sold
        },
      },
    )
    // the second batch is asked for while the first sells, so it is a tenth too
    expect(sizes.slice(0, 2)).toEqual([400, 400])
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(9000)
    for (const n of sizes.slice(2, -1)) {
      expect(n).toBeGreaterThanOrEqual(1000)
      expect(n).toBeLessThanOrEqual(4000)
    }
    expect(f.catalog.block(e, 1).units_sold).toBe(9000)
  })

  it('fills the last 30 days for an emission with no sale date and no sale yet', async () => {
    const f = fixture()
    const e = await f.openEmission()
    const r = await f.simulator.run(TEST_ACTOR, { emission: e, sales: 2000, seed: 3 })
    expect(r).toMatchObject({
      from: new Date(NOW - 30 * 86_400_000).toISOString(),
      to: new Date(NOW).toISOString(),
      firstSerial: '0001-001-0000000-' + r.firstSerial!.slice(-1),
    })
    const times = salesOf(f).map((s) => s.sold_at)
    expect(Math.min(...times)).toBeGreaterThanOrEqual(NOW - 30 * 86_400_000)
    expect(Math.max(...times)).toBeLessThanOrEqual(NOW)
    expect(r.lastSerial).toMatch(/^0001-001-0001999-\d$/)
  })

  it('names in each audit entry the units it really sold, when sales from elsewhere interleave', async () => {
    const f = fixture()
    const e = await f.openEmission()
    const tick = () => new Promise((r) => setTimeout(r, 0))
    const elsewhere = async () => {
      for (let i = 0; i < 4; i++) {
        await tick()
        f.sales.sellBatch(
          Array.from({ length: 500 }, () => ({ emission: e, player: 'elsewhere', soldAt: '2025-03-20T15:00:00Z' })),
        )
      }
    }
    const [a] = await Promise.all([
      f.simulator.run(TEST_ACTOR, { emission: e, sales: 3000, seed: 1, batchSize: 500 }),
      elsewhere(),
    ])
    const entries = f.audit
      .list({ page: 1, pageSize: 50, action: 'sales.simulate' })
      .items.filter((x) => x.action === 'sales.simulate')
    expect(entries).toHaveLength(1)
    const r = JSON.parse(entries[0].details) as {
      sold: number
      firstSerial: string
      ranges: { from: string; to: string; count: number }[]
    }
    const unitOf = (serial: string) => Number(serial.split('-')[2])
    expect(r.ranges.length).toBeGreaterThan(1) // the other sales came in between
    expect(r.ranges.reduce((n, x) => n + x.count, 0)).toBe(r.sold)
    expect(r.firstSerial).toBe(r.ranges[0].from)
    expect(a.firstSerial).toBe(r.firstSerial)
    const simulated = new Set<number>()
    for (const x of r.ranges) {
      expect(unitOf(x.to) - unitOf(x.from) + 1).toBe(x.count)
      for (let u = unitOf(x.from); u <= unitOf(x.to); u++) simulated.add(u)
    }
    const theirs = f.db
      .prepare("SELECT s.unit_key FROM sales s JOIN players p ON p.id = s.player_id WHERE p.name = 'elsewhere'")
      .pluck()
      .all() as number[]
    for (const key of theirs) expect(simulated.has(key % 10_000_000)).toBe(false)
    expect(simulated.size + theirs.length).toBe(5000)
  })

  it('runs one simulation of an emission at a time: a second is refused while the first runs', async () => {
    const f = fixture()
    const e = await f.openEmission()
    const first = f.simulator.run(TEST_ACTOR, { emission: e, sales: 2000, seed: 1, batchSize: 500 })
    await expect(f.simulator.run(TEST_ACTOR, { emission: e, sales: 100, seed: 2 })).rejects.toMatchObject({
      code: 'CONFLICT',
      extras: { reason: { key: 'LEASE_HELD' } },
    })
    await first
    await expect(f.simulator.run(TEST_ACTOR, { emission: e, sales: 100, seed: 2 })).resolves.toMatchObject({
      sold: 100,
    })
  })

  it('runs as a task with progress, and as a cancelled task', async () => {
    const f = fixture()
    const e = await f.openEmission()
    const job = f.simulator.start(TEST_ACTOR, { emission: e, sales: 2500 })
    expect(job).toMatchObject({ kind: 'simulate', state: 'running', emission: e })
    const end = await f.jobs.wait(job.id)
    expect(end).toMatchObject({ state: 'done', done: 2500, total: 2500 })
    const j2 = f.simulator.start(TEST_ACTOR, { emission: e, sales: 2500 })
    f.jobs.cancel(j2.id)
    expect((await f.jobs.wait(j2.id)).state).toBe('cancelled')
    expect(f.catalog.block(e, 1).units_sold).toBe(2500)
  })

  it('refuses a real emission, writing nothing: simulated sales only go to demonstration emissions', async () => {
    const f = fixture()
    const real = await f.openEmission({ demo: false })
    const entries = f.audit.list({ page: 1, pageSize: 1 }).total
    await expect(f.simulator.run(TEST_ACTOR, { emission: real, sales: 10 })).rejects.toMatchObject({
      code: 'ILLEGAL_STATE',
      message: expect.stringMatching(/is a real emission: simulated sales go only to demonstration emissions/),
      extras: { reason: { key: 'SIM_REAL_EMISSION', params: { emission: real } } },
    })
    expect(() => f.simulator.start(TEST_ACTOR, { emission: real, sales: 10 })).toThrow(/real emission/)
    expect(f.db.prepare('SELECT count(*) FROM sales').pluck().get()).toBe(0)
    expect(f.audit.list({ page: 1, pageSize: 1 }).total).toBe(entries)
  })

  it('refuses an emission that is not open, and more sales than units left', async () => {
    const f = fixture()
    const created = f.emissions.create(TEST_ACTOR, { blocks: 1, demo: true })
    await expect(f.simulator.run(TEST_ACTOR, { emission: created.emission, sales: 10 })).rejects.toMatchObject({
      code: 'ILLEGAL_STATE',
    })
    expect(() => f.simulator.start(TEST_ACTOR, { emission: created.emission, sales: 10 })).toThrow(/open it first/)
    const e = await f.openEmission()
    expect(() => f.simulator.start(TEST_ACTOR, { emission: e, sales: def.blockSize + 1 })).toThrow(/10000 units left/)
    expect(() => f.simulator.start(TEST_ACTOR, { emission: 77, sales: 1 })).toThrow(/does not exist/)
    expect(f.db.prepare('SELECT count(*) FROM sales').pluck().get()).toBe(0)
  })
})
