/**
 * The sales' types: what the service takes and answers, and what its parts share
 * (README.md beside this file).
 */
import type { Statement } from 'better-sqlite3'
import type { Play } from '../../../game-core/play'
import type { Db } from '../../ledger/db'
import type { Catalog } from '../catalog'
import type { Clock } from '../common'
import type { SalesBatches } from './batch'

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
