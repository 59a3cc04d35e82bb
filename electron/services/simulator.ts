/**
 * The sales simulator: realistic demo sales, sold through the sales service's batch path.
 *
 * - Players: a few heavy, many occasional. The player of a sale is drawn from a Pareto-like law
 *   over player ranks (density ∝ rank^-0.7), so the top accounts buy a lot and most buy little.
 * - Modes: each player has a habit (about 55 % click, 20 % drag, 25 % auto) kept 80 % of the time.
 *   Clicks come 150–900 ms apart, a drag crosses a cell every 30–90 ms, auto reveals at a fixed
 *   cadence; the winning numbers are always revealed first, then "your numbers" (validatePlay).
 * - About 2 % of plays are interrupted after a random number of cells (possibly none).
 * - Sale times are spread from where the emission's history ends to now, with a daily rhythm
 *   (quiet nights, lunch and evening peaks, busier weekends), non-decreasing in unit order.
 *
 * The draws come from a small seeded PRNG (sfc32): the simulator makes demo sales, never
 * outcomes, which come from the blocks' secrets. Same seed, same ledger state, same clock: same
 * sales. The work is cut into transactions of `batchSize` sales, and a cancel is seen between two
 * batches. Where the sales are written is the Seller's choice: on this thread with the event loop
 * let through between batches, or (the app) on a worker thread with its own connection.
 */
import { AppError, because } from '../contract/errors'
import type { AuditAction, JobInfo } from '../contract/types'
import type { Play, RevealEvent } from '../../game-core/play'
import type { GameDefinition } from '../../game-core/rules'
import type { Db } from '../ledger/db'
import { UNIT_KEY_EMISSION } from '../ledger/migrations'
import { formatSerial } from '../../game-core/serial'
import type { AuditService } from './audit'
import type { Catalog } from './catalog'
import type { Actor, Clock } from './common'
import { describeStatus } from './emissions'
import type { JobRegistry } from './jobs'
import { createLeases, emissionSubject, type Lease, type Leases } from './leases'
import type { SalesService, UnitRun } from './sales'
import { packEvents, playCode, unpackEvents } from '../ledger/play-codec'

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
const PLAYER_ID_SPACE = 10_000_000
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
  0.25, 0.15, 0.08, 0.05, 0.05, 0.08, 0.2, 0.45, 0.7, 0.8, 0.9, 1.1, 1.35, 1.3, 1.0, 0.9, 0.95, 1.1, 1.35, 1.6, 1.7, 1.5, 1.0, 0.55,
]
/** Relative sales per day of the week, Sunday first. */
export const WEEKDAY_WEIGHTS = [1.15, 0.9, 0.9, 0.95, 1.0, 1.2, 1.35]
const LOCAL_OFFSET_MS = 3_600_000
const HOUR = 3_600_000
const DAY = 24 * HOUR

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
  if (!Number.isInteger(o.players) || o.players < 1 || o.players > PLAYER_ID_SPACE) throw new AppError('BAD_ARGUMENTS', `players must be from 1 to ${PLAYER_ID_SPACE}, not ${o.players}`, { field: 'players', ...because('SIM_PLAYERS_RANGE', { max: PLAYER_ID_SPACE }) })
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
      return { rank, player, soldAt: clock.next(rng), style, mode: style === 'auto' ? 'auto' : 'play', status: interrupted ? 'interrupted' : 'complete', events }
    },
    next() {
      const d = gen.nextPacked()
      return { player: d.player, soldAt: d.soldAt, style: d.style, play: { mode: d.mode, status: d.status, events: unpackEvents(d.events) } }
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

/**
 * Sales per transaction on this thread: each batch rewrites the pages of most of its players, so
 * fewer, bigger batches cost less per sale, but one batch holds the event loop (about 0.15 s for
 * 20,000 with many players). The app's seller works on a worker thread, in bigger batches
 * (workers/simulate-seller.ts).
 */
export const DEFAULT_BATCH = 20_000
/** How far back the history of an emission with no sale date and no sale yet goes. */
export const HISTORY_DAYS = 30
/**
 * Between two batches: the event loop let through, and a short pause in which another process
 * waiting to write (a backup's log entry, an operator's command) can take the lock. SQLite's busy
 * handler retries every few to 100 ms; with no gap at all a long simulation would starve it.
 */
const yieldToLoop = () => new Promise<void>((resolve) => setTimeout(resolve, 2))

/** A simulation's selling, as handed to a Seller. */
export interface SellJob {
  emission: number
  sales: number
  /** Sales per transaction (the most, with batchMs); the seller's own size when left out. */
  batchSize?: number
  /**
   * When set, the batches start at a tenth of batchSize and are then sized from the speed of the
   * batches before so that a transaction lasts about this long, up to batchSize: on a slower
   * machine a big transaction would otherwise hold the ledger's write lock for longer than
   * others wait for it.
   */
  batchMs?: number
  gen: GeneratorOptions
}

export interface SellHooks {
  /** Checked between two batches: the batches sold before stay sold. */
  signal?: AbortSignal
  /** The sales sold so far, after each batch has committed, and the units that batch sold. */
  progress?: (sold: number, run: UnitRun) => void
}

/**
 * Where a simulation's sales are written. By default on this thread, through the app's sales
 * service, in transactions of DEFAULT_BATCH with the event loop let through between them. The
 * app sells on a worker thread with a connection of its own (workers/simulate-seller.ts), in bigger
 * transactions, which cost less per sale and leave this thread free. Resolves when all are
 * sold; rejects with an AppError (CANCELLED on cancel).
 */
export type Seller = (job: SellJob, hooks: SellHooks) => Promise<void>

/** Sells the drafts of `source` through `sales`, one transaction per batch; the next batch is drafted while this one sells. */
export async function sellDrafts(sales: SalesService, source: DraftSource, job: SellJob, hooks: SellHooks): Promise<void> {
  const batchSize = job.batchSize ?? DEFAULT_BATCH
  const names = new Map<number, string>()
  const players: string[] = []
  let size = job.batchMs ? Math.max(1, Math.round(batchSize / 10)) : batchSize
  let rate = 0
  const sizeAfter = (done: number) => Math.min(size, job.sales - done)
  let sold = 0
  let next: Promise<DraftBatch> | null = source.request(sizeAfter(0))
  try {
    while (sold < job.sales) {
      if (hooks.signal?.aborted) throw new AppError('CANCELLED', `the simulation was cancelled after ${sold} sales`, because('TASK_CANCELLED'))
      const d: DraftBatch = await next!
      next = sold + d.count < job.sales ? source.request(sizeAfter(sold + d.count)) : null
      players.length = d.count
      for (let i = 0; i < d.count; i++) {
        const rank = d.ranks[i]
        let player = names.get(rank)
        if (player === undefined) names.set(rank, (player = playerName(rank)))
        players[i] = player
      }
      const t = performance.now()
      let run: UnitRun | null = null
      sold += sales.sellChecked(job.emission, { ...d, players }, (r) => (run = r))
      if (job.batchMs) {
        // sales per ms, smoothed: a checkpoint now and then makes one batch slower than the others
        const r = d.count / Math.max(1, performance.now() - t)
        rate = rate === 0 ? r : (rate + r) / 2
        size = Math.max(1000, Math.min(batchSize, Math.round(rate * job.batchMs)))
      }
      hooks.progress?.(sold, run!)
      await yieldToLoop()
    }
  } catch (e) {
    next?.catch(() => {})
    throw e
  } finally {
    source.close()
  }
}

// ---------------------------------------------------------------------------------------------
// The service

export interface SimulationOptions {
  emission: number
  sales: number
  /** Player accounts to draw from; by default one for every 20 sales. */
  players?: number
  seed?: number
  /** Sales per transaction. */
  batchSize?: number
}

export interface SimulationResult {
  emission: number
  sold: number
  firstSerial: string | null
  lastSerial: string | null
  players: number
  seed: number
  from: string
  to: string
}

/** What a running task gives the simulation (the demo task passes its own). */
export interface SimulationHooks {
  progress?: (sold: number, total: number, message?: string) => void
  signal?: AbortSignal
  /** The simulation's lease, taken by the caller (start); else run takes its own. */
  lease?: Lease
}

export interface Simulator {
  /**
   * Sells `sales` units in batches, letting the event loop through between batches. A cancel
   * stops it between two batches with AppError('CANCELLED'); the batches sold stay sold.
   */
  run(actor: Actor, opts: SimulationOptions, hooks?: SimulationHooks): Promise<SimulationResult>
  /** The same, as a task with progress and cancel. */
  start(actor: Actor, opts: SimulationOptions): JobInfo
}

export interface SimulatorDeps {
  db: Db
  clock: Clock
  catalog: Catalog
  sales: SalesService
  audit: AuditService
  jobs: JobRegistry
  /** The leases of long jobs across workstations (default: a holder of its own). */
  leases?: Leases
  /** Where the sales are written: this thread by default, drafts included (see Seller). */
  seller?: Seller
}

/**
 * The units a simulation sold, as runs of consecutive units with their first and last serials:
 * another writer selling the same emission meanwhile (a second simulation, an import) takes the
 * units in between, so a simulation's units need not be one run.
 */
export function soldRanges(runs: readonly UnitRun[], blockSize: number): { from: string; to: string; count: number }[] {
  const joined: { emission: number; start: number; count: number }[] = []
  for (const r of runs) {
    const start = (r.first.block - 1) * blockSize + r.first.unit
    const last = joined.at(-1)
    if (last && last.emission === r.emission && last.start + last.count === start) last.count += r.count
    else joined.push({ emission: r.emission, start, count: r.count })
  }
  const serialAt = (emission: number, i: number) => formatSerial({ emission, block: Math.floor(i / blockSize) + 1, unit: i % blockSize }, blockSize)
  return joined.map((j) => ({ from: serialAt(j.emission, j.start), to: serialAt(j.emission, j.start + j.count - 1), count: j.count }))
}

export function defaultPlayers(sales: number): number {
  return Math.min(PLAYER_ID_SPACE, Math.max(1, Math.ceil(sales / 20)))
}

export function createSimulator(deps: SimulatorDeps): Simulator {
  const { db, clock, catalog, sales, audit, jobs } = deps
  const leases = deps.leases ?? createLeases({ db, clock, audit })
  const lastSaleOf = db.prepare('SELECT unit_key, sold_at FROM sales WHERE unit_key < ? ORDER BY unit_key DESC LIMIT 1')

  /**
   * The period to fill: from the emission's last sale, else from its first sale day, else (no
   * date set, nothing sold: a demo) the last HISTORY_DAYS days; up to now. When nothing of the
   * past is left to fill, the sales go into the day that follows.
   */
  function windowOf(emission: number): { fromMs: number; toMs: number } {
    const e = catalog.emission(emission)
    const last = lastSaleOf.get((emission + 1) * UNIT_KEY_EMISSION) as { unit_key: number; sold_at: number } | undefined
    const now = clock().getTime()
    let from = e.starts_on ? Date.parse(`${e.starts_on}T00:00:00Z`) : now - HISTORY_DAYS * DAY
    if (last && last.unit_key >= emission * UNIT_KEY_EMISSION) from = Math.max(from, last.sold_at + 1)
    let to = now
    if (to - from < HOUR) to = from + DAY
    return { fromMs: from, toMs: to }
  }

  function check(opts: SimulationOptions): void {
    if (!Number.isInteger(opts.sales) || opts.sales < 1) throw new AppError('BAD_ARGUMENTS', `sales must be a whole number ≥ 1, not ${opts.sales}`, { field: 'sales', ...because('SIM_SALES_MIN') })
    if (opts.seed !== undefined && (!Number.isInteger(opts.seed) || opts.seed < 0)) throw new AppError('BAD_ARGUMENTS', `seed must be a whole number ≥ 0, not ${opts.seed}`, { field: 'seed', ...because('SIM_SEED') })
    const e = catalog.emission(opts.emission)
    if (e.demo !== 1) {
      throw new AppError(
        'ILLEGAL_STATE',
        `emission ${opts.emission} is a real emission: simulated sales go only to demonstration emissions (carats emission create --demo), so that no real unit is sold to a simulated player`,
        because('SIM_REAL_EMISSION', { emission: opts.emission }),
      )
    }
    if (e.status !== 'open') throw new AppError('ILLEGAL_STATE', `emission ${opts.emission} cannot sell: it is ${describeStatus(e.status)}; open it first`, because('SIM_NOT_OPEN', { emission: opts.emission, status: e.status }))
    const def = catalog.definition(opts.emission)
    const unsold = catalog.blocks(opts.emission).reduce((n, b) => n + def.blockSize - b.units_sold, 0)
    if (unsold === 0) throw new AppError('SOLD_OUT', `emission ${opts.emission} is sold out`, because('SIM_SOLD_OUT', { emission: opts.emission }))
    if (opts.sales > unsold) throw new AppError('BAD_ARGUMENTS', `emission ${opts.emission} has ${unsold} units left, fewer than the ${opts.sales} sales asked`, { field: 'sales', ...because('SIM_TOO_MANY', { emission: opts.emission, unsold, sales: opts.sales }) })
  }

  const seller: Seller = deps.seller ?? ((job, hooks) => sellDrafts(sales, inProcessDrafts(job.gen), job, hooks))

  const simulator: Simulator = {
    async run(actor, opts, hooks = {}) {
      check(opts)
      const seed = opts.seed ?? 1
      const players = opts.players ?? defaultPlayers(opts.sales)
      const def = catalog.definition(opts.emission)
      const { fromMs, toMs } = windowOf(opts.emission)
      const gen: GeneratorOptions = { seed, players, count: opts.sales, fromMs, toMs, zones: { winningCells: def.winningCells, yoursCells: def.yoursCells } }
      checkGeneratorOptions(gen)
      const lease = hooks.lease ?? leases.take('simulate', emissionSubject(opts.emission))
      const base = { emission: opts.emission, players, seed, from: new Date(fromMs).toISOString(), to: new Date(toMs).toISOString() }
      audit.record(actor.name, 'sales.simulate-start', `emission:${opts.emission}`, { sales: opts.sales, ...base })
      let sold = 0
      const runs: UnitRun[] = []
      const ended = (action: AuditAction, extra: Record<string, unknown> = {}) => {
        const ranges = soldRanges(runs, def.blockSize)
        const firstSerial = ranges[0]?.from ?? null
        const lastSerial = ranges.at(-1)?.to ?? null
        audit.record(actor.name, action, `emission:${opts.emission}`, { sold, firstSerial, lastSerial, ranges, ...base, ...extra })
        return { firstSerial, lastSerial }
      }
      try {
        await seller({ emission: opts.emission, sales: opts.sales, batchSize: opts.batchSize, gen }, {
          signal: hooks.signal,
          progress: (done, run) => {
            sold = done
            runs.push(run)
            lease.beat()
            hooks.progress?.(sold, opts.sales, `${sold} of ${opts.sales} sales`)
          },
        })
      } catch (e) {
        const cancelled = e instanceof AppError && e.code === 'CANCELLED'
        ended(cancelled ? 'sales.simulate-cancelled' : 'sales.simulate-failed', cancelled ? {} : { error: e instanceof Error ? e.message : String(e) })
        throw e
      } finally {
        if (!hooks.lease) lease.drop()
      }
      const { firstSerial, lastSerial } = ended('sales.simulate')
      return { ...base, sold, firstSerial, lastSerial }
    },

    start(actor, opts) {
      check(opts)
      const busy = jobs.runningOn(opts.emission)
      if (busy) throw new AppError('ILLEGAL_STATE', `emission ${opts.emission} already has a ${busy.kind} task running (${busy.id})`, because('EMISSION_BUSY', { emission: opts.emission, action: 'simulate', kind: busy.kind }))
      leases.refuseIfHeldElsewhere(emissionSubject(opts.emission))
      const lease = leases.take('simulate', emissionSubject(opts.emission))
      return jobs.start('simulate', opts.emission, opts.sales, `simulating ${opts.sales} sales`, async (ctx) => {
        const r = await simulator.run(actor, opts, { signal: ctx.signal, progress: ctx.progress, lease })
        return `${r.sold} sales simulated (${r.firstSerial} to ${r.lastSerial})`
      }, lease)
    },

  }
  return simulator
}
