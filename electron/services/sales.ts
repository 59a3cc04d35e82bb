/**
 * Selling units. A sale takes the emission's next unit (units in index order within a block,
 * blocks in order), and writes in one transaction: the sale with its packed play, the block's
 * sold count and tier counters, the player's totals, the day's totals, and any top-prize alert.
 * `sellBatch` does the same for many sales in one transaction, all or none: the simulator and
 * the sales-feed importer use it.
 */
import { AppError } from '../contract/errors'
import type { Play } from '../../game-core/play'
import { validatePlay } from '../../game-core/play'
import { formatSerial, parseSerial, SerialError } from '../../game-core/serial'
import { LOSING } from '../../game-core/block'
import type { GameDefinition } from '../../game-core/rules'
import type { Db } from '../ledger/db'
import { jsonValues } from '../ledger/dialect'
import { unitKey } from '../ledger/migrations'
import { isValidPlayFast, NO_PLAY, playCode, packEvents } from '../ledger/play-codec'
import type { AlertsService } from './alerts'
import type { Catalog, EmissionRow } from './catalog'
import { describePlayerIdProblem, playerIdProblem } from '../contract/player-id'
import { type Clock, SALE_CLOCK_SKEW_MS, toMillis } from './common'
import { describeStatus } from './emissions'
import { createRelink, soldBefore } from './sale-chain'
import { createClaimWriter } from './claim-writer'
import { createSalesRows, SALE_COLUMNS } from './sales-rows'

export interface SaleInput {
  /** Sell the next unit of this emission… */
  emission?: number
  /** …or this unit, which must be its emission's next unit (a sales feed names the unit it sold). */
  serial?: string
  player: string
  /** ISO 8601 date-time with a zone, or milliseconds since the epoch; now when left out. */
  soldAt?: string | number
  /** Defaults to the serial, which is unique (and is then stored as NULL: no index entry). */
  saleId?: string
  /** Defaults to the unit price; any other stake is refused. */
  stakeCents?: number
  /** The player's reveal; null when the platform sent none. */
  play?: Play | null
  /**
   * Instead of `play`: a play already packed by play-codec's packEvents from events that pass
   * validatePlay: the simulator's (valid by construction, its tests check each) and the
   * importer's (it runs validatePlay on every line first). Never straight from outside input.
   * It saves making and checking 30 event objects per sale.
   */
  packedPlay?: { code: number; events: Buffer }
}

export interface SaleRecord {
  saleId: string
  serial: string
  emission: number
  block: number
  unit: number
  player: string
  soldAt: string
  stakeCents: number
  prizeCents: number
  /** Index in the prize table, or null for a losing unit. */
  tier: number | null
}

export interface BatchOptions {
  /** A sale id already in the ledger with the same content is skipped (re-import); with other content it is an error. */
  idempotent?: boolean
  /** List every bad sale instead of stopping at the first (the importer). Nothing is written if any is bad. */
  collectErrors?: boolean
  /** Return a SaleRecord per sale (default true); the simulator only needs the count. */
  records?: boolean
}

export type BatchResult =
  | { ok: true; count: number; sold: SaleRecord[]; alreadyRecorded: number }
  | { ok: false; errors: { index: number; code: string; reason: string }[] }

/** Units sold together, in order from `first` (across blocks when a block fills up). */
export interface UnitRun {
  emission: number
  first: { block: number; unit: number }
  count: number
}

/** Sales already checked by their maker, as columns: see sellChecked. */
export interface CheckedSales {
  count: number
  players: readonly string[]
  soldAt: Float64Array
  /** play-codec's playCode, or NO_PLAY */
  codes: Uint8Array
  ends: Uint32Array
  events: Uint8Array
  /** Sale i's id, null for its serial; all the serials when left out. */
  saleIds?: readonly (string | null)[]
}

export interface CheckedStream {
  /** Takes the sales; it keeps nothing of `sales` once it returns (the caller may reuse its buffers). */
  add(sales: CheckedSales): void
  /** Writes what a batch writes once (players' totals, days, blocks) and returns the number sold. */
  finish(): number
}

export { NO_PLAY } from '../ledger/play-codec'

export interface SalesService {
  sellNext(emission: number, input: Omit<SaleInput, 'emission' | 'serial'>): SaleRecord
  /** Many sales in one transaction. Without collectErrors the first bad sale throws its AppError. */
  sellBatch(inputs: readonly SaleInput[], opts?: BatchOptions): BatchResult
  /**
   * The emission's next `count` units sold to `players[i]` at `soldAt[i]`, with sale i's play
   * packed (play-codec) in `events[ends[i-1] … ends[i])` under `codes[i]`, at the unit price:
   * the same writes as sellBatch in one transaction, without an object per sale. The checks that
   * sellBatch makes per sale on outside input are the caller's: the simulator's drafts are valid
   * by construction (its tests check them), the importer checks each line. Checked here: the
   * emission open, each block verified, no sale time before the emission's first day, no sale id
   * shaped like a serial (a sale whose id is its serial passes null). Returns the number sold.
   */
  sellChecked(emission: number, sales: CheckedSales, onRun?: (run: UnitRun) => void): number
  /**
   * sellChecked given a piece at a time, inside a transaction that the caller holds (and rolls
   * back on any error): the importer writes a feed's lines as it checks them.
   */
  checkedStream(emission: number): CheckedStream
  /** The next unit to sell, or null when the emission is sold out (any status). */
  nextUnit(emission: number): { block: number; unit: number; serial: string } | null
}

interface BlockCursor {
  block: number
  status: string
  sold: number
  startSold: number
  tiers: Uint8Array | null
  tierDelta: number[]
}

interface EmissionState {
  row: EmissionRow
  def: GameDefinition
  startsAtMs: number | null
  blocks: BlockCursor[]
  /** index in `blocks` of the block being sold */
  at: number
}

interface PendingSale {
  /** the player's entry, set when the batch is written */
  who: PlayerEntry | null
  key: number
  /** null when the sale id is the serial */
  saleId: string | null
  player: string
  soldAt: number
  stake: number
  prize: number
  tier: number | null
  play: number | null
  events: Uint8Array | null
  emission: number
}

interface StoredSale {
  unit_key: number
  player: string
  sold_at: number
  stake_cents: number
  play: number | null
  events: Buffer | null
}

const MAX_TEXT = 64
/** Names looked up in one query (a JSON array parameter), for the players the cache does not hold. */
const LOOKUP_CHUNK = 5000
/** Past this many players the cache starts over (about 100 bytes each). */
const MAX_CACHED_PLAYERS = 1_000_000
const DAY_MS = 86_400_000
const SERIAL_SHAPE = /^\d{4}-\d{3}-\d{7}-\d$/

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
interface PlayerEntry {
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

// the refusals that both the general batch and the checked columns make
const notOpen = (st: EmissionState) => new AppError('ILLEGAL_STATE', `emission ${st.row.emission} is not open for sale: it is ${describeStatus(st.row.status)}`)
const soldOut = (st: EmissionState) => new AppError('SOLD_OUT', `emission ${st.row.emission} is sold out: all ${st.blocks.length * st.def.blockSize} units are sold`)
const cannotSell = (st: EmissionState, cur: BlockCursor) =>
  new AppError('ILLEGAL_STATE', `block ${st.row.emission}/${cur.block} cannot sell: ${cur.status === 'failed' ? 'it failed its verification' : `it is ${cur.status}`}`)
const tooEarly = (st: EmissionState, soldAt: number) => `emission ${st.row.emission} starts selling on ${st.row.starts_on}, after ${new Date(soldAt).toISOString()}`
const beforeCreation = (st: EmissionState, soldAt: number) =>
  `emission ${st.row.emission} was created on ${st.row.created_at} and has no first sale day: a sale at ${new Date(soldAt).toISOString()} is before it`

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

class RolledBack extends Error {
  constructor(readonly result: BatchResult) {
    super('the batch was rolled back')
  }
}

export function createSalesService({ db, clock, catalog, alerts }: { db: Db; clock: Clock; catalog: Catalog; alerts: AlertsService }): SalesService {
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
  const saleById = db.prepare(`SELECT s.unit_key, p.name AS player, s.sold_at, s.stake_cents, s.play, s.events
                               FROM sales s JOIN players p ON p.id = s.player_id WHERE s.sale_id = ?`)
  const saleByKey = db.prepare(`SELECT s.unit_key, s.sale_id, p.name AS player, s.sold_at, s.stake_cents, s.play, s.events
                                FROM sales s JOIN players p ON p.id = s.player_id WHERE s.unit_key = ?`)

  function loadEmission(emission: number): EmissionState {
    const row = catalog.emission(emission)
    const def = catalog.definition(emission)
    const blocks = catalog.blocks(emission).map((b) => ({
      block: b.block, status: b.status, sold: b.units_sold, startSold: b.units_sold, tiers: null, tierDelta: new Array<number>(def.tiers.length).fill(0),
    }))
    let at = blocks.findIndex((b) => b.sold < def.blockSize)
    if (at < 0) at = blocks.length
    return { row, def, blocks, at, startsAtMs: row.starts_on ? Date.parse(`${row.starts_on}T00:00:00Z`) : null }
  }

  const serialOf = (st: EmissionState, block: number, unit: number) => formatSerial({ emission: st.row.emission, block, unit }, st.def.blockSize)

  /** The recorded sale with this id: by its serial (stored as NULL) or by the id index. */
  function findSale(saleId: string): StoredSale | undefined {
    if (SERIAL_SHAPE.test(saleId)) {
      try {
        const u = parseSerial(saleId)
        const row = saleByKey.get(unitKey(u.emission, u.block, u.unit)) as (StoredSale & { sale_id: string | null }) | undefined
        return row && row.sale_id === null ? row : undefined
      } catch {
        return undefined
      }
    }
    return saleById.get(saleId) as StoredSale | undefined
  }

  function samePlay(stored: StoredSale, play: Play | null): boolean {
    if (play === null) return stored.play === null
    if (stored.play === null || stored.events === null) return false
    try {
      return stored.play === playCode(play) && Buffer.compare(stored.events, packEvents(play.events)) === 0
    } catch {
      return false
    }
  }

  function run(inputs: readonly SaleInput[], opts: BatchOptions): BatchResult {
    const wantRecords = opts.records !== false
    const states = new Map<number, EmissionState>()
    const errors: { index: number; code: string; reason: string }[] = []
    const pending: PendingSale[] = []
    const records: SaleRecord[] = []
    const batchIds = new Map<string, number>()
    let alreadyRecorded = 0
    /** The current sale's faults (one function for the batch: none is made per sale). */
    let problems: AppError[] | null = null
    const bad = (code: AppError['code'], message: string, field?: string) => (problems ??= []).push(new AppError(code, message, { field }))
    /** The latest sale time taken: the clock, and the skew allowed between clocks. */
    const latest = clock().getTime() + SALE_CLOCK_SKEW_MS

    for (let index = 0; index < inputs.length; index++) {
      const input = inputs[index]
      problems = null
      try {
        // which emission and, for a feed, which unit
        let named: { emission: number; block: number; unit: number } | null = null
        let emission: number
        if (input.serial !== undefined) {
          try {
            named = parseSerial(input.serial)
          } catch (e) {
            if (e instanceof SerialError) throw new AppError('INVALID_SERIAL', `serial ${JSON.stringify(input.serial)}: ${e.message}`, { field: 'serial' })
            throw e
          }
          emission = named.emission
          if (input.emission !== undefined && input.emission !== emission) throw new AppError('BAD_ARGUMENTS', `serial ${input.serial} belongs to emission ${emission}, not ${input.emission}`, { field: 'serial' })
        } else if (input.emission !== undefined) {
          emission = input.emission
        } else {
          throw new AppError('BAD_ARGUMENTS', 'a sale names its emission or its serial', { field: 'emission' })
        }
        let st = states.get(emission)
        if (!st) states.set(emission, (st = loadEmission(emission)))
        const def = st.def

        // the same sale recorded before: skip it when it is the same, refuse it when it differs
        const saleId = input.saleId
        if (saleId !== undefined) {
          if (typeof saleId !== 'string' || saleId.trim() !== saleId || saleId === '' || saleId.length > MAX_TEXT) {
            throw new AppError('BAD_ARGUMENTS', `saleId must be a text of 1 to ${MAX_TEXT} characters without surrounding spaces`, { field: 'saleId' })
          }
          const earlier = batchIds.get(saleId)
          if (earlier !== undefined) throw new AppError('CONFLICT', `sale ${saleId} appears twice in the batch (also at ${earlier + 1})`, { field: 'saleId' })
          if (opts.idempotent) {
            const prev = findSale(saleId)
            if (prev) {
              const same =
                named !== null && prev.unit_key === unitKey(named.emission, named.block, named.unit) &&
                prev.player === input.player && input.soldAt !== undefined && prev.sold_at === toMillis(input.soldAt) &&
                prev.stake_cents === (input.stakeCents ?? def.unitPriceCents) && samePlay(prev, input.play ?? null)
              if (!same) throw new AppError('CONFLICT', `sale ${saleId} is already recorded with other content`, { field: 'saleId' })
              alreadyRecorded++
              batchIds.set(saleId, index)
              continue
            }
          }
        }

        // the emission must be open and the unit the next one
        if (st.row.status !== 'open') throw notOpen(st)
        if (st.at >= st.blocks.length) throw soldOut(st)
        const cur = st.blocks[st.at]
        const unit = cur.sold
        if (named && (named.block !== cur.block || named.unit !== unit)) {
          if (named.block > st.blocks.length) throw new AppError('NOT_FOUND', `serial ${input.serial}: emission ${emission} has no block ${named.block} (it has ${st.blocks.length})`, { field: 'serial' })
          if (named.unit >= def.blockSize) throw new AppError('INVALID_SERIAL', `serial ${input.serial}: unit ${named.unit} is beyond the block's ${def.blockSize} units`, { field: 'serial' })
          const key = unitKey(named.emission, named.block, named.unit)
          const inBatch = pending.find((p) => p.key === key)
          const stored = inBatch ? null : (saleByKey.get(key) as { sale_id: string | null } | undefined)
          if (inBatch || stored) {
            const by = inBatch ? (inBatch.saleId ?? input.serial) : (stored!.sale_id ?? input.serial)
            throw new AppError('CONFLICT', `unit ${input.serial} is already sold (sale ${by})`, { field: 'serial' })
          }
          throw new AppError('ILLEGAL_STATE', `unit ${input.serial} is not the next unit to sell: units sell in order, and the next one is ${serialOf(st, cur.block, unit)}`, { field: 'serial' })
        }
        if (cur.status !== 'verified') {
          throw cannotSell(st, cur)
        }

        // the sale itself
        const stake = input.stakeCents ?? def.unitPriceCents
        if (stake !== def.unitPriceCents) bad('BAD_ARGUMENTS', `the stake must be the unit price, ${def.unitPriceCents} cents, not ${stake}`, 'stakeCents')
        const player = input.player
        if (typeof player !== 'string' || player === '' || player.length > MAX_TEXT || player.trim() !== player) {
          bad('BAD_ARGUMENTS', `player must be an account id of 1 to ${MAX_TEXT} characters without surrounding spaces`, 'player')
        } else if (playerIdProblem(player)) bad('BAD_ARGUMENTS', `player: ${describePlayerIdProblem(playerIdProblem(player)!)}`, 'player')
        const soldAt = input.soldAt === undefined ? clock().getTime() : toMillis(input.soldAt)
        if (Number.isNaN(soldAt)) bad('BAD_ARGUMENTS', `soldAt ${JSON.stringify(input.soldAt)} is not an ISO 8601 date-time with a zone, or names a day or a time that does not exist`, 'soldAt')
        else if (st.startsAtMs !== null && soldAt < st.startsAtMs) bad('ILLEGAL_STATE', tooEarly(st, soldAt), 'soldAt')
        else if (st.startsAtMs === null && soldAt < Date.parse(st.row.created_at)) bad('ILLEGAL_STATE', beforeCreation(st, soldAt), 'soldAt')
        else if (soldAt > latest) bad('BAD_ARGUMENTS', `a sale at ${new Date(soldAt).toISOString()} is in the future: the clock says ${new Date(latest - SALE_CLOCK_SKEW_MS).toISOString()}, and clocks may differ by up to ${SALE_CLOCK_SKEW_MS / 60_000} minutes`, 'soldAt')
        let play: number | null = null
        let events: Buffer | null = null
        if (input.packedPlay) {
          play = input.packedPlay.code
          events = input.packedPlay.events
        } else if (input.play) {
          if (isValidPlayFast(input.play, def.winningCells, def.yoursCells) || validatePlay(input.play, def).length === 0) {
            play = playCode(input.play)
            events = packEvents(input.play.events)
          } else {
            bad('BAD_ARGUMENTS', `the play breaks the rules: ${validatePlay(input.play, def).join('; ')}`, 'play')
          }
        }
        let storedId: string | null = null
        if (saleId !== undefined && SERIAL_SHAPE.test(saleId)) {
          if (saleId !== serialOf(st, cur.block, unit)) bad('BAD_ARGUMENTS', `sale id ${saleId} has the shape of a serial, so it must be the unit's own serial`, 'saleId')
        } else if (saleId !== undefined) storedId = saleId

        // the unit is taken even when the sale is bad, so the sales after it are judged in order
        cur.sold++
        if (cur.sold >= def.blockSize) st.at++
        if (problems) throw (problems as AppError[])[0]
        if (saleId !== undefined) batchIds.set(saleId, index)

        if (!cur.tiers) cur.tiers = catalog.deriver(emission, cur.block).tiers
        const code = cur.tiers[unit]
        const tier = code === LOSING ? null : code
        const prize = tier === null ? 0 : def.tiers[tier].amountCents
        if (tier !== null) cur.tierDelta[tier]++
        const key = unitKey(emission, cur.block, unit)
        pending.push({ who: null, key, saleId: storedId, player, soldAt, stake, prize, tier, play, events, emission })
        if (wantRecords) {
          const serial = serialOf(st, cur.block, unit)
          records.push({ saleId: storedId ?? serial, serial, emission, block: cur.block, unit, player, soldAt: new Date(soldAt).toISOString(), stakeCents: stake, prizeCents: prize, tier })
        }
      } catch (e) {
        if (!(e instanceof AppError) || !opts.collectErrors) throw e
        errors.push({ index, code: e.code, reason: e.message })
        for (const p of (problems as AppError[] | null)?.slice(1) ?? []) errors.push({ index, code: p.code, reason: p.message })
      }
    }
    if (errors.length) return { ok: false, errors }
    write(pending, states)
    return { ok: true, count: pending.length, sold: records, alreadyRecorded }
  }

  /** The sales of `d`, checked as sellChecked checks them, as the writes take them. */
  function pendingOf(st: EmissionState, d: CheckedSales): PendingSale[] {
    const emission = st.row.emission
    const def = st.def
    const pending: PendingSale[] = new Array(d.count)
    const stake = def.unitPriceCents
    let from = 0
    for (let i = 0; i < d.count; i++) {
      if (st.at >= st.blocks.length) throw soldOut(st)
      const cur = st.blocks[st.at]
      if (cur.status !== 'verified') throw cannotSell(st, cur)
      const soldAt = d.soldAt[i]
      if (st.startsAtMs !== null && soldAt < st.startsAtMs) throw new AppError('ILLEGAL_STATE', tooEarly(st, soldAt))
      if (!cur.tiers) cur.tiers = catalog.deriver(emission, cur.block).tiers
      const unit = cur.sold
      const outcome = cur.tiers[unit]
      const tier = outcome === LOSING ? null : outcome
      const prize = tier === null ? 0 : def.tiers[tier].amountCents
      if (tier !== null) cur.tierDelta[tier]++
      const saleId = d.saleIds ? d.saleIds[i] : null
      if (saleId !== null && SERIAL_SHAPE.test(saleId)) throw new AppError('BAD_ARGUMENTS', `sale id ${saleId} has the shape of a serial, so it must be stored as the unit's own`, { field: 'saleId' })
      const to = d.ends[i]
      const code = d.codes[i]
      pending[i] = { who: null, key: unitKey(emission, cur.block, unit), saleId, player: d.players[i], soldAt, stake, prize, tier, play: code === NO_PLAY ? null : code, events: code === NO_PLAY ? null : d.events.subarray(from, to), emission }
      from = to
      if (++cur.sold >= def.blockSize) st.at++
    }
    return pending
  }

  function openState(emission: number): EmissionState {
    const st = loadEmission(emission)
    if (st.row.status !== 'open') throw notOpen(st)
    return st
  }

  /**
   * sellChecked's writes, given a piece at a time inside the caller's transaction: the importer
   * streams a feed's lines as it checks them. Each piece's rows are inserted before add returns;
   * finish() writes what a batch writes once (each player's totals, the days, the blocks' counts).
   */
  function checkedStream(emission: number): CheckedStream {
    const st = openState(emission)
    const batch = beginBatch()
    let count = 0
    return {
      add(d) {
        writeRows(batch, pendingOf(st, d))
        count += d.count
      },
      finish() {
        writeTotals(batch, [st])
        return count
      },
    }
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

  const service: SalesService = {
    sellNext(emission, input) {
      const r = service.sellBatch([{ ...input, emission }])
      return (r as Extract<BatchResult, { ok: true }>).sold[0]
    },
    sellBatch(inputs, opts = {}) {
      try {
        return transact(() => {
          const r = run(inputs, opts)
          if (!r.ok) throw new RolledBack(r)
          return r
        })
      } catch (e) {
        if (e instanceof RolledBack) return e.result
        throw e
      }
    },
    sellChecked(emission, sales, onRun) {
      const run = transact(() => {
        const st = openState(emission)
        const first = st.at < st.blocks.length ? { block: st.blocks[st.at].block, unit: st.blocks[st.at].sold } : null
        write(pendingOf(st, sales), new Map([[emission, st]]))
        return { emission, first: first!, count: sales.count }
      })
      // once committed: the units this call really sold (another writer may have sold the ones before or after)
      onRun?.(run)
      return run.count
    },
    checkedStream(emission) {
      if (!db.inTransaction) throw new Error('checkedStream writes inside the caller\'s transaction')
      nested = true
      return checkedStream(emission)
    },
    nextUnit(emission) {
      const st = loadEmission(emission)
      if (st.at >= st.blocks.length) return null
      const b = st.blocks[st.at]
      return { block: b.block, unit: b.sold, serial: serialOf(st, b.block, b.sold) }
    },
  }
  return service
}
