/**
 * Last-game recall (AGCO 13.1.1): a player's last unit and the nine before it follow the time of
 * sale (then the serial), whatever order the feeds arrive in, through every way sales are written
 * (one batch, checked columns, the importer's stream inside its transaction) and for ledgers
 * written before the chain followed the time of sale.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { smallDefinition } from '../../test/support/game-fixtures'
import { testEngine } from '../../test/support/ledger-engine'
import { MIGRATIONS } from '../ledger/migrations'
import { NO_PLAY, type CheckedSales } from './sales'
import { checkLedgerData } from './ledger-check'
import { createPlayersService } from './players'
import { openLedgerFixture, type LedgerFixture } from './simulator-fixture'

const T0 = Date.parse('2025-03-02T10:00:00Z')
const MIN = 60_000
const open: LedgerFixture[] = []
afterEach(() => {
  while (open.length) open.pop()!.close()
})

async function ledger() {
  const f = openLedgerFixture({ definition: smallDefinition(), clock: () => new Date(T0 + 30 * 86_400_000) })
  open.push(f)
  const emission = await f.openEmission({ startsOn: '2025-03-01' })
  const players = () => createPlayersService({ db: f.db, catalog: f.catalog })
  return { f, emission, players }
}

/** A player's sales as SQL orders them: newest sale first, then the highest serial. */
function byTime(f: LedgerFixture, player: string): { serialKey: number; soldAt: number }[] {
  return f.db.prepare(`SELECT s.unit_key AS "serialKey", s.sold_at AS "soldAt" FROM sales s JOIN players p ON p.id = s.player_id
    WHERE p.name = ? ORDER BY s.sold_at DESC, s.unit_key DESC`).all(player) as { serialKey: number; soldAt: number }[]
}

const times = (units: { soldAt: string }[]) => units.map((u) => Date.parse(u.soldAt))

function checked(players: string[], soldAt: number[]): CheckedSales {
  return {
    count: players.length, players, soldAt: Float64Array.from(soldAt),
    codes: new Uint8Array(players.length).fill(NO_PLAY), ends: new Uint32Array(players.length), events: new Uint8Array(0),
  }
}

describe("a player's last units follow the time of sale", () => {
  it('after a late feed: the last unit is the one sold last, not the one written last', async () => {
    const { f, emission, players } = await ledger()
    const at = (m: number) => T0 + m * MIN
    f.sales.sellBatch([10, 11, 12, 13].map((m) => ({ emission, player: 'alice', soldAt: at(m) })))
    // a feed of the morning arrives after the afternoon's: one sale before all, one in between, one last
    f.sales.sellBatch([{ emission, player: 'alice', soldAt: at(1) }, { emission, player: 'bob', soldAt: at(2) }, { emission, player: 'alice', soldAt: at(12) + 1 }])
    f.sales.sellBatch([{ emission, player: 'alice', soldAt: at(20) }, { emission, player: 'alice', soldAt: at(5) }])
    const last = players().last('alice')
    expect(times(last.lastUnits)).toEqual([at(20), at(13), at(12) + 1, at(12), at(11), at(10), at(5), at(1)])
    expect(last.lastSaleAt).toBe(new Date(at(20)).toISOString())
  })

  it('sales of the same time come by serial, the highest first', async () => {
    const { f, emission, players } = await ledger()
    f.sales.sellBatch([{ emission, player: 'alice', soldAt: T0 + MIN }, { emission, player: 'alice', soldAt: T0 }])
    f.sales.sellBatch([{ emission, player: 'alice', soldAt: T0 }])
    const units = players().last('alice').lastUnits
    const keys = byTime(f, 'alice').map((s) => s.serialKey)
    expect(units.map((u) => Date.parse(u.soldAt))).toEqual([T0 + MIN, T0, T0])
    // the two sold at T0: the one written last has the higher serial, so it comes first
    expect(keys[1]).toBeGreaterThan(keys[2])
    expect(units[1].serial > units[2].serial).toBe(true)
  })

  it('whatever the order of the feeds: every chain, every page of history and the last 10 agree with SQL', async () => {
    const { f, emission, players } = await ledger()
    let seed = 7
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n)
    const names = ['ann', 'ben', 'cat', 'dan', 'eve']
    for (let batch = 0; batch < 12; batch++) {
      const size = 1 + rand(40)
      const sales = Array.from({ length: size }, () => ({ emission, player: names[rand(names.length)], soldAt: T0 + rand(500) * MIN }))
      if (batch % 3 === 2) f.sales.sellChecked(emission, checked(sales.map((s) => s.player), sales.map((s) => s.soldAt)))
      else if (batch % 3 === 1) {
        f.db.transaction(() => {
          const stream = f.sales.checkedStream(emission)
          stream.add(checked(sales.map((s) => s.player), sales.map((s) => s.soldAt)))
          stream.finish()
        })()
      } else f.sales.sellBatch(sales)
    }
    const svc = players()
    for (const name of names) {
      const want = byTime(f, name)
      const serialTimes = (units: { soldAt: string }[]) => times(units)
      expect(serialTimes(svc.last(name).lastUnits)).toEqual(want.slice(0, 10).map((s) => s.soldAt))
      const pages = [1, 2, 3, 4].flatMap((p) => svc.history(name, { page: p, pageSize: 7 }).items)
      expect(serialTimes(pages)).toEqual(want.slice(0, 28).map((s) => s.soldAt))
    }
    expect(checkLedgerData({ db: f.db, catalog: f.catalog }, { prizes: false }).problems).toEqual([])
  })
})

describe('a late feed for many players at once', () => {
  it("relinks each player's chain, more chains than one read takes, and only the sales newer than the late one", async () => {
    const { f, emission, players } = await ledger()
    const names = Array.from({ length: 1100 }, (_, i) => `p${i}`)
    const at = (m: number) => T0 + m * MIN
    f.sales.sellBatch(names.flatMap((player) => [10, 20, 30].map((m) => ({ emission, player, soldAt: at(m) }))))
    const untouched = f.db.prepare(`SELECT s.unit_key, s.prev_key FROM sales s JOIN players p ON p.id = s.player_id
      WHERE p.name = 'p7' AND s.sold_at = ?`).raw().get(at(10)) as [number, number | null]
    // each player's late sale falls between 10 and 20; every other player also buys the newest
    f.sales.sellBatch(names.flatMap((player, i) => [{ emission, player, soldAt: at(15) }, ...(i % 2 ? [{ emission, player, soldAt: at(40) }] : [])]))
    const svc = players()
    for (const name of ['p0', 'p1', 'p7', 'p999', 'p1000', 'p1099']) {
      expect(times(svc.last(name).lastUnits)).toEqual(byTime(f, name).map((s) => s.soldAt))
    }
    expect(times(svc.last('p1').lastUnits)).toEqual([40, 30, 20, 15, 10].map(at))
    expect(times(svc.last('p0').lastUnits)).toEqual([30, 20, 15, 10].map(at))
    // the oldest sale, older than the late one, kept its link (nothing before it)
    expect(f.db.prepare('SELECT unit_key, prev_key FROM sales WHERE unit_key = ?').raw().get(untouched[0])).toEqual(untouched)
    expect(checkLedgerData({ db: f.db, catalog: f.catalog }, { prizes: false }).problems).toEqual([])
  })
})

describe('a ledger whose chains were written in the order of arrival', () => {
  // SQLite only: migration 5 is SQLite's; a team ledger on PostgreSQL starts at schema 10
  it.skipIf(testEngine() === 'postgres')('has them put in order of sale time when it is opened by this version', async () => {
    const { f, emission } = await ledger()
    f.sales.sellBatch([{ emission, player: 'alice', soldAt: T0 + 5 * MIN }, { emission, player: 'bob', soldAt: T0 }])
    f.sales.sellBatch([{ emission, player: 'alice', soldAt: T0 + MIN }, { emission, player: 'alice', soldAt: T0 + 9 * MIN }])
    // as version 4 wrote it: each sale's previous is the player's sale written before it
    f.db.exec(`UPDATE sales SET prev_key = o.prev FROM (SELECT unit_key, lag(unit_key) OVER (PARTITION BY player_id ORDER BY unit_key) AS prev FROM sales) AS o
      WHERE sales.unit_key = o.unit_key;
      UPDATE players SET last_key = (SELECT max(unit_key) FROM sales WHERE player_id = players.id);`)
    expect(checkLedgerData({ db: f.db, catalog: f.catalog }, { prizes: false }).problems.map((p) => p.kind)).toContain('PLAYER_CHAIN')
    // migration 5, as opening the ledger runs it
    f.db.transaction(() => f.db.exec(MIGRATIONS.find((m) => m.version === 5)!.sql))()
    const chain = f.db.prepare(`WITH RECURSIVE c(k) AS (SELECT last_key FROM players WHERE name = 'alice'
      UNION ALL SELECT s.prev_key FROM c JOIN sales s ON s.unit_key = c.k WHERE s.prev_key IS NOT NULL)
      SELECT s.sold_at FROM c JOIN sales s ON s.unit_key = c.k`).pluck().all()
    expect(chain).toEqual([9, 5, 1].map((m) => T0 + m * MIN))
    expect(checkLedgerData({ db: f.db, catalog: f.catalog }, { prizes: false }).problems).toEqual([])
  })
})

describe('the ledger check', () => {
  it('finds a chain out of sale-time order and names the player', async () => {
    const { f, emission } = await ledger()
    f.sales.sellBatch([1, 2, 3].map((m) => ({ emission, player: 'alice', soldAt: T0 + m * MIN })))
    // the head and the sale before it swapped
    // alice's chain made k3 → k1 → k2: still one run through her three sales, but out of order
    const [k3, k2, k1] = byTime(f, 'alice').map((s) => s.serialKey)
    const setPrev = f.db.prepare('UPDATE sales SET prev_key = ? WHERE unit_key = ?')
    setPrev.run(k1, k3)
    setPrev.run(k2, k1)
    setPrev.run(null, k2)
    const found = checkLedgerData({ db: f.db, catalog: f.catalog }, { prizes: false }).problems.filter((p) => p.kind === 'PLAYER_CHAIN')
    expect(found).toHaveLength(1)
    expect(found[0].message).toMatch(/alice.*order of sale/)
  })
})
