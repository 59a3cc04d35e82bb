/**
 * An emission as a batch of sales sees it: its blocks' cursors (the next unit of each, the sold
 * count read at the start, the tiers sold), the refusals that every way of selling makes, and
 * the taking of the next unit. Shared by the general batch (check.ts) and the checked
 * columns (checked.ts); the writes are batch.ts's.
 */
import { AppError } from '../../contract/errors'
import { formatSerial } from '../../../game-core/serial'
import { LOSING } from '../../../game-core/block'
import type { GameDefinition } from '../../../game-core/rules'
import type { Catalog, EmissionRow } from '../catalog'
import type { Db } from '../../ledger/db'
import { lockCursors } from '../../ledger/row-locks'
import { describeStatus } from '../emissions'
import type { PlayerEntry } from './player-cache'

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

export const MAX_TEXT = 64
export const SERIAL_SHAPE = /^\d{4}-\d{3}-\d{7}-\d$/

/**
 * The emission's cursors as stored. Inside a transaction of `db` (a batch's), its blocks are
 * locked first (row-locks.ts lockCursors): on a team ledger another workstation selling from the
 * emission waits for this batch, then reads the cursors where it left them.
 */
export function loadEmission(catalog: Catalog, emission: number, db?: Db): EmissionState {
  if (db?.inTransaction) lockCursors(db, emission)
  const row = catalog.emission(emission)
  const def = catalog.definition(emission)
  const blocks = catalog.blocks(emission).map((b) => ({
    block: b.block,
    status: b.status,
    sold: b.units_sold,
    startSold: b.units_sold,
    tiers: null,
    tierDelta: new Array<number>(def.tiers.length).fill(0),
  }))
  let at = blocks.findIndex((b) => b.sold < def.blockSize)
  if (at < 0) at = blocks.length
  return { row, def, blocks, at, startsAtMs: row.starts_on ? Date.parse(`${row.starts_on}T00:00:00Z`) : null }
}

/** The emission, refused unless it is open for sale. */
export function openState(catalog: Catalog, emission: number, db?: Db): EmissionState {
  const st = loadEmission(catalog, emission, db)
  if (st.row.status !== 'open') throw notOpen(st)
  return st
}

export const serialOf = (st: EmissionState, block: number, unit: number) =>
  formatSerial({ emission: st.row.emission, block, unit }, st.def.blockSize)

/**
 * The tier of the block's `unit` (null: losing), the block's tiers derived on first use, counted
 * in the block's tier counters. A number rather than an object: no allocation per sale.
 */
export function takeTier(catalog: Catalog, st: EmissionState, cur: BlockCursor, unit: number): number | null {
  if (!cur.tiers) cur.tiers = catalog.deriver(st.row.emission, cur.block).tiers
  const code = cur.tiers[unit]
  const tier = code === LOSING ? null : code
  if (tier !== null) cur.tierDelta[tier]++
  return tier
}

export const prizeOf = (def: GameDefinition, tier: number | null) => (tier === null ? 0 : def.tiers[tier].amountCents)

/** The cursor past the unit just taken, onto the next block when this one is full. */
export function advance(st: EmissionState, cur: BlockCursor): void {
  if (++cur.sold >= st.def.blockSize) st.at++
}

// the refusals that both the general batch and the checked columns make
export const notOpen = (st: EmissionState) =>
  new AppError(
    'ILLEGAL_STATE',
    `emission ${st.row.emission} is not open for sale: it is ${describeStatus(st.row.status)}`,
  )
export const soldOut = (st: EmissionState) =>
  new AppError(
    'SOLD_OUT',
    `emission ${st.row.emission} is sold out: all ${st.blocks.length * st.def.blockSize} units are sold`,
  )
export const cannotSell = (st: EmissionState, cur: BlockCursor) =>
  new AppError(
    'ILLEGAL_STATE',
    `block ${st.row.emission}/${cur.block} cannot sell: ${cur.status === 'failed' ? 'it failed its verification' : `it is ${cur.status}`}`,
  )
export const tooEarly = (st: EmissionState, soldAt: number) =>
  `emission ${st.row.emission} starts selling on ${st.row.starts_on}, after ${new Date(soldAt).toISOString()}`
export const beforeCreation = (st: EmissionState, soldAt: number) =>
  `emission ${st.row.emission} was created on ${st.row.created_at} and has no first sale day: a sale at ${new Date(soldAt).toISOString()} is before it`
