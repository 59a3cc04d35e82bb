/**
 * Last-game recall (AGCO 13.1.1): a player's last unit and the nine before it follow the time of
 * sale (then the serial), whatever order the feeds arrive in, through every way sales are written
 * (one batch, checked columns, the importer's stream inside its transaction). A sale found on the
 * index sales_by_player (migration 15) touches no sale held before it, so a late feed, a second
 * feed of the same day or a second block over the same days costs what a feed in order costs.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { smallDefinition } from '../../../test/support/game-fixtures'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { testEngine } from '../../../test/support/ledger-engine'
import { openLedger } from '../../ledger/db'
import { MIGRATIONS } from '../../ledger/schema/steps.sqlite'
import type { CheckedSales } from './context'
import { NO_PLAY } from '../../ledger/play-codec'
import { checkLedgerData } from '../ledger-office'
import { createPlayersService } from '../players'
import { openLedgerFixture, type LedgerFixture } from '../../../test/support/simulator-world'

const T0 = Date.parse('2025-03-02T10:00:00Z')
const MIN = 60_000
const at = (m: number) => T0 + m * MIN
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
  return f.db
    .prepare(
      `SELECT s.unit_key AS "serialKey", s.sold_at AS "soldAt" FROM sales s JOIN players p ON p.id = s.player_id
    WHERE p.name = ? ORDER BY s.sold_at DESC, s.unit_key DESC`,
    )
    .all(player) as { serialKey: number; soldAt: number }[]
}

const times = (units: { soldAt: string }[]) => units.map((u) => Date.parse(u.soldAt))

function checked(players: string[], soldAt: number[]): CheckedSales {
  return {
    count: players.length,
    players,
    soldAt: Float64Array.from(soldAt),
    codes: new Uint8Array(players.length).fill(NO_PLAY),
    ends: new Uint32Array(players.length),
    events: new Uint8Array(0),
  }
}

/** From now on any rewrite of a sale held fails: a batch may only add sales. */
function refuseRewrites(f: LedgerFixture): void {
  if (testEngine() === 'postgres') {
    f.db.exec(`CREATE FUNCTION refuse_rewrite() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'a sale held was rewritten'; END $$;
      CREATE TRIGGER sales_not_rewritten BEFORE UPDATE ON sales FOR EACH ROW EXECUTE FUNCTION refuse_rewrite();`)
  } else {
    f.db.exec(
      "CREATE TRIGGER sales_not_rewritten BEFORE UPDATE ON sales BEGIN SELECT RAISE(ABORT, 'a sale held was rewritten'); END;",
    )
  }
}

const check = (f: LedgerFixture) => checkLedgerData({ db: f.db, catalog: f.catalog }, { prizes: false })

describe("a player's last units follow the time of sale", () => {
  it('after a late feed: the last unit is the one sold last, not the one written last', async () => {
    const { f, emission, players } = await ledger()
    f.sales.sellBatch([10, 11, 12, 13].map((m) => ({ emission, player: 'alice', soldAt: at(m) })))
    // a feed of the morning arrives after the afternoon's: one sale before all, one in between, one last
    f.sales.sellBatch([
      { emission, player: 'alice', soldAt: at(1) },
      { emission, player: 'bob', soldAt: at(2) },
      { emission, player: 'alice', soldAt: at(12) + 1 },
    ])
    f.sales.sellBatch([
      { emission, player: 'alice', soldAt: at(20) },
      { emission, player: 'alice', soldAt: at(5) },
    ])
    const last = players().last('alice')
    expect(times(last.lastUnits)).toEqual([at(20), at(13), at(12) + 1, at(12), at(11), at(10), at(5), at(1)])
    expect(last.lastSaleAt).toBe(new Date(at(20)).toISOString())
    expect(check(f).problems).toEqual([])
  })

  it('sales of the same time come by serial, the highest first', async () => {
    const { f, emission, players } = await ledger()
    f.sales.sellBatch([
      { emission, player: 'alice', soldAt: T0 + MIN },
      { emission, player: 'alice', soldAt: T0 },
    ])
    f.sales.sellBatch([{ emission, player: 'alice', soldAt: T0 }])
    const units = players().last('alice').lastUnits
    const keys = byTime(f, 'alice').map((s) => s.serialKey)
    expect(units.map((u) => Date.parse(u.soldAt))).toEqual([T0 + MIN, T0, T0])
    // the two sold at T0: the one written last has the higher serial, so it comes first
    expect(keys[1]).toBeGreaterThan(keys[2])
    expect(units[1].serial > units[2].serial).toBe(true)
  })

  it('whatever the order of the feeds: every page of history and the last 10 agree with SQL', async () => {
    const { f, emission, players } = await ledger()
    let seed = 7
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n)
    const names = ['ann', 'ben', 'cat', 'dan', 'eve']
    for (let batch = 0; batch < 12; batch++) {
      const size = 1 + rand(40)
      const sales = Array.from({ length: size }, () => ({
        emission,
        player: names[rand(names.length)],
        soldAt: T0 + rand(500) * MIN,
      }))
      if (batch % 3 === 2)
        f.sales.sellChecked(
          emission,
          checked(
            sales.map((s) => s.player),
            sales.map((s) => s.soldAt),
          ),
        )
      else if (batch % 3 === 1) {
        f.db.transaction(() => {
          const stream = f.sales.checkedStream(emission)
          stream.add(
            checked(
              sales.map((s) => s.player),
              sales.map((s) => s.soldAt),
            ),
          )
          stream.finish()
        })()
      } else f.sales.sellBatch(sales)
    }
    const svc = players()
    for (const name of names) {
      const want = byTime(f, name)
      expect(times(svc.last(name).lastUnits)).toEqual(want.slice(0, 10).map((s) => s.soldAt))
      const pages = [1, 2, 3, 4].flatMap((p) => svc.history(name, { page: p, pageSize: 7 }).items)
      expect(times(pages)).toEqual(want.slice(0, 28).map((s) => s.soldAt))
      const oldest = svc.history(name, { page: 1, pageSize: 5, order: 'asc' }).items
      expect(times(oldest)).toEqual(
        want
          .slice(-5)
          .reverse()
          .map((s) => s.soldAt),
      )
    }
    expect(check(f).problems).toEqual([])
  })
})

describe('feeds in any order add sales and touch none held', () => {
  it('a late feed and a second feed of the same day, for the same players, rewrite no sale held', async () => {
    const { f, emission, players } = await ledger()
    const names = Array.from({ length: 300 }, (_, i) => `p${i}`)
    f.sales.sellBatch(names.flatMap((player) => [100, 200, 300].map((m) => ({ emission, player, soldAt: at(m) }))))
    refuseRewrites(f)
    // a month's worth older than every sale held, then the same day again, interleaved with the first
    f.sales.sellChecked(
      emission,
      checked(
        names,
        names.map((_, i) => at(50 + (i % 7))),
      ),
    )
    f.sales.sellBatch(
      names.flatMap((player, i) => [
        { emission, player, soldAt: at(150) },
        ...(i % 2 ? [{ emission, player, soldAt: at(400) }] : []),
      ]),
    )
    const svc = players()
    for (const name of ['p0', 'p1', 'p7', 'p299']) {
      const want = byTime(f, name)
      expect(want).toHaveLength(name === 'p0' ? 5 : 6)
      expect(times(svc.last(name).lastUnits)).toEqual(want.map((s) => s.soldAt))
    }
    expect(svc.last('p1').lastSaleAt).toBe(new Date(at(400)).toISOString())
    expect(svc.last('p0').lastSaleAt).toBe(new Date(at(300)).toISOString())
    expect(check(f).problems).toEqual([])
  })

  it("keeps the player's newest sale (last_key) the newest of all, whatever batch comes last", async () => {
    const { f, emission } = await ledger()
    f.sales.sellBatch([
      { emission, player: 'ann', soldAt: at(30) },
      { emission, player: 'ann', soldAt: at(10) },
    ])
    f.sales.sellBatch([{ emission, player: 'ann', soldAt: at(20) }])
    f.sales.sellBatch([{ emission, player: 'ann', soldAt: at(30) }])
    const newest = byTime(f, 'ann')[0].serialKey
    expect(f.db.prepare("SELECT last_key FROM player_totals WHERE name = 'ann'").pluck().get()).toBe(newest)
  })
})

describe('the ledger check of what replaced the chain', () => {
  it('names a player whose last_key is not their newest sale, and a sale moved in time by hand', async () => {
    const { f, emission } = await ledger()
    f.sales.sellBatch(['ann', 'ben', 'ann', 'ben'].map((player, i) => ({ emission, player, soldAt: at(i) })))
    const [newest, older] = byTime(f, 'ann')
    f.db.prepare("UPDATE players SET last_key = ? WHERE name = 'ann'").run(older.serialKey)
    let r = check(f)
    expect(r.problems.map((p) => [p.kind, p.field, p.stored, p.recomputed])).toEqual([
      ['PLAYER_CHAIN', 'last_key', older.serialKey, newest.serialKey],
    ])
    expect(r.problems[0].message).toContain("the newest of the player's sales")
    f.db.prepare("UPDATE players SET last_key = ? WHERE name = 'ann'").run(newest.serialKey)
    // the older sale moved after the newest, by plain SQL: the newest and the last sale's time no longer agree
    f.db.prepare('UPDATE sales SET sold_at = ? WHERE unit_key = ?').run(at(3) + 1, older.serialKey)
    r = check(f)
    expect(r.problems.map((p) => `${p.kind} ${p.field}`)).toEqual(
      expect.arrayContaining(['PLAYER_TOTALS last_sale_at', 'PLAYER_CHAIN last_key']),
    )
  })
})

// SQLite's query plans (EXPLAIN QUERY PLAN and its wording): SQLite only
describe.skipIf(testEngine() === 'postgres')("a player's sales are read on an index", () => {
  it('the last 10 and the units per emission, with no sort and no walk', async () => {
    const { f } = await ledger()
    const plan = (sql: string) =>
      (f.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(1) as { detail: string }[]).map((r) => r.detail).join(' | ')
    const last = plan(
      'SELECT unit_key, sold_at FROM sales s WHERE s.player_id = ? ORDER BY s.sold_at DESC, s.unit_key DESC LIMIT 10',
    )
    expect(last).toMatch(/SEARCH s USING (COVERING )?INDEX sales_by_player \(player_id=\?\)/)
    expect(last).not.toMatch(/TEMP B-TREE/)
    expect(plan('SELECT unit_key / 10000000000, count(*) FROM sales WHERE player_id = ? GROUP BY 1')).toMatch(
      /COVERING INDEX sales_by_player/,
    )
  })
})

describe.skipIf(testEngine() === 'postgres')('a ledger of schema 14 brought to 15', () => {
  it("keeps every sale, drops the chain's links and finds a player's sales on the new index", () => {
    const dir = mkdtempSync(join(tmpdir(), 'sales-v15-'))
    try {
      const path = join(dir, 'ledger.db')
      let db = openLedger(path, { migrations: MIGRATIONS.filter((m) => m.version <= 14) })
      const id = db.prepare("INSERT INTO players (name) VALUES ('ann') RETURNING id").pluck().get() as number
      const keys = [10010000000, 10010000001, 10010000002]
      // sold at 3, 1, 2 minutes: chained in the order of sale, as version 14 kept them
      const add = db.prepare(
        'INSERT INTO sales (unit_key, player_id, prev_key, sold_at, stake_cents, prize_cents) VALUES (?, ?, ?, ?, 500, 0)',
      )
      add.run(keys[1], id, null, at(1))
      add.run(keys[2], id, keys[1], at(2))
      add.run(keys[0], id, keys[2], at(3))
      db.prepare('UPDATE players SET units = 3, staked_cents = 1500, last_key = ? WHERE id = ?').run(keys[0], id)
      db.close()
      db = openLedger(path, { migrations: MIGRATIONS.filter((m) => m.version <= 15) })
      try {
        expect(db.pragma('user_version', { simple: true })).toBe(15)
        expect((db.pragma('table_info(sales)') as { name: string }[]).map((c) => c.name)).not.toContain('prev_key')
        expect(
          db
            .prepare('SELECT unit_key FROM sales WHERE player_id = ? ORDER BY sold_at DESC, unit_key DESC')
            .pluck()
            .all(id),
        ).toEqual([keys[0], keys[2], keys[1]])
        expect(
          db
            .prepare("SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = 'sales_by_player'")
            .pluck()
            .get(),
        ).toBe(1)
      } finally {
        db.close()
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
