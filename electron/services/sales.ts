/**
 * Selling units. A sale takes the emission's next unit (units in index order within a block,
 * blocks in order), and writes in one transaction: the sale with its packed play, the block's
 * sold count and tier counters, the player's totals, the day's totals, and any top-prize alert.
 * `sellBatch` does the same for many sales in one transaction, all or none: the simulator and
 * the sales-feed importer use it.
 *
 * The modules: sales-state.ts (an emission's block cursors, the refusals every way of selling
 * makes), sales-check.ts (sellBatch's checks of outside input, sale by sale), sales-checked.ts
 * (sellChecked and checkedStream, for sales checked by their maker), sales-batch.ts (the writes
 * of a batch, in its transaction) over sales-players.ts (the batch's players and their cache)
 * and sales-rows.ts (the rows, per engine). This factory only builds the context they share.
 */
import type { Play } from '../../game-core/play'
import type { Statement } from 'better-sqlite3'
import type { Db } from '../ledger/db'
import type { AlertsService } from './alerts'
import type { Catalog } from './catalog'
import type { Clock } from './common'
import { createSalesBatch, type SalesBatches } from './sales-batch'
import { runBatch } from './sales-check'
import { checkedStream, sellChecked } from './sales-checked'
import { loadEmission, serialOf } from './sales-state'

export { withoutKeyChecks } from './sales-batch'
export type { BlockCursor, EmissionState, PendingSale } from './sales-state'

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
  /**
   * For a bulk job (a simulation): until turned off, each batch appends its players' totals
   * rather than rewriting their rows, on a team ledger; the job then folds them
   * (foldPlayerTotals). The totals read meanwhile are right (the view player_totals adds them
   * up). SQLite writes the rows in place whatever this says. docs/ledger.md.
   */
  appendPlayerTotals(on: boolean): void
  /** The players' appended totals folded into their rows, in one transaction; how many players. */
  foldPlayerTotals(): number
}

/** What the sales modules share: built once per service, its statements prepared once. */
export interface SalesContext {
  db: Db
  clock: Clock
  catalog: Catalog
  batches: SalesBatches
  saleById: Statement
  saleByKey: Statement
}

class RolledBack extends Error {
  constructor(readonly result: BatchResult) {
    super('the batch was rolled back')
  }
}

export function createSalesService({ db, clock, catalog, alerts }: { db: Db; clock: Clock; catalog: Catalog; alerts: AlertsService }): SalesService {
  const ctx: SalesContext = {
    db, clock, catalog,
    batches: createSalesBatch({ db, catalog, alerts }),
    saleById: db.prepare(`SELECT s.unit_key, p.name AS player, s.sold_at, s.stake_cents, s.play, s.events
                          FROM sales s JOIN players p ON p.id = s.player_id WHERE s.sale_id = ?`),
    saleByKey: db.prepare(`SELECT s.unit_key, s.sale_id, p.name AS player, s.sold_at, s.stake_cents, s.play, s.events
                           FROM sales s JOIN players p ON p.id = s.player_id WHERE s.unit_key = ?`),
  }
  const service: SalesService = {
    sellNext: (emission, input) => (service.sellBatch([{ ...input, emission }]) as Extract<BatchResult, { ok: true }>).sold[0],
    sellBatch: (inputs, opts = {}) => sellBatch(ctx, inputs, opts),
    sellChecked: (emission, sales, onRun) => sellChecked(ctx, emission, sales, onRun),
    checkedStream: (emission) => checkedStream(ctx, emission),
    nextUnit: (emission) => nextUnit(ctx, emission),
    appendPlayerTotals: (on) => ctx.batches.appendTotals(on),
    foldPlayerTotals: () => ctx.batches.foldTotals(),
  }
  return service
}

/** The general batch in its own transaction: rolled back, and its errors returned, when any sale is bad. */
function sellBatch(ctx: SalesContext, inputs: readonly SaleInput[], opts: BatchOptions): BatchResult {
  try {
    return ctx.batches.transact(() => {
      const r = runBatch(ctx, inputs, opts)
      if (!r.ok) throw new RolledBack(r)
      return r
    })
  } catch (e) {
    if (e instanceof RolledBack) return e.result
    throw e
  }
}

function nextUnit(ctx: SalesContext, emission: number): { block: number; unit: number; serial: string } | null {
  const st = loadEmission(ctx.catalog, emission)
  if (st.at >= st.blocks.length) return null
  const b = st.blocks[st.at]
  return { block: b.block, unit: b.sold, serial: serialOf(st, b.block, b.sold) }
}
