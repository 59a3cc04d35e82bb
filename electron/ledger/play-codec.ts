/**
 * Plays are stored packed to keep the ledger under 250 bytes per sale: the mode and status in one
 * small integer, the reveal events in a BLOB of one byte per event (gesture, zone, cell) followed
 * by the milliseconds since the previous event as an unsigned LEB128 varint (usually 1–2 bytes).
 */
import type { Play, PlayMode, PlayStatus, RevealEvent } from '../../game-core/play'

const MODES: readonly PlayMode[] = ['play', 'auto']
const STATUSES: readonly PlayStatus[] = ['complete', 'interrupted']

/** In place of a play code (sales' CheckedSales.codes, the feed ring): a sale that came without a play. */
export const NO_PLAY = 255

export function playCode(play: Pick<Play, 'mode' | 'status'>): number {
  return MODES.indexOf(play.mode) * 2 + STATUSES.indexOf(play.status)
}

export function playModeOf(code: number): PlayMode {
  return MODES[code >> 1]
}

export function playStatusOf(code: number): PlayStatus {
  return STATUSES[code & 1]
}

/** Packs events already checked by validatePlay (cells < 64, t whole and never decreasing). */
export function packEvents(events: readonly RevealEvent[]): Buffer {
  const out = Buffer.allocUnsafe(events.length * 6)
  let o = 0
  let last = 0
  for (const e of events) {
    if (e.cell < 0 || e.cell > 63) throw new RangeError(`cell ${e.cell} cannot be packed`)
    out[o++] = (e.gesture === 'drag' ? 0x80 : 0) | (e.zone === 'yours' ? 0x40 : 0) | e.cell
    let d = e.t - last
    if (!Number.isInteger(d) || d < 0 || d > 0xffffffff)
      throw new RangeError(`event time ${e.t} cannot be packed after ${last}`)
    last = e.t
    while (d >= 0x80) {
      out[o++] = (d & 0x7f) | 0x80
      d = Math.floor(d / 128)
    }
    out[o++] = d
  }
  return out.subarray(0, o)
}

export function unpackEvents(buf: Uint8Array): RevealEvent[] {
  const events: RevealEvent[] = []
  let o = 0
  let t = 0
  while (o < buf.length) {
    const b = buf[o++]
    let d = 0
    let scale = 1
    for (;;) {
      if (o >= buf.length) throw new RangeError('the packed play is truncated')
      const v = buf[o++]
      d += (v & 0x7f) * scale
      if (v < 0x80) break
      scale *= 128
    }
    t += d
    events.push({ t, zone: b & 0x40 ? 'yours' : 'winning', cell: b & 0x3f, gesture: b & 0x80 ? 'drag' : 'click' })
  }
  return events
}

export function packPlay(play: Play): { code: number; events: Buffer } {
  return { code: playCode(play), events: packEvents(play.events) }
}

export function unpackPlay(code: number | null, events: Uint8Array | null): Play | null {
  if (code === null || events === null) return null
  return { mode: playModeOf(code), status: playStatusOf(code), events: unpackEvents(events) }
}

/**
 * The rules of validatePlay, checked in one pass without allocating: true when the play is valid.
 * The bulk sale path calls it for every sale and asks validatePlay for the sentences only when it
 * says no. Zones wider than 30 cells are left to validatePlay.
 */
export function isValidPlayFast(play: Play, W: number, Y: number): boolean {
  if (W > 30 || Y > 30 || play === null || typeof play !== 'object') return false
  const auto = play.mode === 'auto'
  if (!auto && play.mode !== 'play') return false
  if (play.status !== 'complete' && play.status !== 'interrupted') return false
  const events = play.events
  if (!Array.isArray(events)) return false
  const allW = (1 << W) - 1
  const allY = (1 << Y) - 1
  let seenW = 0
  let seenY = 0
  let last = 0
  for (let i = 0; i < events.length; i++) {
    const e = events[i]
    if (e === null || typeof e !== 'object') return false
    const t = e.t
    if (!Number.isInteger(t) || t < last) return false
    last = t
    if (e.gesture !== 'click' && (e.gesture !== 'drag' || auto)) return false
    const c = e.cell
    if (!Number.isInteger(c) || c < 0) return false
    if (e.zone === 'winning') {
      if (c >= W || seenW & (1 << c)) return false
      seenW |= 1 << c
    } else if (e.zone === 'yours') {
      if (c >= Y || seenY & (1 << c) || seenW !== allW) return false
      seenY |= 1 << c
    } else return false
  }
  const all = seenW === allW && seenY === allY
  return play.status === 'complete' ? all : !all
}
