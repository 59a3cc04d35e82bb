/**
 * How a batch of sales is written, for the sales service (service.ts): its players (a cache per
 * connection, else read in one query per chunk, else created: players.ts), its rows
 * (rows.ts, per engine), then once each player's totals and newest sale, the day totals, the
 * blocks' sold counts (guarded by the count read at the start) and tier counters, its claims and
 * alerts; all in one IMMEDIATE transaction unless the caller's transaction holds the batch (the
 * importer's stream).
 */
import type { Statement } from 'better-sqlite3'
import { AppError } from '../../contract/errors'
import { brokenConstraint } from '../../ledger/constraint'
import type { Db } from '../../ledger/db'
import { engineOf, jsonValues, withoutKeyChecks } from '../../ledger/dialect'
import { ownChanges } from '../../ledger/quiet-writes'
import type { PgDb } from '../../ledger/pg/pg-db'
import type { AlertsService } from '../alerts'
import type { Catalog } from '../catalog'
import { createClaimWriter } from '../claims'
import { createPlayerLocks, type PlayerLocks } from './heads'
import { type BatchPlayers, byId, playersOf, type PlayerStore } from './players'
import {
  forgetCache,
  freshCache,
  learnChanges,
  type PlayerCache,
  playerCacheOf,
  type PlayerEntry,
} from './player-cache'
import { SALE_COLUMNS, type DayTotals, type SalesRows } from './rows'
import { sqliteSalesRows } from './rows.sqlite'
import { pgSalesRows } from './rows.pg'
import type { EmissionState, PendingSale } from './state'

export type { PlayerEntry } from './player-cache'

const DAY_MS = 86_400_000
let batchStamp = 0

export interface SalesBatches {
  beginBatch(): Batch
  writeRows(b: Batch, pending: PendingSale[]): void
  writeTotals(b: Batch, states: Iterable<EmissionState>): void
  write(pending: PendingSale[], states: Map<number, EmissionState>): void
  transact<T>(work: () => T): T
  /** The caller's transaction holds the next batch (checkedStream): the cache is not used. */
  nestedStream(): void
  /** Whether the batches append their players' totals (a bulk job) rather than update the rows. */
  appendTotals(on: boolean): void
  /** The appended totals folded into the players' rows (one transaction); how many players. */
  foldTotals(): number
}

/**
 * A batch's writes: its players (from the cache, else read in one query per chunk, else
 * created in order of first sale) and its sales (writeRows, as many times as it takes), then
 * once (writeTotals) each player's totals and newest sale, the day totals, the blocks' sold
 * counts and tier counters, and any alert. A sale touches no other sale: a player's sales are
 * found on the index sales_by_player (players.ts), whatever order they arrive in.
 */
interface Batch extends BatchPlayers {
  days: Map<string, DayTotals>
}

/** What a service's batches share: built once, the statements prepared once. */
interface BatchContext {
  db: Db
  alerts: AlertsService
  players: PlayerStore
  rows: PlayerStore['rows']
  cache: PlayerCache
  locks: PlayerLocks
  claims: ReturnType<typeof createClaimWriter>
  dataVersion: Statement
  setSold: Statement
  addTier: Statement
  inTransaction: ReturnType<Db['transaction']>
  /** Set by transact: whether this batch runs inside an outer transaction (then the cache is not used). */
  nested: boolean
  /** The players of the batch just written, merged into the cache once it has committed. */
  batchPlayers: PlayerEntry[]
  /** Set by appendTotals: the players' totals go to player_deltas (rows.ts). */
  append: boolean
}

/** The sales rows of this ledger's engine (rows.sqlite.ts, rows.pg.ts). */
function salesRowsOf(db: Db): SalesRows {
  return engineOf(db) === 'postgres' ? pgSalesRows(db as unknown as PgDb) : sqliteSalesRows(db)
}

export function createSalesBatch({
  db,
  catalog,
  alerts,
}: {
  db: Db
  catalog: Catalog
  alerts: AlertsService
}): SalesBatches {
  const rows = salesRowsOf(db)
  const byName = db.prepare(`SELECT id, name FROM players WHERE name IN (SELECT value FROM ${jsonValues(db)})`).raw()
  const ctx: BatchContext = {
    db,
    alerts,
    rows,
    players: { byName, rows },
    cache: playerCacheOf(db),
    locks: createPlayerLocks(db),
    claims: createClaimWriter(db, catalog),
    dataVersion: db.prepare('PRAGMA data_version').pluck(),
    setSold: db.prepare('UPDATE blocks SET units_sold = ? WHERE emission = ? AND block = ? AND units_sold = ?'),
    addTier: db.prepare('UPDATE block_tiers SET sold = sold + ? WHERE emission = ? AND block = ? AND tier = ?'),
    inTransaction: db.transaction((work: () => unknown) => work()),
    nested: false,
    batchPlayers: [],
    append: false,
  }
  return {
    beginBatch: () => beginBatch(ctx),
    writeRows: (b, pending) => writeRows(ctx, b, pending),
    writeTotals: (b, states) => writeTotals(ctx, b, states),
    write: (pending, states) => write(ctx, pending, states),
    transact: (work) => transact(ctx, work),
    nestedStream: () => void (ctx.nested = true),
    appendTotals: (on) => void (ctx.append = on),
    foldTotals: () => rows.foldPlayers(),
  }
}

function beginBatch(ctx: BatchContext): Batch {
  const entries = ctx.nested
    ? new Map<string, PlayerEntry>()
    : freshCache(ctx.cache, ctx.dataVersion.get() as number, ownChanges(ctx.db))
  return { entries, stamp: ++batchStamp, players: [], days: new Map() }
}

/**
 * The sales' rows inserted, and their days counted. On a team ledger the server writes them
 * while the caller goes on (the importer checks its next lines): they are settled, a conflict
 * said, before the batch's next statement (the next rows' players, or writeTotals).
 */
function writeRows(ctx: BatchContext, b: Batch, pending: PendingSale[]): void {
  settleRows(ctx)
  playersOf(ctx.players, b, pending)
  // each sale's player is one of the batch's, which writeTotals checks once (addToPlayers)
  ctx.rows.playersChecked(true)
  asConflict(() => ctx.rows.insert(rowValues(pending), pending.length))
  countDays(ctx, b, pending)
}

/** The rows inserted before are written (or their conflict thrown). */
function settleRows(ctx: BatchContext): void {
  asConflict(() => ctx.rows.settle())
}

/** The sales' columns in order (SALE_COLUMNS each), and the players' totals and newest sales counted. */
function rowValues(pending: PendingSale[]): unknown[] {
  const values: unknown[] = new Array(pending.length * SALE_COLUMNS)
  let o = 0
  for (const p of pending) {
    const t = p.who!
    values[o++] = p.key
    values[o++] = p.saleId
    values[o++] = t.id
    values[o++] = p.soldAt
    values[o++] = p.stake
    values[o++] = p.prize
    values[o++] = p.tier
    values[o++] = p.play
    values[o++] = p.events
    if (p.soldAt > t.headSoldAt || (p.soldAt === t.headSoldAt && p.key > t.head!)) {
      t.head = p.key
      t.headSoldAt = p.soldAt
    }
    t.units++
    t.staked += p.stake
    t.won += p.prize
    if (p.soldAt < t.first) t.first = p.soldAt
    if (p.soldAt > t.lastAt) t.lastAt = p.soldAt
  }
  return values
}

/** The rows' insert, or its settling: a sale id or a unit already taken is a conflict that says so. */
function asConflict(insert: () => void): void {
  try {
    insert()
  } catch (e) {
    const broken = brokenConstraint(e)
    if (broken?.kind === 'unique' && broken.columns.includes('sales.sale_id')) {
      throw new AppError('CONFLICT', 'a sale id of the batch is already recorded for another unit', { field: 'saleId' })
    }
    if (broken?.kind === 'unique' || broken?.kind === 'primary-key') {
      throw new AppError(
        'CONFLICT',
        'a unit of the batch is already sold (another process sold at the same time): try again',
      )
    }
    throw e
  }
}

/** Each sale counted in its day's totals (per emission), and a prize past the claim threshold claimed. */
function countDays(ctx: BatchContext, b: Batch, pending: PendingSale[]): void {
  const thresholds = ctx.claims.batch()
  let lastDay = NaN
  let lastEmission = NaN
  let lastEntry: DayTotals | null = null
  for (const p of pending) {
    const d = Math.floor(p.soldAt / DAY_MS)
    if (d !== lastDay || p.emission !== lastEmission || lastEntry === null) {
      const day = new Date(d * DAY_MS).toISOString().slice(0, 10)
      const k = `${day}/${p.emission}`
      lastEntry = b.days.get(k) ?? { day, emission: p.emission, units: 0, sales: 0, prizes: 0, prizesCents: 0 }
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
function writeTotals(ctx: BatchContext, b: Batch, states: Iterable<EmissionState>): void {
  settleRows(ctx)
  addToPlayers(ctx, b)
  ctx.rows.addToDays([...b.days.values()])
  for (const st of states) addToBlocks(ctx, st)
}

/**
 * Each player's totals and newest sale, updated in the players' rows or, for a bulk job, appended
 * (rows.ts); on a team ledger the rows are locked first (heads.ts). Each of the batch's players must exist: this is the check that the sales'
 * foreign key makes when it is on, made once per player instead of once per sale (see transact).
 * In order of id, so that the updates walk the table's pages in order.
 */
function addToPlayers(ctx: BatchContext, b: Batch): void {
  const players = byId(b.players)
  ctx.locks(players, ctx.append)
  let written: number
  try {
    // appended in a savepoint: a player not in the ledger fails the COPY, and is then looked up
    written = ctx.append
      ? (ctx.inTransaction(() => ctx.rows.appendToPlayers(players)) as number)
      : ctx.rows.addToPlayers(players)
  } catch (e) {
    if (brokenConstraint(e)?.kind !== 'foreign-key') throw e
    written = -1
  }
  if (written !== players.length) {
    const gone = players.find((t) => !ctx.db.prepare('SELECT 1 FROM players WHERE id = ?').get(t.id))
    throw new AppError(
      'INTERNAL',
      `player ${gone?.name ?? '?'} (id ${gone?.id ?? '?'}) is not in the ledger: nothing of the batch is written`,
    )
  }
  ctx.rows.playersChecked(false)
  ctx.batchPlayers = players
}

/** The emission's blocks sold from: their sold counts and tier counters, and the sold-out alerts. */
function addToBlocks(ctx: BatchContext, st: EmissionState): void {
  const touched: number[] = []
  for (const bl of st.blocks) {
    if (bl.sold === bl.startSold) continue
    touched.push(bl.block)
    // guarded by the count read at the start: a writer in between makes this fail instead of selling twice
    if (ctx.setSold.run(bl.sold, st.row.emission, bl.block, bl.startSold).changes !== 1) {
      throw new AppError(
        'CONFLICT',
        `block ${st.row.emission}/${bl.block} was sold from elsewhere at the same time: try again`,
      )
    }
    bl.tierDelta.forEach((n, tier) => {
      if (n > 0) ctx.addTier.run(n, st.row.emission, bl.block, tier)
    })
  }
  if (touched.length) ctx.alerts.checkSoldOut(st.row.emission, touched)
}

function write(ctx: BatchContext, pending: PendingSale[], states: Map<number, EmissionState>): void {
  const b = beginBatch(ctx)
  writeRows(ctx, b, pending)
  writeTotals(ctx, b, states.values())
}

/**
 * A batch's writes in one IMMEDIATE transaction (the batch reads the sold counts that it then
 * writes). The sales' foreign key (player_id → players) is checked by the batch itself, once
 * per player: every sale's player id is one of the batch's players, and write() refuses the
 * batch unless each of them updates exactly one players row. Checked by SQLite, it cost about
 * 1.4 µs per sale, a sixth of a simulated sale. The pragma can change only outside a
 * transaction: the importer, whose transaction holds the batch, turns it off around it.
 */
function transact<T>(ctx: BatchContext, work: () => T): T {
  const nested = (ctx.nested = ctx.db.inTransaction)
  ctx.batchPlayers = []
  let r: T
  try {
    r = nested
      ? (ctx.inTransaction.immediate(work) as T)
      : withoutKeyChecks(ctx.db, () => ctx.inTransaction.immediate(work) as T)
  } finally {
    // inside an outer transaction that may yet roll back, what the batch wrote is not known to last
    if (nested) forgetCache(ctx.cache)
  }
  // committed: the cache stays trusted (its players' ids are in it)
  if (!nested && ctx.batchPlayers.length) learnChanges(ctx.cache, ownChanges(ctx.db))
  ctx.batchPlayers = []
  return r
}
