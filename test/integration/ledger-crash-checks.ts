/**
 * What a sound ledger holds after workstations sold on it (killed mid-way: ledger-crash.test.ts;
 * at the same time: team-ledger-sales.test.ts), read with SQL on a connection of the test's own,
 * on either engine: no half-made block, each block's sold count equal to its sales with no gap,
 * tier counters, players' and days' totals equal to the sales, each player's chain whole, and one
 * audit chain numbered 1, 2, 3… with each entry linked to the one before. Players' totals and
 * heads are read as the app reads them, through player_totals: a simulation killed before its
 * fold leaves them in player_deltas on a team ledger (docs/ledger.md).
 */
import { expect } from 'vitest'
import { openLedger, type Db } from '../../electron/ledger/db'
import { testEngine } from '../support/ledger-engine'

const UNITS_OF_BLOCK = `s.unit_key BETWEEN b.emission * 10000000000 + b.block * 10000000 AND b.emission * 10000000000 + b.block * 10000000 + 9999999`

function expectBlocksWhole(db: Db): void {
  // no half-made block: a secret always comes with its commitment (the schema checks it too)
  expect(
    db
      .prepare(
        "SELECT count(*) FROM blocks WHERE (secret IS NULL) <> (commitment IS NULL) OR (status = 'pending') <> (secret IS NULL)",
      )
      .pluck()
      .get(),
  ).toBe(0)
  // sold counts equal the sales rows, block by block, units 0 … units_sold − 1 with no gap
  const perBlock = db
    .prepare(
      `SELECT b.emission, b.block, b.units_sold AS sold,
      (SELECT count(*) FROM sales s WHERE ${UNITS_OF_BLOCK}) AS "rows",
      (SELECT count(DISTINCT s.unit) FROM sales s WHERE ${UNITS_OF_BLOCK}) AS "distinctUnits",
      (SELECT coalesce(max(unit) + 1, 0) FROM sales s WHERE ${UNITS_OF_BLOCK}) AS "next"
    FROM blocks b`,
    )
    .all() as { sold: number; rows: number; distinctUnits: number; next: number }[]
  for (const r of perBlock)
    expect({ rows: r.rows, distinctUnits: r.distinctUnits, next: r.next }).toEqual({
      rows: r.sold,
      distinctUnits: r.sold,
      next: r.sold,
    })
  // no unit sold twice, whatever the block
  expect(db.prepare('SELECT count(*) - count(DISTINCT unit_key) FROM sales').pluck().get()).toBe(0)
  // tier counters equal the sales
  const counters = db
    .prepare('SELECT emission, block, tier, sold FROM block_tiers WHERE sold > 0 ORDER BY emission, block, tier')
    .all()
  const fromSales = db
    .prepare(
      'SELECT emission, block, tier, count(*) AS sold FROM sales WHERE tier IS NOT NULL GROUP BY emission, block, tier ORDER BY emission, block, tier',
    )
    .all()
  expect(counters).toEqual(fromSales)
}

function expectTotals(db: Db): { units: number } {
  const players = db
    .prepare(
      'SELECT coalesce(sum(units), 0) AS units, coalesce(sum(staked_cents), 0) AS staked, coalesce(sum(won_cents), 0) AS won FROM player_totals',
    )
    .get()
  const days = db
    .prepare(
      'SELECT coalesce(sum(units), 0) AS units, coalesce(sum(sales_cents), 0) AS staked, coalesce(sum(prizes_cents), 0) AS won FROM daily_sales',
    )
    .get()
  const sales = db
    .prepare(
      'SELECT count(*) AS units, coalesce(sum(stake_cents), 0) AS staked, coalesce(sum(prize_cents), 0) AS won FROM sales',
    )
    .get() as { units: number }
  expect(players).toEqual(sales)
  expect(days).toEqual(sales)
  // player by player: the totals kept equal the player's sales (none counted twice, none lost)
  const playersOff = db
    .prepare(
      `SELECT count(*) FROM player_totals p LEFT JOIN
      (SELECT player_id, count(*) AS units, sum(stake_cents) AS staked, sum(prize_cents) AS won FROM sales GROUP BY player_id) s ON s.player_id = p.id
    WHERE coalesce(s.units, 0) <> p.units OR coalesce(s.staked, 0) <> p.staked_cents OR coalesce(s.won, 0) <> p.won_cents`,
    )
    .pluck()
    .get()
  expect(playersOff).toBe(0)
  expect(notNewest(db)).toBe(0)
  return sales
}

/**
 * The players whose last_key is not the newest of their sales by (time of sale, unit key), each
 * found on the index sales_by_player.
 */
function notNewest(db: Db): number {
  return db
    .prepare(
      `SELECT count(*) FROM player_totals p WHERE p.last_key IS DISTINCT FROM
    (SELECT s.unit_key FROM sales s WHERE s.player_id = p.id ORDER BY s.sold_at DESC, s.unit_key DESC LIMIT 1)`,
    )
    .pluck()
    .get() as number
}

/** One chain: seq 1…n with no hole, and each entry's prev_hash the hash of the entry before it. */
function expectOneAuditChain(db: Db): void {
  const seqs = db
    .prepare('SELECT count(*) AS n, coalesce(min(seq), 1) AS lo, coalesce(max(seq), 0) AS hi FROM audit')
    .get()
  const { n } = seqs as { n: number }
  expect(seqs).toEqual({ n, lo: 1, hi: n })
  const forks = db
    .prepare('SELECT count(*) FROM audit a JOIN audit p ON p.seq = a.seq - 1 WHERE a.prev_hash <> p.hash')
    .pluck()
    .get()
  expect(forks).toBe(0)
  expect(db.prepare('SELECT count(*) - count(DISTINCT prev_hash) FROM audit').pluck().get()).toBe(0)
}

/** Checks the ledger at `location` is sound (see above); the number of sales in it. */
export function expectSoundLedger(location: string): { sales: number } {
  const db = openLedger(location)
  try {
    if (testEngine() === 'sqlite') {
      // the file's pages and its foreign keys (PostgreSQL checks both at each write)
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok')
      expect(db.pragma('foreign_key_check')).toEqual([])
    }
    expectBlocksWhole(db)
    expectOneAuditChain(db)
    return { sales: expectTotals(db).units }
  } finally {
    db.close()
  }
}
