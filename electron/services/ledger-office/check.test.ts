import { randomBytes } from 'node:crypto'
import { afterEach, describe, expect, it } from 'vitest'
import { formatSerial } from '../../../game-core/serial'
import { smallDefinition } from '../../../test/support/game-fixtures'
import { AppError } from '../../contract/errors'
import { keyStoreFromKey } from '../../ledger/keystore'
import { splitUnitKey, unitKey } from '../../ledger/unit-key'
import { createCatalog } from '../catalog'
import { checkLedgerData, MAX_LISTED, type LedgerDataCheck, type LedgerProblem, type LedgerProblemKind } from './check'
import { openLedgerFixture, TEST_ACTOR, type LedgerFixture } from '../../../test/support/simulator-world'

const def = smallDefinition()
const NOW = Date.parse('2025-03-20T15:00:00Z')
/** Block 1 sold out, 2,000 units of block 2. */
const SALES = 12_000
const open: LedgerFixture[] = []
afterEach(() => {
  while (open.length) open.pop()!.close()
})

async function soldLedger(): Promise<{ f: LedgerFixture; e: number }> {
  const f = openLedgerFixture({ definition: def, clock: () => new Date(NOW) })
  open.push(f)
  const e = await f.openEmission({ blocks: 2, startsOn: '2025-03-01' })
  await f.simulator.run(TEST_ACTOR, { emission: e, sales: SALES, seed: 7, players: 300 })
  return { f, e }
}

const check = (f: LedgerFixture, prizes = true) => checkLedgerData({ db: f.db, catalog: f.catalog }, { prizes })
const of = (r: LedgerDataCheck, kind: LedgerProblemKind) => r.problems.filter((p) => p.kind === kind)
const serialOf = (key: number) => formatSerial(splitUnitKey(key), def.blockSize)
/** The one problem of this kind, with these fields. */
const one = (r: LedgerDataCheck, kind: LedgerProblemKind, fields: Partial<LedgerProblem>) =>
  expect(of(r, kind)).toEqual([expect.objectContaining(fields)])
/** The ledger's only problem. */
const only = (r: LedgerDataCheck, kind: LedgerProblemKind, fields: Partial<LedgerProblem>) => {
  expect(r.problems).toEqual([expect.objectContaining({ kind, ...fields })])
  expect(r).toMatchObject({ ok: false, problemCount: 1 })
}

interface Sale {
  unit_key: number
  player_id: number
  sold_at: number
  stake_cents: number
  prize_cents: number
  tier: number | null
}
const sale = (f: LedgerFixture, where: string, ...args: unknown[]) =>
  f.db
    .prepare(
      `SELECT unit_key, player_id, sold_at, stake_cents, prize_cents, tier FROM sales
             WHERE ${where} ORDER BY unit_key LIMIT 1`,
    )
    .get(...args) as Sale
interface Player {
  id: number
  name: string
  units: number
  staked_cents: number
  won_cents: number
}
const player = (f: LedgerFixture, id: number) => f.db.prepare('SELECT * FROM players WHERE id = ?').get(id) as Player
const tierSold = (f: LedgerFixture, e: number, block: number, tier: number) =>
  f.db
    .prepare('SELECT sold FROM block_tiers WHERE emission = ? AND block = ? AND tier = ?')
    .pluck()
    .get(e, block, tier) as number
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10)

describe('checkLedgerData', () => {
  it('passes a ledger as the sales service wrote it, every unit re-derived', async () => {
    const { f, e } = await soldLedger()
    const progress: [number, number][] = []
    const r = checkLedgerData(
      { db: f.db, catalog: f.catalog },
      { progress: (done, total) => progress.push([done, total]) },
    )
    expect(r).toEqual({
      ok: true,
      salesRows: SALES,
      unitsRederived: SALES,
      problems: [],
      problemCount: 0,
      problemsByKind: {},
      liability: { blocks: expect.any(Number), tableCents: expect.any(Number), balanced: true },
    })
    expect(progress.at(-1)).toEqual([SALES, SALES])
    expect(check(f, false)).toMatchObject({ ok: true, salesRows: SALES, unitsRederived: 0 })
    // the same players in a second emission, then the first again: their chains go back and forth in unit_key
    const e2 = await f.openEmission({ startsOn: '2025-03-01' })
    await f.simulator.run(TEST_ACTOR, { emission: e2, sales: 1500, seed: 8, players: 300 })
    await f.simulator.run(TEST_ACTOR, { emission: e, sales: 500, seed: 9, players: 300 })
    expect(f.db.prepare('SELECT count(*) FROM players').pluck().get()).toBe(300)
    expect(check(f)).toMatchObject({ ok: true, salesRows: SALES + 2000, unitsRederived: SALES + 2000, problemCount: 0 })
  })

  it("names a sale whose prize_cents was changed, and the player's and the day's totals it no longer matches", async () => {
    const { f, e } = await soldLedger()
    const s = sale(f, 'tier IS NULL AND unit_key > ?', unitKey(e, 1, 4000))
    const p = player(f, s.player_id)
    f.db.prepare('UPDATE sales SET prize_cents = 1000 WHERE unit_key = ?').run(s.unit_key)
    const r = check(f)
    expect(r.ok).toBe(false)
    expect(of(r, 'PRIZE_MISMATCH')).toEqual([
      expect.objectContaining({
        row: { emission: e, block: 1, serial: serialOf(s.unit_key), unitKey: s.unit_key },
        field: 'prize_cents',
        stored: 1000,
        recomputed: 0,
      }),
    ])
    expect(of(r, 'PRIZE_MISMATCH')[0].message).toMatch(new RegExp(`^sale ${serialOf(s.unit_key)} .*1000 cents.*losing`))
    one(r, 'PLAYER_TOTALS', {
      row: { player: p.name, playerId: s.player_id },
      field: 'won_cents',
      stored: p.won_cents,
      recomputed: p.won_cents + 1000,
    })
    expect(of(r, 'DAY_TOTALS').map((x) => [x.row, x.field, (x.recomputed as number) - (x.stored as number)])).toEqual([
      [{ day: dayOf(s.sold_at), emission: e }, 'prizes', 1],
      [{ day: dayOf(s.sold_at), emission: e }, 'prizes_cents', 1000],
    ])
    expect(r.problemCount).toBe(4)
    // without the secrets the prize is still held against the tier stored with it
    one(check(f, false), 'PRIZE_MISMATCH', {
      row: expect.objectContaining({ serial: serialOf(s.unit_key) }),
      stored: 1000,
      recomputed: 0,
    })
  })

  it("names a sale whose tier was changed, and the block's two tier counters", async () => {
    const { f, e } = await soldLedger()
    const s = sale(f, 'tier = 2 AND unit_key > ?', unitKey(e, 2, 0))
    const sold2 = tierSold(f, e, 2, 2)
    const sold4 = tierSold(f, e, 2, 4)
    f.db.prepare('UPDATE sales SET tier = 4 WHERE unit_key = ?').run(s.unit_key)
    const r = check(f)
    one(r, 'TIER_MISMATCH', {
      row: { emission: e, block: 2, serial: serialOf(s.unit_key), unitKey: s.unit_key, tier: 4 },
      field: 'tier',
      stored: 4,
      recomputed: 2,
    })
    expect(of(r, 'TIER_SOLD')).toEqual([
      expect.objectContaining({
        row: { emission: e, block: 2, tier: 2 },
        field: 'sold',
        stored: sold2,
        recomputed: sold2 - 1,
      }),
      expect.objectContaining({
        row: { emission: e, block: 2, tier: 4 },
        field: 'sold',
        stored: sold4,
        recomputed: sold4 + 1,
      }),
    ])
    expect(of(r, 'PRIZE_MISMATCH')).toEqual([])
    expect(r.problemCount).toBe(3)
  })

  it('names a block whose units_sold was changed', async () => {
    const { f, e } = await soldLedger()
    f.db.prepare('UPDATE blocks SET units_sold = units_sold - 1 WHERE emission = ? AND block = 2').run(e)
    const r = check(f)
    only(r, 'BLOCK_UNITS_SOLD', {
      row: { emission: e, block: 2 },
      field: 'units_sold',
      stored: SALES - 10_001,
      recomputed: SALES - 10_000,
    })
    expect(r.problems[0].message).toMatch(/^block \d+\/2 says 1999 units sold .* has 2000/)
  })

  it('names a tier counter of block_tiers that was changed', async () => {
    const { f, e } = await soldLedger()
    const sold = tierSold(f, e, 1, 3)
    f.db.prepare('UPDATE block_tiers SET sold = sold + 3 WHERE emission = ? AND block = 1 AND tier = 3').run(e)
    const r = check(f)
    only(r, 'TIER_SOLD', { row: { emission: e, block: 1, tier: 3 }, field: 'sold', stored: sold + 3, recomputed: sold })
    expect(sold).toBe(def.tiers[3].count)
  })

  it('names a player whose won_cents was changed', async () => {
    const { f } = await soldLedger()
    const p = f.db.prepare('SELECT * FROM players WHERE units > 0 ORDER BY id DESC LIMIT 1').get() as Player
    f.db.prepare('UPDATE players SET won_cents = won_cents + 500 WHERE id = ?').run(p.id)
    const r = check(f)
    only(r, 'PLAYER_TOTALS', {
      row: { player: p.name, playerId: p.id },
      field: 'won_cents',
      stored: p.won_cents + 500,
      recomputed: p.won_cents,
    })
    expect(r.problems[0].message).toContain(`player ${p.name}: won_cents`)
  })

  it('names a day whose units were changed in daily_sales', async () => {
    const { f, e } = await soldLedger()
    const d = f.db.prepare('SELECT day, units FROM daily_sales ORDER BY day LIMIT 1 OFFSET 3').get() as {
      day: string
      units: number
    }
    f.db.prepare('UPDATE daily_sales SET units = units + 1 WHERE day = ? AND emission = ?').run(d.day, e)
    const r = check(f)
    only(r, 'DAY_TOTALS', {
      row: { day: d.day, emission: e },
      field: 'units',
      stored: d.units + 1,
      recomputed: d.units,
    })
  })

  it("names a deleted sale: the gap it leaves, and the block's, tier's, player's and day's counters", async () => {
    const { f, e } = await soldLedger()
    const s = sale(
      f,
      'tier IS NOT NULL AND unit_key > ? AND unit_key NOT IN (SELECT last_key FROM players WHERE last_key IS NOT NULL)',
      unitKey(e, 1, 5000),
    )
    const p = player(f, s.player_id)
    const sold = tierSold(f, e, 1, s.tier!)
    const unit = splitUnitKey(s.unit_key).unit
    f.db.prepare('DELETE FROM sales WHERE unit_key = ?').run(s.unit_key)
    const r = check(f)
    one(r, 'UNIT_GAP', {
      row: { emission: e, block: 1, serial: serialOf(s.unit_key), unitKey: s.unit_key },
      field: 'unit',
      stored: unit + 1,
      recomputed: unit,
    })
    one(r, 'BLOCK_UNITS_SOLD', { row: { emission: e, block: 1 }, stored: 10_000, recomputed: 9_999 })
    one(r, 'TIER_SOLD', { row: { emission: e, block: 1, tier: s.tier }, stored: sold, recomputed: sold - 1 })
    expect(of(r, 'PLAYER_TOTALS').map((x) => [x.row.player, x.field, x.stored, x.recomputed])).toEqual([
      [p.name, 'units', p.units, p.units - 1],
      [p.name, 'staked_cents', p.staked_cents, p.staked_cents - s.stake_cents],
      [p.name, 'won_cents', p.won_cents, p.won_cents - s.prize_cents],
    ])
    expect(of(r, 'PLAYER_CHAIN')).toEqual([])
    expect(of(r, 'DAY_TOTALS').map((x) => [x.field, (x.stored as number) - (x.recomputed as number)])).toEqual([
      ['units', 1],
      ['sales_cents', s.stake_cents],
      ['prizes', 1],
      ['prizes_cents', s.prize_cents],
    ])
    expect(r.salesRows).toBe(SALES - 1)
  })

  it('lists at most MAX_LISTED problems of a kind, and counts them all', async () => {
    const { f, e } = await soldLedger()
    const edit = f.db.prepare('UPDATE sales SET prize_cents = prize_cents + 1 WHERE unit_key >= ? AND unit_key < ?')
    edit.run(unitKey(e, 1, 100), unitKey(e, 1, 220))
    const r = check(f)
    expect(of(r, 'PRIZE_MISMATCH')).toHaveLength(MAX_LISTED)
    expect(r.problemsByKind.PRIZE_MISMATCH).toBe(120)
    expect(r.problemCount).toBe(Object.values(r.problemsByKind).reduce((a, n) => a + n, 0))
    expect(r.problemsByKind.PLAYER_TOTALS).toBeGreaterThan(MAX_LISTED)
    expect(of(r, 'PLAYER_TOTALS')).toHaveLength(MAX_LISTED)
  })

  it('names sales of a unit that no block has', async () => {
    const { f, e } = await soldLedger()
    f.db
      .prepare('UPDATE sales SET unit_key = ? WHERE unit_key = ?')
      .run(unitKey(e, 3, 0), unitKey(e, 2, SALES - 10_001))
    const r = check(f)
    one(r, 'UNKNOWN_UNIT', { row: { serial: serialOf(unitKey(e, 3, 0)), unitKey: unitKey(e, 3, 0) } })
    expect(of(r, 'BLOCK_UNITS_SOLD')).toHaveLength(1)
    expect(r.salesRows).toBe(SALES)
  })

  it("lets a block's secret that cannot be opened throw its AppError, not a list of prizes", async () => {
    const { f } = await soldLedger()
    const wrongKey = createCatalog({ db: f.db, keys: keyStoreFromKey(randomBytes(32)) })
    expect(() => checkLedgerData({ db: f.db, catalog: wrongKey })).toThrow(AppError)
    expect(checkLedgerData({ db: f.db, catalog: wrongKey }, { prizes: false }).ok).toBe(true)
  })
})
