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

/** One way a play breaks the rules: a stable code, the values it names, and the sentence in English. */
export interface PlayProblem {
  code: PlayProblemCode
  params: Record<string, string | number>
  text: string
}

export const PLAY_PROBLEM_CODES = [
  'PLAY_NOT_OBJECT',
  'PLAY_MODE',
  'PLAY_STATUS',
  'PLAY_EVENTS_NOT_LIST',
  'EVENT_NOT_OBJECT',
  'EVENT_T',
  'EVENT_T_BACK',
  'EVENT_GESTURE',
  'EVENT_AUTO_DRAG',
  'EVENT_ZONE',
  'EVENT_CELL',
  'EVENT_TWICE',
  'EVENT_YOURS_FIRST',
  'PLAY_INCOMPLETE',
  'PLAY_NOT_INTERRUPTED',
] as const
export type PlayProblemCode = (typeof PLAY_PROBLEM_CODES)[number]

/**
 * Every way the play breaks the rules, as sentences; empty when it is valid.
 * - the winning zone is revealed before "your numbers": no "yours" cell before all winning cells
 * - each cell at most once, cells in range, t whole, ≥ 0 and never decreasing
 * - a complete play reveals every cell; an interrupted one does not
 * - `auto` reveals are made by the game, so they carry no drag
 */
export function validatePlay(play: Play, zones: Zones): string[] {
  return playProblems(play, zones).map((p) => p.text)
}

/** The same, each with its code and values (for a screen to say it in the user's language). */
export function playProblems(play: Play, zones: Zones): PlayProblem[] {
  const errors: PlayProblem[] = []
  const bad = (code: PlayProblemCode, params: PlayProblem['params'], text: string) =>
    errors.push({ code, params, text })
  if (play === null || typeof play !== 'object')
    return [{ code: 'PLAY_NOT_OBJECT', params: {}, text: 'a play must be an object with mode, status and events' }]
  if (play.mode !== 'play' && play.mode !== 'auto')
    bad(
      'PLAY_MODE',
      { mode: JSON.stringify(play.mode) },
      `mode must be "play" or "auto", got ${JSON.stringify(play.mode)}`,
    )
  if (play.status !== 'complete' && play.status !== 'interrupted')
    bad(
      'PLAY_STATUS',
      { status: JSON.stringify(play.status) },
      `status must be "complete" or "interrupted", got ${JSON.stringify(play.status)}`,
    )
  if (!Array.isArray(play.events)) {
    bad('PLAY_EVENTS_NOT_LIST', {}, 'events must be a list')
    return errors
  }

  const seen = { winning: new Set<number>(), yours: new Set<number>() }
  let lastT = 0
  play.events.forEach((e, i) => {
    const event = i + 1
    const at = `event ${event}`
    if (e === null || typeof e !== 'object') {
      bad('EVENT_NOT_OBJECT', { event }, `${at}: not an event`)
      return
    }
    if (!Number.isInteger(e.t) || e.t < 0)
      bad(
        'EVENT_T',
        { event, t: JSON.stringify(e.t) },
        `${at}: t must be a whole number of milliseconds ≥ 0, got ${JSON.stringify(e.t)}`,
      )
    else {
      if (e.t < lastT)
        bad('EVENT_T_BACK', { event, t: e.t, last: lastT }, `${at}: t goes back in time (${e.t} ms after ${lastT} ms)`)
      lastT = Math.max(lastT, e.t)
    }
    if (e.gesture !== 'click' && e.gesture !== 'drag')
      bad(
        'EVENT_GESTURE',
        { event, gesture: JSON.stringify(e.gesture) },
        `${at}: gesture must be "click" or "drag", got ${JSON.stringify(e.gesture)}`,
      )
    else if (play.mode === 'auto' && e.gesture === 'drag')
      bad('EVENT_AUTO_DRAG', { event }, `${at}: an auto play is revealed by the game, not by a drag`)
    if (e.zone !== 'winning' && e.zone !== 'yours') {
      bad(
        'EVENT_ZONE',
        { event, zone: JSON.stringify(e.zone) },
        `${at}: zone must be "winning" or "yours", got ${JSON.stringify(e.zone)}`,
      )
      return
    }
    const size = e.zone === 'winning' ? zones.winningCells : zones.yoursCells
    if (!Number.isInteger(e.cell) || e.cell < 0 || e.cell >= size) {
      bad(
        'EVENT_CELL',
        { event, cell: JSON.stringify(e.cell), zone: e.zone, max: size - 1 },
        `${at}: cell ${JSON.stringify(e.cell)} is outside the ${e.zone} zone (0–${size - 1})`,
      )
      return
    }
    if (seen[e.zone].has(e.cell))
      bad('EVENT_TWICE', { event, zone: e.zone, cell: e.cell }, `${at}: ${e.zone} cell ${e.cell} is revealed twice`)
    if (e.zone === 'yours' && seen.winning.size < zones.winningCells) {
      bad(
        'EVENT_YOURS_FIRST',
        { event, shown: seen.winning.size, of: zones.winningCells },
        `${at}: "your numbers" revealed before the winning numbers (${seen.winning.size} of ${zones.winningCells} shown)`,
      )
    }
    seen[e.zone].add(e.cell)
  })
  const all = seen.winning.size === zones.winningCells && seen.yours.size === zones.yoursCells
  const count = seen.winning.size + seen.yours.size
  const cells = zones.winningCells + zones.yoursCells
  if (play.status === 'complete' && !all)
    bad('PLAY_INCOMPLETE', { cells, count }, `a complete play reveals all ${cells} cells, this one reveals ${count}`)
  if (play.status === 'interrupted' && all)
    bad('PLAY_NOT_INTERRUPTED', { cells }, `the play reveals all ${cells} cells, so it is complete, not interrupted`)
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
  const v: Visibility = {
    winning: new Array(zones.winningCells).fill(false),
    yours: new Array(zones.yoursCells).fill(false),
    eventsShown: 0,
  }
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
      if (!current) {
        current = []
        paths.push(current)
      }
      current.push(e)
    } else current = null
  }
  return paths
}
