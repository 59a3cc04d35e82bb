/**
 * A player's totals and chain head, as support, the claims and the ledger check read them
 * (player_totals, docs/ledger.md): always the sums of the player's committed sales and its
 * newest sale, whether a team ledger's simulation has appended them and not yet folded them, has
 * folded them, was cancelled, or died before its fold; and a batch still refuses a player that
 * is not in the ledger, naming it, however it writes the totals.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { brokenBy } from '../../../test/support/refusal'
import { smallDefinition } from '../../../test/support/game-fixtures'
import { testEngine } from '../../../test/support/ledger-engine'
import { formatSerial } from '../../../game-core/serial'
import type { Db } from '../../ledger/db'
import { splitUnitKey } from '../../ledger/unit-key'
import { checkLedgerData } from '../ledger-office'
import { createPlayersService } from '../players'
import { playerCacheOf } from './player-cache'
import { inProcessDrafts, playerName, sellDrafts, type GeneratorOptions } from '../simulator'
import { openLedgerFixture, type LedgerFixture } from '../../../test/support/simulator-world'
import type { SalesService } from './context'

const NOW = Date.parse('2025-03-20T15:00:00Z')
const def = smallDefinition()
const onPostgres = testEngine() === 'postgres'

const open: LedgerFixture[] = []
function fixture(): LedgerFixture {
  const f = openLedgerFixture({ definition: def, clock: () => new Date(NOW) })
  open.push(f)
  return f
}
afterEach(() => {
  while (open.length) open.pop()!.close()
})

type Totals = [
  id: number,
  units: number,
  staked: number,
  won: number,
  first: number | null,
  last: number | null,
  head: number | null,
]
const COLUMNS = 'id, units, staked_cents, won_cents, first_sale_at, last_sale_at, last_key'

/** Every player's totals as the sales give them, the head being the newest sale by (time, unit key). */
function fromSales(db: Db): Totals[] {
  return db
    .prepare(
      `SELECT p.id, count(s.unit_key), coalesce(sum(s.stake_cents), 0), coalesce(sum(s.prize_cents), 0), min(s.sold_at), max(s.sold_at),
      (SELECT h.unit_key FROM sales h WHERE h.player_id = p.id ORDER BY h.sold_at DESC, h.unit_key DESC LIMIT 1)
    FROM players p LEFT JOIN sales s ON s.player_id = p.id GROUP BY p.id ORDER BY p.id`,
    )
    .raw()
    .all() as Totals[]
}
const read = (db: Db, from: 'player_totals' | 'players') =>
  db.prepare(`SELECT ${COLUMNS} FROM ${from} ORDER BY id`).raw().all() as Totals[]
/** Deltas waiting to be folded (a SQLite ledger has none). */
const deltas = (db: Db) => (onPostgres ? (db.prepare('SELECT count(*) FROM player_deltas').pluck().get() as number) : 0)

function generator(seed: number, count: number, players: number): GeneratorOptions {
  return { seed, players, count, fromMs: Date.parse('2025-03-01T00:00:00Z'), toMs: NOW, zones: def }
}

/** A simulation's selling through `sales`, in batches of `batchSize`, calling `after` once each has committed. */
function sell(
  f: LedgerFixture,
  e: number,
  gen: GeneratorOptions,
  opts: { sales?: SalesService; batchSize?: number; after?: () => void; signal?: AbortSignal } = {},
) {
  return sellDrafts(
    opts.sales ?? f.sales,
    inProcessDrafts(gen),
    { emission: e, sales: gen.count, batchSize: opts.batchSize ?? 400, gen },
    {
      signal: opts.signal,
      progress: () => opts.after?.(),
    },
  )
}

describe("a player's totals and head", () => {
  it('are the sales’ after each batch of a simulation, appended on a team ledger, and folded once it ends', async () => {
    const f = fixture()
    const e = await f.openEmission({ startsOn: '2025-03-01' })
    const seen: number[] = []
    await sell(f, e, generator(3, 3000, 80), {
      after: () => {
        expect(read(f.db, 'player_totals')).toEqual(fromSales(f.db))
        seen.push(deltas(f.db))
      },
    })
    // appended while it ran: the players' rows are rewritten only by the fold
    if (onPostgres) expect(seen.at(-1)).toBeGreaterThan(80)
    expect(deltas(f.db)).toBe(0)
    expect(read(f.db, 'players')).toEqual(fromSales(f.db))
    expect(read(f.db, 'player_totals')).toEqual(fromSales(f.db))
    expect(checkLedgerData({ db: f.db, catalog: f.catalog })).toMatchObject({ ok: true, problemCount: 0 })
  })

  it('are folded for the batches that committed when a simulation is cancelled', async () => {
    const f = fixture()
    const e = await f.openEmission({ startsOn: '2025-03-01' })
    const ac = new AbortController()
    let batches = 0
    await expect(
      sell(f, e, generator(4, 4000, 60), { signal: ac.signal, after: () => ++batches === 3 && ac.abort() }),
    ).rejects.toMatchObject({ code: 'CANCELLED' })
    expect(f.catalog.block(e, 1).units_sold).toBe(1200)
    expect(deltas(f.db)).toBe(0)
    expect(read(f.db, 'players')).toEqual(fromSales(f.db))
  })

  it('stay right when a simulation dies before its fold: other sales come, and the next simulation folds all', async () => {
    const f = fixture()
    const e = await f.openEmission({ startsOn: '2025-03-01' })
    const lost: SalesService = {
      ...f.sales,
      foldPlayerTotals: () => {
        throw new Error('the connection was lost')
      },
    }
    await sell(f, e, generator(5, 2000, 40), { sales: lost })
    if (onPostgres) expect(deltas(f.db)).toBeGreaterThan(40)
    expect(read(f.db, 'player_totals')).toEqual(fromSales(f.db))
    expect(checkLedgerData({ db: f.db, catalog: f.catalog })).toMatchObject({ ok: true, problemCount: 0 })

    // a sale of a player whose totals wait in deltas, updated in place: it is the newest, its head wins
    const heavy = playerName(0)
    const sold = f.sales.sellNext(e, { player: heavy, soldAt: NOW })
    expect(read(f.db, 'player_totals')).toEqual(fromSales(f.db))
    // support's last 10 start from that head, newest first
    const newest = f.db
      .prepare(
        `SELECT unit_key FROM sales WHERE player_id = (SELECT id FROM players WHERE name = ?)
      ORDER BY sold_at DESC, unit_key DESC`,
      )
      .pluck()
      .all(heavy) as number[]
    const last = createPlayersService({ db: f.db, catalog: f.catalog }).last(heavy)
    expect(last.lastUnits[0].serial).toBe(sold.serial)
    expect(last.lastUnits.map((u) => u.serial)).toEqual(
      newest.slice(0, 10).map((k) => formatSerial(splitUnitKey(k), def.blockSize)),
    )
    expect(last.units).toBe(newest.length)

    // a late sale of another such player, in place: its chain is relinked, its head stays the newest sale
    const other = playerName(1)
    f.sales.sellNext(e, { player: other, soldAt: '2025-03-01T00:00:01Z' })
    expect(read(f.db, 'player_totals')).toEqual(fromSales(f.db))

    await sell(f, e, generator(6, 1000, 40))
    expect(deltas(f.db)).toBe(0)
    expect(read(f.db, 'players')).toEqual(fromSales(f.db))
  })

  it.runIf(onPostgres)('waiting in deltas, is found wrong by the ledger check when a delta is altered', async () => {
    const f = fixture()
    const e = await f.openEmission({ startsOn: '2025-03-01' })
    await sell(f, e, generator(7, 1200, 30), { sales: { ...f.sales, foldPlayerTotals: () => 0 } })
    const id = f.db.prepare('SELECT player_id FROM player_deltas ORDER BY player_id LIMIT 1').pluck().get() as number
    f.db.prepare('UPDATE player_deltas SET won_cents = won_cents + 100 WHERE player_id = ?').run(id)
    const check = checkLedgerData({ db: f.db, catalog: f.catalog })
    expect(check.ok).toBe(false)
    expect(check.problems).toContainEqual(
      expect.objectContaining({
        kind: 'PLAYER_TOTALS',
        field: 'won_cents',
        row: expect.objectContaining({ playerId: id }),
      }),
    )
  })
})

describe("a batch's check of its players", () => {
  for (const append of [false, true]) {
    it(`refuses a player that is not in the ledger, naming it, with nothing written (totals ${append ? 'appended' : 'in place'})`, async () => {
      const f = fixture()
      const e = await f.openEmission({ startsOn: '2025-03-01' })
      await sell(f, e, generator(8, 500, 10))
      // a sale after the simulation's fold, so that the connection's cache is trusted again…
      f.sales.sellNext(e, { player: playerName(0), soldAt: NOW })
      // …and says that a player has an id that no players row has
      const entry = playerCacheOf(f.db).players.get(playerName(0))!
      entry.id = 999_999
      f.sales.appendPlayerTotals(append)
      expect(() => f.sales.sellNext(e, { player: playerName(0), soldAt: NOW })).toThrow(
        `player ${playerName(0)} (id 999999) is not in the ledger: nothing of the batch is written`,
      )
      f.sales.appendPlayerTotals(false)
      expect(f.catalog.block(e, 1).units_sold).toBe(501)
      expect(f.db.prepare('SELECT count(*) FROM sales').pluck().get()).toBe(501)
      expect(deltas(f.db)).toBe(0)
    })
  }

  it("leaves the server's check of other writes of sales on once the batch has committed", async () => {
    const f = fixture()
    const e = await f.openEmission({ startsOn: '2025-03-01' })
    await sell(f, e, generator(9, 300, 10))
    const stray = () =>
      f.db
        .prepare(
          'INSERT INTO sales (unit_key, player_id, sold_at, stake_cents, prize_cents) VALUES (?, 999999, 1, 200, 0)',
        )
        .run(e * 1e10 + 1e7 + 9000)
    expect(brokenBy(stray)).toBe('foreign-key')
    expect(
      brokenBy(() =>
        f.db.transaction(() => {
          f.sales.sellNext(e, { player: 'P-in-the-same-transaction', soldAt: NOW })
          stray()
        })(),
      ),
    ).toBe('foreign-key')
    expect(f.db.prepare('SELECT count(*) FROM sales').pluck().get()).toBe(300)
  })
})
