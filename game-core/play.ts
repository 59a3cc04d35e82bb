/**
 * The scratch-sequence model: how a player revealed a unit (regulation art. 4.1, 4.4).
 * A play is a mode, the reveal events in order, and whether it completed.
 */
import type { GameDefinition } from './rules'

export type PlayMode = 'play' | 'auto'
export type PlayStatus = 'complete' | 'interrupted'
export type Zone = 'winning' | 'yours'
export type Gesture = 'click' | 'drag'

export interface RevealEvent {
  /** Milliseconds since the start of the play. */
  t: number
  zone: Zone
  cell: number
  gesture: Gesture
}

export interface Play {
  mode: PlayMode
  status: PlayStatus
  events: RevealEvent[]
}

type Zones = Pick<GameDefinition, 'winningCells' | 'yoursCells'>

/**
 * Every way the play breaks the rules, as sentences; empty when it is valid.
 * - the winning zone is revealed before "your numbers": no "yours" cell before all winning cells
 * - each cell at most once, cells in range, t whole, ≥ 0 and never decreasing
 * - a complete play reveals every cell; an interrupted one does not
 * - `auto` reveals are made by the game, so they carry no drag
 */
export function validatePlay(play: Play, zones: Zones): string[] {
  const errors: string[] = []
  if (play === null || typeof play !== 'object') return ['a play must be an object with mode, status and events']
  if (play.mode !== 'play' && play.mode !== 'auto') errors.push(`mode must be "play" or "auto", got ${JSON.stringify(play.mode)}`)
  if (play.status !== 'complete' && play.status !== 'interrupted') errors.push(`status must be "complete" or "interrupted", got ${JSON.stringify(play.status)}`)
  if (!Array.isArray(play.events)) return [...errors, 'events must be a list']

  const seen = { winning: new Set<number>(), yours: new Set<number>() }
  let lastT = 0
  play.events.forEach((e, i) => {
    const at = `event ${i + 1}`
    if (e === null || typeof e !== 'object') { errors.push(`${at}: not an event`); return }
    if (!Number.isInteger(e.t) || e.t < 0) errors.push(`${at}: t must be a whole number of milliseconds ≥ 0, got ${JSON.stringify(e.t)}`)
    else {
      if (e.t < lastT) errors.push(`${at}: t goes back in time (${e.t} ms after ${lastT} ms)`)
      lastT = Math.max(lastT, e.t)
    }
    if (e.gesture !== 'click' && e.gesture !== 'drag') errors.push(`${at}: gesture must be "click" or "drag", got ${JSON.stringify(e.gesture)}`)
    else if (play.mode === 'auto' && e.gesture === 'drag') errors.push(`${at}: an auto play is revealed by the game, not by a drag`)
    if (e.zone !== 'winning' && e.zone !== 'yours') { errors.push(`${at}: zone must be "winning" or "yours", got ${JSON.stringify(e.zone)}`); return }
    const size = e.zone === 'winning' ? zones.winningCells : zones.yoursCells
    if (!Number.isInteger(e.cell) || e.cell < 0 || e.cell >= size) { errors.push(`${at}: cell ${JSON.stringify(e.cell)} is outside the ${e.zone} zone (0–${size - 1})`); return }
    if (seen[e.zone].has(e.cell)) errors.push(`${at}: ${e.zone} cell ${e.cell} is revealed twice`)
    if (e.zone === 'yours' && seen.winning.size < zones.winningCells) {
      errors.push(`${at}: "your numbers" revealed before the winning numbers (${seen.winning.size} of ${zones.winningCells} shown)`)
    }
    seen[e.zone].add(e.cell)
  })
  const all = seen.winning.size === zones.winningCells && seen.yours.size === zones.yoursCells
  const count = seen.winning.size + seen.yours.size
  const cells = zones.winningCells + zones.yoursCells
  if (play.status === 'complete' && !all) errors.push(`a complete play reveals all ${cells} cells, this one reveals ${count}`)
  if (play.status === 'interrupted' && all) errors.push(`the play reveals all ${cells} cells, so it is complete, not interrupted`)
  return errors
}

export interface Visibility {
  winning: boolean[]
  yours: boolean[]
  /** Events shown at this time (those with t ≤ the time asked). */
  eventsShown: number
}

/** What the player could see at `t` ms into the play. */
export function visibleAt(play: Play, zones: Zones, t: number): Visibility {
  const v: Visibility = { winning: new Array(zones.winningCells).fill(false), yours: new Array(zones.yoursCells).fill(false), eventsShown: 0 }
  for (const e of play.events) {
    if (e.t > t) break
    v[e.zone][e.cell] = true
    v.eventsShown++
  }
  return v
}

/** Visibility after the first `n` events (stepping through a replay). */
export function visibleAfterEvents(play: Play, zones: Zones, n: number): Visibility {
  const k = Math.min(Math.max(0, n), play.events.length)
  const last = k === 0 ? -1 : play.events[k - 1].t
  return visibleAt({ ...play, events: play.events.slice(0, k) }, zones, last)
}

export function playDuration(play: Play): number {
  return play.events.length === 0 ? 0 : play.events[play.events.length - 1].t
}

/**
 * Consecutive drag events, as paths to draw over the grid. A drag starts with a click and goes
 * on with drag events ("cliquer une fois puis glisser"), so a click ends the previous path.
 */
export function dragPaths(play: Play): RevealEvent[][] {
  const paths: RevealEvent[][] = []
  let current: RevealEvent[] | null = null
  for (const e of play.events) {
    if (e.gesture === 'drag') {
      if (!current) { current = []; paths.push(current) }
      current.push(e)
    } else current = null
  }
  return paths
}
