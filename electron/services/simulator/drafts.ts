/**
 * The simulator's drafts (service.ts sells them): seeded draws, the players and their habits, the
 * sale times over a daily rhythm, the plays, and the generator that makes them, packed as the
 * ledger stores them, one at a time or as a batch of flat typed arrays for a worker thread.
 * Deterministic from the options: same seed, same drafts.
 */
import { AppError, because } from '../../contract/errors'
import type { Play, RevealEvent } from '../../../game-core/play'
import type { GameDefinition } from '../../../game-core/rules'
import { packEvents, playCode, unpackEvents } from '../../ledger/play-codec'

// ---------------------------------------------------------------------------------------------
// Seeded draws

export type Rng = () => number

/** sfc32 seeded through splitmix32: fast, 128-bit state, good enough for demo data (never outcomes). */
export function seededRng(seed: number): Rng {
  let s = seed >>> 0
  const split = () => {
    s = (s + 0x9e3779b9) | 0
    let z = s
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b)
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35)
    return (z ^ (z >>> 16)) >>> 0
  }
  let a = split()
  let b = split()
  let c = split()
  let d = split()
  const next = () => {
    const t = (((a + b) | 0) + d) | 0
    d = (d + 1) | 0
    a = b ^ (b >>> 9)
    b = (c + (c << 3)) | 0
    c = (c << 21) | (c >>> 11)
    c = (c + t) | 0
    return (t >>> 0) / 4294967296
  }
  for (let i = 0; i < 12; i++) next()
  return next
}

const between = (rng: Rng, lo: number, hi: number) => lo + Math.floor(rng() * (hi - lo + 1))

function hash32(x: number): number {
  let h = Math.imul(x ^ 0x5bd1e995, 0x27d4eb2d)
  h ^= h >>> 15
  h = Math.imul(h, 0x85ebca6b)
  h ^= h >>> 13
  return h >>> 0
}

// ---------------------------------------------------------------------------------------------
// Players

/** Pareto-like activity: density ∝ rank^-ACTIVITY_EXPONENT over ranks 1…P. */
export const ACTIVITY_EXPONENT = 0.7
export const PLAYER_ID_SPACE = 10_000_000
// a bijection of 0…10^7-1 (the multiplier is prime to 10^7), so ranks do not show in the names
const NAME_MUL = 7_654_321
const NAME_ADD = 1_234_567

export function playerName(rank: number): string {
  const n = (rank * NAME_MUL + NAME_ADD) % PLAYER_ID_SPACE
  return `P${String(n).padStart(7, '0')}`
}

export type SimMode = 'click' | 'drag' | 'auto'

/** A player's habit, fixed by the account (not by the seed): 55 % click, 20 % drag, 25 % auto. */
export function habitOf(rank: number): SimMode {
  const h = hash32(rank) % 100
  return h < 55 ? 'click' : h < 75 ? 'drag' : 'auto'
}

// ---------------------------------------------------------------------------------------------
// Time: a daily rhythm over the window

/** Relative sales per hour of the day, French time (taken as UTC+1 all year). */
export const HOURLY_WEIGHTS = [
  0.25, 0.15, 0.08, 0.05, 0.05, 0.08, 0.2, 0.45, 0.7, 0.8, 0.9, 1.1, 1.35, 1.3, 1.0, 0.9, 0.95, 1.1, 1.35, 1.6, 1.7,
  1.5, 1.0, 0.55,
]
/** Relative sales per day of the week, Sunday first. */
export const WEEKDAY_WEIGHTS = [1.15, 0.9, 0.9, 0.95, 1.0, 1.2, 1.35]
const LOCAL_OFFSET_MS = 3_600_000
export const HOUR = 3_600_000
export const DAY = 24 * HOUR

/**
 * Sorted sale times over [fromMs, toMs): `count` order statistics of the window's density,
 * drawn one at a time in increasing order (no array of all times is held).
 */
class SaleClock {
  private readonly cum: Float64Array
  private readonly starts: Float64Array
  private readonly ends: Float64Array
  private seg = 0
  private m = 1
  private left: number

  constructor(rng: Rng, fromMs: number, toMs: number, count: number) {
    const firstHour = Math.floor(fromMs / HOUR) * HOUR
    const n = Math.max(1, Math.ceil((toMs - firstHour) / HOUR))
    this.cum = new Float64Array(n + 1)
    this.starts = new Float64Array(n)
    this.ends = new Float64Array(n)
    const dayFactor = new Map<number, number>()
    for (let i = 0; i < n; i++) {
      const h0 = firstHour + i * HOUR
      const s = Math.max(h0, fromMs)
      const e = Math.min(h0 + HOUR, toMs)
      const local = h0 + LOCAL_OFFSET_MS
      const dayNo = Math.floor(local / DAY)
      let f = dayFactor.get(dayNo)
      if (f === undefined) {
        f = WEEKDAY_WEIGHTS[new Date(dayNo * DAY).getUTCDay()] * (0.85 + 0.3 * rng())
        dayFactor.set(dayNo, f)
      }
      const w = e > s ? HOURLY_WEIGHTS[Math.floor((local % DAY) / HOUR)] * f * ((e - s) / HOUR) : 0
      this.starts[i] = s
      this.ends[i] = Math.max(s, e)
      this.cum[i + 1] = this.cum[i] + w
    }
    this.left = count
  }

  /** The next time, in ms; `rng` gives the uniform. */
  next(rng: Rng): number {
    // ascending order statistics of `left` uniforms: the minimum is 1 − V^(1/left)
    if (this.left <= 0) throw new RangeError('the sale clock has no time left to give')
    this.m *= Math.pow(1 - rng(), 1 / this.left)
    this.left--
    const u = 1 - this.m
    const total = this.cum[this.cum.length - 1]
    const target = u * total
    const cum = this.cum
    const last = this.starts.length - 1
    while (this.seg < last && cum[this.seg + 1] <= target) this.seg++
    const w = cum[this.seg + 1] - cum[this.seg]
    const f = w > 0 ? Math.min(1, Math.max(0, (target - cum[this.seg]) / w)) : 0
    const s = this.starts[this.seg]
    return Math.floor(s + f * (this.ends[this.seg] - s))
  }
}

// ---------------------------------------------------------------------------------------------
// Plays

type Zones = Pick<GameDefinition, 'winningCells' | 'yoursCells'>

export const INTERRUPTED_SHARE = 0.02
const KEEP_HABIT = 0.8
const AUTO_CADENCE_MS = 120
const AUTO_ZONE_PAUSE_MS = 480
/** Cells per row in "your numbers" when dragging across them. */
const DRAG_ROW = 6

/**
 * Writes one play's reveal into reused event objects (a sale makes no garbage but its packed
 * events): `events` is the view of the first `n` of them.
 */
class RevealScratch {
  readonly events: RevealEvent[] = []
  private readonly pool: RevealEvent[]
  private readonly order: number[]

  constructor(private readonly z: Zones) {
    const n = z.winningCells + z.yoursCells
    this.pool = Array.from({ length: n }, () => ({ t: 0, zone: 'winning', cell: 0, gesture: 'click' }))
    this.order = Array.from({ length: Math.max(z.winningCells, z.yoursCells) }, (_, i) => i)
  }

  private add(t: number, zone: RevealEvent['zone'], cell: number, gesture: RevealEvent['gesture']): void {
    const e = this.pool[this.events.length]
    e.t = t
    e.zone = zone
    e.cell = cell
    e.gesture = gesture
    this.events.push(e)
  }

  /** The cells 0…n-1, in order or shuffled. */
  private cells(rng: Rng, n: number, shuffled: boolean): number[] {
    const a = this.order
    for (let i = 0; i < n; i++) a[i] = i
    if (shuffled) {
      for (let i = n - 1; i > 0; i--) {
        const j = Math.floor(rng() * (i + 1))
        const t = a[i]
        a[i] = a[j]
        a[j] = t
      }
    }
    return a
  }

  /** Clicks 150–900 ms apart, mostly in reading order; a longer pause between the zones. */
  click(rng: Rng): void {
    this.events.length = 0
    let t = between(rng, 400, 1500)
    for (let zi = 0; zi < 2; zi++) {
      const zone = zi === 0 ? 'winning' : 'yours'
      const n = zi === 0 ? this.z.winningCells : this.z.yoursCells
      const cells = this.cells(rng, n, rng() < 0.3)
      for (let i = 0; i < n; i++) {
        this.add(t, zone, cells[i], 'click')
        t += i === n - 1 ? between(rng, 400, 1500) : between(rng, 150, 900)
      }
    }
  }

  /** The winning numbers in one stroke, then "your numbers" row by row, back and forth, 30–90 ms a cell. */
  drag(rng: Rng): void {
    this.events.length = 0
    let t = between(rng, 300, 1200)
    for (let c = 0; c < this.z.winningCells; c++) {
      this.add(t, 'winning', c, 'drag')
      t += between(rng, 30, 90)
    }
    t += between(rng, 300, 1000)
    const rows = Math.ceil(this.z.yoursCells / DRAG_ROW)
    for (let r = 0; r < rows; r++) {
      const first = r * DRAG_ROW
      const width = Math.min(DRAG_ROW, this.z.yoursCells - first)
      for (let k = 0; k < width; k++) {
        this.add(t, 'yours', first + (r % 2 === 0 ? k : width - 1 - k), 'drag')
        t += between(rng, 30, 90)
      }
      t += between(rng, 150, 500)
    }
  }

  /** Revealed by the game at a fixed cadence. */
  auto(): void {
    this.events.length = 0
    let t = AUTO_CADENCE_MS
    for (let c = 0; c < this.z.winningCells; c++, t += AUTO_CADENCE_MS) this.add(t, 'winning', c, 'click')
    t += AUTO_ZONE_PAUSE_MS - AUTO_CADENCE_MS
    for (let c = 0; c < this.z.yoursCells; c++, t += AUTO_CADENCE_MS) this.add(t, 'yours', c, 'click')
  }
}

// ---------------------------------------------------------------------------------------------
// The generator

/** A simulated sale with its play packed as the ledger stores it (play-codec.ts). */
export interface PackedDraft {
  /** The player's rank in the activity law (0 = the most active); `player` is its account name. */
  rank: number
  player: string
  soldAt: number
  style: SimMode
  mode: Play['mode']
  status: Play['status']
  events: Buffer
}

export interface SaleDraft {
  player: string
  soldAt: number
  play: Play
  /** How the play was made (a `play` mode play is by click or by drag). */
  style: SimMode
}

export interface GeneratorOptions {
  seed: number
  players: number
  count: number
  fromMs: number
  toMs: number
  zones: Zones
}

export interface SalesGenerator {
  nextPacked(): PackedDraft
  /** The same, with the play as events (tests, feeds). */
  next(): SaleDraft
}

/** `count` sales in time order, deterministic from the options. */
/** Refuses options that no generator can follow (before a simulation records anything). */
export function checkGeneratorOptions(o: GeneratorOptions): void {
  if (!Number.isInteger(o.players) || o.players < 1 || o.players > PLAYER_ID_SPACE)
    throw new AppError('BAD_ARGUMENTS', `players must be from 1 to ${PLAYER_ID_SPACE}, not ${o.players}`, {
      field: 'players',
      ...because('SIM_PLAYERS_RANGE', { max: PLAYER_ID_SPACE }),
    })
  if (!(o.toMs > o.fromMs)) throw new AppError('BAD_ARGUMENTS', 'the simulated period must end after it starts')
}

export function createSalesGenerator(o: GeneratorOptions): SalesGenerator {
  checkGeneratorOptions(o)
  const rng = seededRng(o.seed)
  const clock = new SaleClock(rng, o.fromMs, o.toMs, o.count)
  const a1 = 1 - ACTIVITY_EXPONENT
  const span = Math.pow(o.players + 1, a1) - 1
  const modes: SimMode[] = ['click', 'drag', 'auto']
  const scratch = new RevealScratch(o.zones)
  scratch.auto()
  const autoComplete = packEvents(scratch.events)
  const names = new Map<number, string>()
  const gen: SalesGenerator = {
    nextPacked() {
      const x = Math.pow(1 + rng() * span, 1 / a1)
      const rank = Math.min(o.players - 1, Math.max(0, Math.floor(x) - 1))
      let player = names.get(rank)
      if (player === undefined) names.set(rank, (player = playerName(rank)))
      const style = rng() < KEEP_HABIT ? habitOf(rank) : modes[Math.floor(rng() * 3)]
      const interrupted = rng() < INTERRUPTED_SHARE
      let events: Buffer
      if (style === 'auto' && !interrupted) events = autoComplete
      else {
        if (style === 'click') scratch.click(rng)
        else if (style === 'drag') scratch.drag(rng)
        else scratch.auto()
        // an interrupted play stops after a random number of cells, possibly none
        if (interrupted) scratch.events.length = Math.floor(rng() * scratch.events.length)
        events = packEvents(scratch.events)
      }
      return {
        rank,
        player,
        soldAt: clock.next(rng),
        style,
        mode: style === 'auto' ? 'auto' : 'play',
        status: interrupted ? 'interrupted' : 'complete',
        events,
      }
    },
    next() {
      const d = gen.nextPacked()
      return {
        player: d.player,
        soldAt: d.soldAt,
        style: d.style,
        play: { mode: d.mode, status: d.status, events: unpackEvents(d.events) },
      }
    },
  }
  return gen
}

/**
 * `count` drafts in flat typed arrays, so that a batch crosses from a worker thread with its
 * buffers transferred, not copied: sale i's packed events are `events[ends[i-1] … ends[i])`.
 */
export interface DraftBatch {
  count: number
  ranks: Int32Array
  soldAt: Float64Array
  codes: Uint8Array
  ends: Uint32Array
  events: Uint8Array
}

export function packDrafts(gen: SalesGenerator, count: number): DraftBatch {
  const ranks = new Int32Array(count)
  const soldAt = new Float64Array(count)
  const codes = new Uint8Array(count)
  const ends = new Uint32Array(count)
  let events = new Uint8Array(count * 64)
  let o = 0
  for (let i = 0; i < count; i++) {
    const d = gen.nextPacked()
    ranks[i] = d.rank
    soldAt[i] = d.soldAt
    codes[i] = playCode(d)
    if (o + d.events.length > events.length) {
      const bigger = new Uint8Array(Math.max(events.length * 2, o + d.events.length))
      bigger.set(events.subarray(0, o))
      events = bigger
    }
    events.set(d.events, o)
    o += d.events.length
    ends[i] = o
  }
  return { count, ranks, soldAt, codes, ends, events: events.slice(0, o) }
}

/**
 * Where the simulator's drafts come from. `request(n)` asks for the next n drafts; answers come
 * in the order asked, so the simulator can ask for the next batch before it sells this one (a
 * worker thread then makes it meanwhile, on another core). `close()` drops what is still asked.
 */
export interface DraftSource {
  request(count: number): Promise<DraftBatch>
  close(): void
}
export type DraftSourceFactory = (o: GeneratorOptions) => DraftSource

/** Drafts made on this thread, when asked. */
export const inProcessDrafts: DraftSourceFactory = (o) => {
  const gen = createSalesGenerator(o)
  return { request: async (count) => packDrafts(gen, count), close: () => {} }
}
