/**
 * How a batch of sales is written, for the sales service (sales.ts): its players (a cache per
 * connection, else read in one query per chunk, else created), its rows (sales-rows.ts, per
 * engine), then once each player's totals and chain head, the day totals, the blocks' sold counts
 * (guarded by the count read at the start) and tier counters, its claims and alerts; all in one
 * IMMEDIATE transaction unless the caller's transaction holds the batch (the importer's stream).
 */
import { AppError } from '../contract/errors'
import type { Db } from '../ledger/db'
import { jsonValues } from '../ledger/dialect'
import type { AlertsService } from './alerts'
import type { Catalog } from './catalog'
import { createClaimWriter } from './claim-writer'
import { createRelink, soldBefore } from './sale-chain'
import type { EmissionState, PendingSale } from './sales'
import { createSalesRows, SALE_COLUMNS } from './sales-rows'

/** Names looked up in one query (json_each), for the players the cache does not hold. */
const LOOKUP_CHUNK = 5000
/** Past this many players the cache starts over (about 100 bytes each). */
const MAX_CACHED_PLAYERS = 1_000_000
const DAY_MS = 86_400_000

/**
 * What the ledger says of each player that a batch of this connection sold to: the id and the
 * last sale (the head of the player's chain), so that a batch reads no player it already knows.
 * `id` and `last` hold only committed state: a batch keeps its changes in the entry's batch
 * fields and copies the new chain head into `last` after its own COMMIT, never before (a
 * rolled-back batch leaves them as they were). The cache is trusted only while nothing else
 * wrote: it is dropped when `PRAGMA data_version` says another connection committed, or when
 * this connection's `total_changes()` moved since the last merge (any other write on it, or a
 * batch that rolled back after creating players). A batch run inside an outer transaction (the
 * importer's) does not use it and drops it, since that transaction may still roll back. One
 * cache per connection, shared by every sales service on it. One entry per player serves both
 * the cache and the batch, so a batch makes no object for a player the cache knows.
 */
export interface PlayerEntry {
  name: string
  /** 0 until known */
  id: number
  last: number | null
  /** when the sale `last` was sold (-Infinity: no sale) */
  lastSoldAt: number
  /** the batch that the fields below belong to */
  stamp: number
  /** the chain's head as the batch writes, and when it was sold */
  head: number | null
  headSoldAt: number
  /** a sale of the batch was older than the head it was linked to: the chain is relinked */
  late: boolean
  units: number
  staked: number
  won: number
  first: number
  lastAt: number
}
interface PlayerCache {
  players: Map<string, PlayerEntry>
  dataVersion: number
  changes: number
}
const playerCaches = new WeakMap<Db, PlayerCache>()
let batchStamp = 0

/** The entries in order of id: numbers sorted natively (id × 2^21 + place, exact below 2^53) instead of a comparator called a million times a batch. */
function byId(list: PlayerEntry[]): PlayerEntry[] {
  if (list.length >= 2 ** 21) return list.sort((a, b) => a.id - b.id)
  const keys = new Float64Array(list.length)
  for (let i = 0; i < list.length; i++) keys[i] = list[i].id * 2 ** 21 + i
  keys.sort()
  const out: PlayerEntry[] = new Array(list.length)
  for (let i = 0; i < keys.length; i++) out[i] = list[keys[i] % 2 ** 21]
  return out
}

/**
 * `work` without SQLite's check of the sales' foreign key (player_id → players), for work whose
 * sales are all written by a sales service's batch, which checks each of its players once
 * (see transact). Called outside any transaction: inside one, the pragma does nothing.
 */
export function withoutKeyChecks<T>(db: Db, work: () => T): T {
  db.pragma('foreign_keys = OFF')
  try {
    return work()
  } finally {
    db.pragma('foreign_keys = ON')
  }
}

export interface SalesBatches {
  beginBatch(): Batch
  writeRows(b: Batch, pending: PendingSale[]): void
  writeTotals(b: Batch, states: Iterable<EmissionState>): void
  write(pending: PendingSale[], states: Map<number, EmissionState>): void
  transact<T>(work: () => T): T
  /** The caller's transaction holds the next batch (checkedStream): the cache is not used. */
  nestedStream(): void
}

/**
 * A batch's writes: its players (from the cache, else read in one query per chunk, else
 * created in order of first sale) and its sales (writeRows, as many times as it takes), then
 * once (writeTotals) each player's totals and chain head, the day totals, the blocks' sold
 * counts and tier counters, and any alert. Each player's sales are chained newest to oldest
 * by time of sale (prev_key, see sale-chain.ts), so a player's last units need no index.
 */
interface Batch {
  entries: Map<string, PlayerEntry>
  stamp: number
  /** the batch's players, in order of first sale */
  players: PlayerEntry[]
  /** the batch's players with a sale older than their chain's head */
  late: PlayerEntry[]
  days: Map<string, { units: number; sales: number; prizes: number; prizesCents: number }>
}

export function createSalesBatch({ db, catalog, alerts }: { db: Db; catalog: Catalog; alerts: AlertsService }): SalesBatches {
  const playersByName = db.prepare(`SELECT p.id, p.name, p.last_key, s.sold_at FROM players p LEFT JOIN sales s ON s.unit_key = p.last_key
    WHERE p.name IN (SELECT value FROM ${jsonValues(db)})`).raw()
  const relink = createRelink(db)
  const claims = createClaimWriter(db, catalog)
  const dataVersion = db.prepare('PRAGMA data_version').pluck()
  const totalChanges = db.prepare('SELECT total_changes()').pluck()
  let cache = playerCaches.get(db)
  if (!cache) playerCaches.set(db, (cache = { players: new Map(), dataVersion: -1, changes: -1 }))
  const playerCache = cache
  /** Set by sellBatch: whether this batch runs inside an outer transaction (then the cache is not used). */
  let nested = false
  /** The players of the batch just written, merged into the cache once it has committed. */
  let batchPlayers: PlayerEntry[] = []
  const rows = createSalesRows(db)
  const setSold = db.prepare('UPDATE blocks SET units_sold = ? WHERE emission = ? AND block = ? AND units_sold = ?')
  const addTier = db.prepare('UPDATE block_tiers SET sold = sold + ? WHERE emission = ? AND block = ? AND tier = ?')
  const addDay = db.prepare(`
    INSERT INTO daily_sales (day, emission, units, sales_cents, prizes, prizes_cents) VALUES (?, ?, ?, ?, ?, ?)
    ON CONFLICT(day, emission) DO UPDATE SET units = daily_sales.units + excluded.units, sales_cents = daily_sales.sales_cents + excluded.sales_cents,
      prizes = daily_sales.prizes + excluded.prizes, prizes_cents = daily_sales.prizes_cents + excluded.prizes_cents`)

  function beginBatch(): Batch {
    const useCache = !nested
    if (useCache) {
      const v = dataVersion.get() as number
      const c = totalChanges.get() as number
      if (v !== playerCache.dataVersion || c !== playerCache.changes || playerCache.players.size > MAX_CACHED_PLAYERS) {
        playerCache.players.clear()
        playerCache.dataVersion = v
        playerCache.changes = c
      }
    }
    return { entries: useCache ? playerCache.players : new Map<string, PlayerEntry>(), stamp: ++batchStamp, players: [], late: [], days: new Map() }
  }

  /** Each sale's `who`: the batch's entry for its player, the new ones looked up or created. */
  function playersOf(b: Batch, pending: PendingSale[]): void {
    const { entries, stamp, players } = b
    const missing: PlayerEntry[] = []
    for (let i = 0; i < pending.length; i++) {
      const name = pending[i].player
      let e = entries.get(name)
      if (e === undefined) {
        e = { name, id: 0, last: null, lastSoldAt: -Infinity, stamp: 0, head: null, headSoldAt: -Infinity, late: false, units: 0, staked: 0, won: 0, first: Infinity, lastAt: -Infinity }
        entries.set(name, e)
      }
      if (e.stamp !== stamp) {
        e.stamp = stamp
        e.head = e.last
        e.headSoldAt = e.lastSoldAt
        e.late = false
        e.units = e.staked = e.won = 0
        e.first = Infinity
        e.lastAt = -Infinity
        players.push(e)
        if (e.id === 0) missing.push(e)
      }
      pending[i].who = e
    }
    const byName = new Map<string, PlayerEntry>()
    for (const e of missing) byName.set(e.name, e)
    for (let i = 0; i < missing.length; i += LOOKUP_CHUNK) {
      const chunk = missing.slice(i, i + LOOKUP_CHUNK)
      const rows = playersByName.all(JSON.stringify(chunk.map((e) => e.name))) as [number, string, number | null, number | null][]
      for (const [id, name, last, lastSoldAt] of rows) {
        const e = byName.get(name)!
        e.id = id
        e.last = e.head = last
        e.lastSoldAt = e.headSoldAt = lastSoldAt ?? -Infinity
      }
    }
    const created = missing.filter((e) => e.id === 0)
    const ids = rows.newPlayers(created.map((e) => e.name))
    created.forEach((e, i) => (e.id = ids[i]))
  }

  /** The sales' rows, all inserted before it returns, and their days counted. */
  function writeRows(b: Batch, pending: PendingSale[]): void {
    playersOf(b, pending)
    const values: unknown[] = new Array(pending.length * SALE_COLUMNS)
    let o = 0
    for (const p of pending) {
      const t = p.who!
      values[o++] = p.key
      values[o++] = p.saleId
      values[o++] = t.id
      values[o++] = t.head
      values[o++] = p.soldAt
      values[o++] = p.stake
      values[o++] = p.prize
      values[o++] = p.tier
      values[o++] = p.play
      values[o++] = p.events
      if (t.head !== null && !t.late && soldBefore(p.soldAt, p.key, t.headSoldAt, t.head)) {
        t.late = true
        b.late.push(t)
      }
      t.head = p.key
      t.headSoldAt = p.soldAt
      t.units++
      t.staked += p.stake
      t.won += p.prize
      if (p.soldAt < t.first) t.first = p.soldAt
      if (p.soldAt > t.lastAt) t.lastAt = p.soldAt
    }
    try {
      rows.insert(values, pending.length)
    } catch (e) {
      const msg = e instanceof Error ? e.message : String(e)
      if (/UNIQUE constraint failed: sales\.sale_id/.test(msg)) throw new AppError('CONFLICT', 'a sale id of the batch is already recorded for another unit', { field: 'saleId' })
      if (/UNIQUE constraint failed|PRIMARY KEY/.test(msg)) throw new AppError('CONFLICT', 'a unit of the batch is already sold (another process sold at the same time): try again')
      throw e
    }

    const thresholds = claims.batch()
    let lastDay = NaN
    let lastEmission = NaN
    let lastEntry: { units: number; sales: number; prizes: number; prizesCents: number } | null = null
    for (const p of pending) {
      const d = Math.floor(p.soldAt / DAY_MS)
      if (d !== lastDay || p.emission !== lastEmission || lastEntry === null) {
        const k = `${new Date(d * DAY_MS).toISOString().slice(0, 10)}/${p.emission}`
        lastEntry = b.days.get(k) ?? { units: 0, sales: 0, prizes: 0, prizesCents: 0 }
        b.days.set(k, lastEntry)
        lastDay = d
        lastEmission = p.emission
      }
      lastEntry.units++
      lastEntry.sales += p.stake
      if (p.prize > 0) {
        lastEntry.prizes++
        lastEntry.prizesCents += p.prize
        if (p.prize >= thresholds.of(p.emission)) thresholds.claim(p.key, p.emission, p.who!.id, p.soldAt, p.prize)
      }
    }
  }

  /** What a batch writes once, after its rows. */
  function writeTotals(b: Batch, states: Iterable<EmissionState>): void {
    // Each of the batch's players must exist: this is the check that the sales' foreign key makes
    // when it is on, made once per player instead of once per sale (see transact). In order of
    // id, so that the updates walk the table's pages in order.
    for (const t of b.late) {
      const head = relink(t.head!, t.units)
      t.head = head.key
      t.headSoldAt = head.soldAt
    }
    const players = byId(b.players)
    if (rows.addToPlayers(players) !== players.length) {
      const gone = players.find((t) => !(db.prepare('SELECT 1 FROM players WHERE id = ?').get(t.id)))
      throw new AppError('INTERNAL', `player ${gone?.name ?? '?'} (id ${gone?.id ?? '?'}) is not in the ledger: nothing of the batch is written`)
    }
    batchPlayers = players
    for (const [k, v] of b.days) {
      const [day, emission] = k.split('/')
      addDay.run(day, Number(emission), v.units, v.sales, v.prizes, v.prizesCents)
    }
    for (const st of states) {
      const touched: number[] = []
      for (const bl of st.blocks) {
        if (bl.sold === bl.startSold) continue
        touched.push(bl.block)
        // guarded by the count read at the start: a writer in between makes this fail instead of selling twice
        if (setSold.run(bl.sold, st.row.emission, bl.block, bl.startSold).changes !== 1) {
          throw new AppError('CONFLICT', `block ${st.row.emission}/${bl.block} was sold from elsewhere at the same time: try again`)
        }
        bl.tierDelta.forEach((n, tier) => {
          if (n > 0) addTier.run(n, st.row.emission, bl.block, tier)
        })
      }
      if (touched.length) alerts.checkSoldOut(st.row.emission, touched)
    }
  }

  function write(pending: PendingSale[], states: Map<number, EmissionState>): void {
    const b = beginBatch()
    writeRows(b, pending)
    writeTotals(b, states.values())
  }

  const inTransaction = db.transaction((work: () => unknown) => work())

  /**
   * A batch's writes in one IMMEDIATE transaction (the batch reads the sold counts that it then
   * writes). The sales' foreign key (player_id → players) is checked by the batch itself, once
   * per player: every sale's player id is one of the batch's players, and write() refuses the
   * batch unless each of them updates exactly one players row. Checked by SQLite, it cost about
   * 1.4 µs per sale, a sixth of a simulated sale. The pragma can change only outside a
   * transaction: the importer, whose transaction holds the batch, turns it off around it.
   */
  function transact<T>(work: () => T): T {
    nested = db.inTransaction
    batchPlayers = []
    let r: T
    try {
      r = nested ? (inTransaction.immediate(work) as T) : withoutKeyChecks(db, () => inTransaction.immediate(work) as T)
    } finally {
      // inside an outer transaction that may yet roll back, what the batch wrote is not known to last
      if (nested) {
        playerCache.players.clear()
        playerCache.changes = -1
      }
    }
    if (!nested && batchPlayers.length) {
      // committed: the cache learns the players' new chain heads
      for (const t of batchPlayers) {
        t.last = t.head
        t.lastSoldAt = t.headSoldAt
      }
      playerCache.changes = totalChanges.get() as number
    }
    batchPlayers = []
    return r
  }

  return { beginBatch, writeRows, writeTotals, write, transact, nestedStream: () => void (nested = true) }
}
