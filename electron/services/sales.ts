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
import { unitKey } from '../ledger/migrations'
import { isValidPlayFast, NO_PLAY, playCode, packEvents } from '../ledger/play-codec'
import type { AlertsService } from './alerts'
import type { Catalog, EmissionRow } from './catalog'
import { describePlayerIdProblem, playerIdProblem } from '../contract/player-id'
import { type Clock, SALE_CLOCK_SKEW_MS, toMillis } from './common'
import { describeStatus } from './emissions'
import { createSalesBatch, type PlayerEntry } from './sales-batch'

export { withoutKeyChecks } from './sales-batch'

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

export interface BlockCursor {
  block: number
  status: string
  sold: number
  startSold: number
  tiers: Uint8Array | null
  tierDelta: number[]
}

export interface EmissionState {
  row: EmissionRow
  def: GameDefinition
  startsAtMs: number | null
  blocks: BlockCursor[]
  /** index in `blocks` of the block being sold */
  at: number
}

export interface PendingSale {
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
const SERIAL_SHAPE = /^\d{4}-\d{3}-\d{7}-\d$/


// the refusals that both the general batch and the checked columns make
const notOpen = (st: EmissionState) => new AppError('ILLEGAL_STATE', `emission ${st.row.emission} is not open for sale: it is ${describeStatus(st.row.status)}`)
const soldOut = (st: EmissionState) => new AppError('SOLD_OUT', `emission ${st.row.emission} is sold out: all ${st.blocks.length * st.def.blockSize} units are sold`)
const cannotSell = (st: EmissionState, cur: BlockCursor) =>
  new AppError('ILLEGAL_STATE', `block ${st.row.emission}/${cur.block} cannot sell: ${cur.status === 'failed' ? 'it failed its verification' : `it is ${cur.status}`}`)
const tooEarly = (st: EmissionState, soldAt: number) => `emission ${st.row.emission} starts selling on ${st.row.starts_on}, after ${new Date(soldAt).toISOString()}`
const beforeCreation = (st: EmissionState, soldAt: number) =>
  `emission ${st.row.emission} was created on ${st.row.created_at} and has no first sale day: a sale at ${new Date(soldAt).toISOString()} is before it`

class RolledBack extends Error {
  constructor(readonly result: BatchResult) {
    super('the batch was rolled back')
  }
}

export function createSalesService({ db, clock, catalog, alerts }: { db: Db; clock: Clock; catalog: Catalog; alerts: AlertsService }): SalesService {
  const batches = createSalesBatch({ db, catalog, alerts })
  const { beginBatch, writeRows, writeTotals, write, transact } = batches

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
      batches.nestedStream()
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
