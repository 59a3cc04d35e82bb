/**
 * Where each cell of a unit sits in the ticket drawing (SVG user units). TicketGrid draws the cells
 * there and ScratchReplay draws drag paths through the same points, so both always line up.
 */
import type { Zone } from '../../../game-core/play'

export const VIEW_W = 600
export const VIEW_H = 552
export const COLS = 6
const PITCH_X = 100

export const WINNING_LABEL_Y = 26
export const YOURS_LABEL_Y = 176
const WINNING_Y = 92
const YOURS_Y0 = 240
const YOURS_PITCH_Y = 88

export const DIAMOND = { rx: 37, ry: 43 }
export const GEM = { w: 82, h: 72 }

export function cellCenter(zone: Zone, cell: number): { x: number; y: number } {
  if (zone === 'winning') return { x: PITCH_X / 2 + PITCH_X * cell, y: WINNING_Y }
  return { x: PITCH_X / 2 + PITCH_X * (cell % COLS), y: YOURS_Y0 + YOURS_PITCH_Y * Math.floor(cell / COLS) }
}

export function diamondPoints(cx: number, cy: number): string {
  const { rx, ry } = DIAMOND
  // A cut gem seen from above: a wide table on top, a point at the bottom.
  return [
    [cx - rx * 0.55, cy - ry * 0.75],
    [cx + rx * 0.55, cy - ry * 0.75],
    [cx + rx, cy - ry * 0.15],
    [cx, cy + ry],
    [cx - rx, cy - ry * 0.15],
  ]
    .map(([x, y]) => `${x},${y}`)
    .join(' ')
}

export function gemPoints(cx: number, cy: number): string {
  const w = GEM.w / 2
  const h = GEM.h / 2
  const c = 14
  return [
    [cx - w + c, cy - h],
    [cx + w - c, cy - h],
    [cx + w, cy - h + c],
    [cx + w, cy + h - c],
    [cx + w - c, cy + h],
    [cx - w + c, cy + h],
    [cx - w, cy + h - c],
    [cx - w, cy - h + c],
  ]
    .map(([x, y]) => `${x},${y}`)
    .join(' ')
}

/** How far below a cell's centre a drag is drawn: in the gap between the number and the amount. */
export const DRAG_DY = 11

export function dragPoint(zone: Zone, cell: number): { x: number; y: number } {
  const p = cellCenter(zone, cell)
  return { x: p.x, y: p.y + DRAG_DY }
}

/** SVG path through the cells a drag went over. */
export function dragPathD(cells: { zone: Zone; cell: number }[]): string {
  return cells
    .map((e, i) => {
      const p = dragPoint(e.zone, e.cell)
      return `${i === 0 ? 'M' : 'L'}${p.x} ${p.y}`
    })
    .join(' ')
}
