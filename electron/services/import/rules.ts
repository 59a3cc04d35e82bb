/**
 * The rules both import paths apply to a line, each in one place: the streamed import
 * (stream.ts) asks them of every line it takes as it comes and gives up (Irregular) at
 * the first that fails; the careful import (careful.ts, line-checks.ts,
 * order.ts) asks the same and says each failure as a reason (problems.ts). Each
 * answers with a plain value (a code, a position, a bound), no object, so that the streamed
 * import's loop stays as fast as it was.
 *
 * A line's own shape (its fields, its play, its serial's check digit) is read by one reader for
 * both paths: feed-line.ts (the careful path's usual lines, and the streamed path's reader thread,
 * feed-ring.ts). What the paths store and record is also one: sales.sellChecked /
 * sales.checkedStream write the sales, recordImport (history.ts) the batch row and the
 * audit entry, from the outcome made here (importOutcome).
 */
import type { GameDefinition } from '../../../game-core/rules'
import { formatSerial, type UnitId } from '../../../game-core/serial'
import type { BlockRow, Catalog, EmissionRow } from '../catalog'
import { SALE_CLOCK_SKEW_MS, saleFloorMs } from '../common'
import type { ImportOutcome, KeySpan } from './context'

/** A sale id with the shape of a serial (the ledger stores such a sale under its unit, no id of its own). */
export const SERIAL_SHAPE = /^\d{4}-\d{3}-\d{7}-\d$/

/** An emission as an import reads it once. `floor`: the earliest sale time (the first sale day, else its creation). */
export type EmissionInfo = { row: EmissionRow; def: GameDefinition; blocks: BlockRow[]; floor: number }

/** The emission, its definition and its blocks, as one import reads them (throws NOT_FOUND for no such emission). */
export function readEmission(catalog: Catalog, emission: number): EmissionInfo {
  const row = catalog.emission(emission)
  return { row, def: catalog.definition(emission), blocks: catalog.blocks(emission), floor: saleFloorMs(row) }
}

/** A unit's position in its emission, as block × size + unit: units sell in this order (SPEC §4). */
export function positionOf(size: number, block: number, unit: number): number {
  return (block - 1) * size + unit
}

/** The position of the emission's next unit to sell (its blocks' count × size when it is sold out). */
export function nextPosition(e: EmissionInfo): number {
  const size = e.def.blockSize
  const firstOpen = e.blocks.find((b) => b.units_sold < size)
  return firstOpen ? positionOf(size, firstOpen.block, firstOpen.units_sold) : e.blocks.length * size
}

/** Whether a position is past the emission's last unit. */
export function soldOutAt(e: EmissionInfo, position: number): boolean {
  return position >= e.blocks.length * e.def.blockSize
}

/** The unit at a position, as a serial. */
export function serialAt(emission: number, position: number, size: number): string {
  return formatSerial({ emission, block: Math.floor(position / size) + 1, unit: position % size }, size)
}

/** Why the emission has no such unit, or null: a unit beyond its block's size, or a block it does not have. */
export function unitFault(e: EmissionInfo, block: number, unit: number): 'UNIT_BEYOND' | 'BLOCK_UNKNOWN' | null {
  if (unit >= e.def.blockSize) return 'UNIT_BEYOND'
  return block < 1 || block > e.blocks.length ? 'BLOCK_UNKNOWN' : null
}

/** Why the block's units cannot sell now, or null: its emission is not open, or the block is not verified. */
export function sellingFault(e: EmissionInfo, block: BlockRow): 'NOT_OPEN' | 'BLOCK_NOT_SELLING' | null {
  if (e.row.status !== 'open') return 'NOT_OPEN'
  return block.status !== 'verified' ? 'BLOCK_NOT_SELLING' : null
}

/** Whether a line's stake is the emission's unit price. */
export function stakeFits(e: EmissionInfo, stakeCents: number): boolean {
  return stakeCents === e.def.unitPriceCents
}

/** The latest sale time an import takes when its clock reads `nowMs`: platform clocks drift a little. */
export function latestSaleMs(nowMs: number): number {
  return nowMs + SALE_CLOCK_SKEW_MS
}

/** Whether a sale time is before the emission sells (its first sale day, else its creation). */
export function soldTooEarly(e: EmissionInfo, soldAt: number): boolean {
  return soldAt < e.floor
}

/** Whether a line's unit is sold already in the ledger (its block's cursor is past it). */
export function soldAlready(block: BlockRow, unit: UnitId): boolean {
  return unit.unit < block.units_sold
}

/** The sale id the ledger stores for a line's: none (null) for one shaped like its serial, stored as the unit's. */
export function storedSaleId(saleId: string): string | null {
  return SERIAL_SHAPE.test(saleId) ? null : saleId
}

/** What an import wrote, as both paths report it and recordImport records it. */
export function importOutcome(
  lines: number,
  imported: number,
  alreadyImported: number,
  serials: { first: string | null; last: string | null },
  sha256: string | null,
  spans: KeySpan[],
): ImportOutcome {
  const counts = { lines, imported, alreadyImported }
  return { counts, sha256, firstSerial: serials.first, lastSerial: serials.last, spans }
}
