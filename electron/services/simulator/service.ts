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
 *
 * The drafts (draws, players, times, plays, the generator): drafts.ts. The selling
 * (Seller, sellDrafts): selling.ts.
 */
import { AppError, because } from '../../contract/errors'
import type { AuditAction, JobInfo } from '../../contract/types'
import type { Db } from '../../ledger/db'
import { UNIT_KEY_EMISSION } from '../../ledger/unit-key'
import { formatSerial } from '../../../game-core/serial'
import type { AuditService } from '../audit'
import type { Catalog } from '../catalog'
import type { Actor, Clock } from '../common'
import { describeStatus } from '../emissions'
import type { JobRegistry } from '../jobs'
import { createLeases, emissionSubject, type Lease, type Leases } from '../leases'
import type { SalesService, UnitRun } from '../sales'
import { checkGeneratorOptions, DAY, HOUR, inProcessDrafts, PLAYER_ID_SPACE, type GeneratorOptions } from './drafts'
import type { Seller } from './context'
import { sellDrafts } from './selling'

/** How far back the history of an emission with no sale date and no sale yet goes. */
export const HISTORY_DAYS = 30

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
  const serialAt = (emission: number, i: number) =>
    formatSerial({ emission, block: Math.floor(i / blockSize) + 1, unit: i % blockSize }, blockSize)
  return joined.map((j) => ({
    from: serialAt(j.emission, j.start),
    to: serialAt(j.emission, j.start + j.count - 1),
    count: j.count,
  }))
}

export function defaultPlayers(sales: number): number {
  return Math.min(PLAYER_ID_SPACE, Math.max(1, Math.ceil(sales / 20)))
}

/** What the simulator's functions share: the services it leans on, its seller, the statement prepared once. */
interface SimulatorContext {
  clock: Clock
  catalog: Catalog
  audit: AuditService
  jobs: JobRegistry
  leases: Leases
  seller: Seller
  statements: ReturnType<typeof prepareSimulatorStatements>
}

function prepareSimulatorStatements(db: Db) {
  return {
    lastSaleOf: db.prepare('SELECT unit_key, sold_at FROM sales WHERE unit_key < ? ORDER BY unit_key DESC LIMIT 1'),
  }
}

/**
 * The period to fill: from the emission's last sale, else from its first sale day, else (no
 * date set, nothing sold: a demo) the last HISTORY_DAYS days; up to now. When nothing of the
 * past is left to fill, the sales go into the day that follows.
 */
function windowOf(ctx: SimulatorContext, emission: number): { fromMs: number; toMs: number } {
  const e = ctx.catalog.emission(emission)
  const last = ctx.statements.lastSaleOf.get((emission + 1) * UNIT_KEY_EMISSION) as
    { unit_key: number; sold_at: number } | undefined
  const now = ctx.clock().getTime()
  let from = e.starts_on ? Date.parse(`${e.starts_on}T00:00:00Z`) : now - HISTORY_DAYS * DAY
  if (last && last.unit_key >= emission * UNIT_KEY_EMISSION) from = Math.max(from, last.sold_at + 1)
  let to = now
  if (to - from < HOUR) to = from + DAY
  return { fromMs: from, toMs: to }
}

function check({ catalog }: SimulatorContext, opts: SimulationOptions): void {
  if (!Number.isInteger(opts.sales) || opts.sales < 1)
    throw new AppError('BAD_ARGUMENTS', `sales must be a whole number ≥ 1, not ${opts.sales}`, {
      field: 'sales',
      ...because('SIM_SALES_MIN'),
    })
  if (opts.seed !== undefined && (!Number.isInteger(opts.seed) || opts.seed < 0))
    throw new AppError('BAD_ARGUMENTS', `seed must be a whole number ≥ 0, not ${opts.seed}`, {
      field: 'seed',
      ...because('SIM_SEED'),
    })
  const e = catalog.emission(opts.emission)
  if (e.demo !== 1) {
    throw new AppError(
      'ILLEGAL_STATE',
      `emission ${opts.emission} is a real emission: simulated sales go only to demonstration emissions (carats emission create --demo), so that no real unit is sold to a simulated player`,
      because('SIM_REAL_EMISSION', { emission: opts.emission }),
    )
  }
  if (e.status !== 'open')
    throw new AppError(
      'ILLEGAL_STATE',
      `emission ${opts.emission} cannot sell: it is ${describeStatus(e.status)}; open it first`,
      because('SIM_NOT_OPEN', { emission: opts.emission, status: e.status }),
    )
  const def = catalog.definition(opts.emission)
  const unsold = catalog.blocks(opts.emission).reduce((n, b) => n + def.blockSize - b.units_sold, 0)
  if (unsold === 0)
    throw new AppError(
      'SOLD_OUT',
      `emission ${opts.emission} is sold out`,
      because('SIM_SOLD_OUT', { emission: opts.emission }),
    )
  if (opts.sales > unsold)
    throw new AppError(
      'BAD_ARGUMENTS',
      `emission ${opts.emission} has ${unsold} units left, fewer than the ${opts.sales} sales asked`,
      { field: 'sales', ...because('SIM_TOO_MANY', { emission: opts.emission, unsold, sales: opts.sales }) },
    )
}

/** A simulation as it goes: what it sells, what its audit entries say, and what it sold so far. */
interface SimulationRun {
  actor: Actor
  opts: SimulationOptions
  blockSize: number
  gen: GeneratorOptions
  /** What the start and the end entries both say, and the result holds. */
  base: { emission: number; players: number; seed: number; from: string; to: string }
  sold: number
  runs: UnitRun[]
}

/** The simulation's plan, checked before anything is recorded: the generator's options over the window to fill. */
function planRun(ctx: SimulatorContext, actor: Actor, opts: SimulationOptions): SimulationRun {
  check(ctx, opts)
  const seed = opts.seed ?? 1
  const players = opts.players ?? defaultPlayers(opts.sales)
  const def = ctx.catalog.definition(opts.emission)
  const { fromMs, toMs } = windowOf(ctx, opts.emission)
  const gen: GeneratorOptions = {
    seed,
    players,
    count: opts.sales,
    fromMs,
    toMs,
    zones: { winningCells: def.winningCells, yoursCells: def.yoursCells },
  }
  checkGeneratorOptions(gen)
  const base = {
    emission: opts.emission,
    players,
    seed,
    from: new Date(fromMs).toISOString(),
    to: new Date(toMs).toISOString(),
  }
  return { actor, opts, blockSize: def.blockSize, gen, base, sold: 0, runs: [] }
}

/** The simulation's end entry (done, cancelled or failed), with the ranges of units it sold. */
function recordEnd(
  ctx: SimulatorContext,
  run: SimulationRun,
  action: AuditAction,
  extra: Record<string, unknown> = {},
) {
  const ranges = soldRanges(run.runs, run.blockSize)
  const firstSerial = ranges[0]?.from ?? null
  const lastSerial = ranges.at(-1)?.to ?? null
  ctx.audit.record(run.actor.name, action, `emission:${run.opts.emission}`, {
    sold: run.sold,
    firstSerial,
    lastSerial,
    ranges,
    ...run.base,
    ...extra,
  })
  return { firstSerial, lastSerial }
}

async function runSimulation(
  ctx: SimulatorContext,
  actor: Actor,
  opts: SimulationOptions,
  hooks: SimulationHooks = {},
): Promise<SimulationResult> {
  const run = planRun(ctx, actor, opts)
  const lease = hooks.lease ?? ctx.leases.take('simulate', emissionSubject(opts.emission))
  ctx.audit.record(actor.name, 'sales.simulate-start', `emission:${opts.emission}`, { sales: opts.sales, ...run.base })
  try {
    const ref = { kind: lease.kind, subject: lease.subject, holder: lease.holder }
    await ctx.seller(
      { emission: opts.emission, sales: opts.sales, batchSize: opts.batchSize, gen: run.gen, lease: ref },
      {
        signal: hooks.signal,
        beat: () => void lease.beat(),
        progress: (done, unitRun) => {
          run.sold = done
          run.runs.push(unitRun)
          hooks.progress?.(run.sold, opts.sales, `${run.sold} of ${opts.sales} sales`)
        },
      },
    )
  } catch (e) {
    const cancelled = e instanceof AppError && e.code === 'CANCELLED'
    recordEnd(
      ctx,
      run,
      cancelled ? 'sales.simulate-cancelled' : 'sales.simulate-failed',
      cancelled ? {} : { error: e instanceof Error ? e.message : String(e) },
    )
    throw e
  } finally {
    if (!hooks.lease) lease.drop()
  }
  const { firstSerial, lastSerial } = recordEnd(ctx, run, 'sales.simulate')
  return { ...run.base, sold: run.sold, firstSerial, lastSerial }
}

function startSimulation(ctx: SimulatorContext, actor: Actor, opts: SimulationOptions): JobInfo {
  const { jobs, leases } = ctx
  check(ctx, opts)
  const busy = jobs.runningOn(opts.emission)
  if (busy)
    throw new AppError(
      'ILLEGAL_STATE',
      `emission ${opts.emission} already has a ${busy.kind} task running (${busy.id})`,
      because('EMISSION_BUSY', { emission: opts.emission, action: 'simulate', kind: busy.kind }),
    )
  leases.refuseIfHeldElsewhere(emissionSubject(opts.emission))
  const lease = leases.take('simulate', emissionSubject(opts.emission))
  return jobs.start(
    'simulate',
    opts.emission,
    opts.sales,
    `simulating ${opts.sales} sales`,
    async (job) => {
      const r = await runSimulation(ctx, actor, opts, { signal: job.signal, progress: job.progress, lease })
      return `${r.sold} sales simulated (${r.firstSerial} to ${r.lastSerial})`
    },
    watchedLease(lease),
  )
}

/**
 * The lease as the task registry sees it: the seller beats it on the connection that sells
 * (leases.ts leaseBeater), so the registry's "beat" only reads whether it is still held. A beat
 * written by the app's connection would drop the seller's player cache (sales/players.ts).
 */
function watchedLease(lease: Lease): Lease {
  return { ...lease, beat: () => lease.held() }
}

export function createSimulator(deps: SimulatorDeps): Simulator {
  const { db, clock, catalog, sales, audit, jobs } = deps
  const ctx: SimulatorContext = {
    clock,
    catalog,
    audit,
    jobs,
    leases: deps.leases ?? createLeases({ db, clock, audit }),
    seller: deps.seller ?? ((job, hooks) => sellDrafts(sales, inProcessDrafts(job.gen), job, hooks)),
    statements: prepareSimulatorStatements(db),
  }
  return {
    run: (actor, opts, hooks) => runSimulation(ctx, actor, opts, hooks),
    start: (actor, opts) => startSimulation(ctx, actor, opts),
  }
}
