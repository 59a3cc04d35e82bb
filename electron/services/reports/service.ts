/**
 * Managers' reports: prize-tier depletion per block and per emission, the dashboard, and their
 * CSV exports. Nothing here scans the sales: units sell in index order, so the units sold of a
 * block are exactly 0 … units_sold − 1, and the counters (blocks.units_sold, block_tiers.sold,
 * daily_sales) say the rest.
 *
 * Depletion series: up to 301 points spread evenly over the units sold, never beyond, so a series
 * reveals nothing of the unsold units. The prize counts of a block at 1,000 checkpoints (units 0,
 * size/1000, …) are counted once from the block's tier table (BlockDeriver.tiers, via the
 * catalog's cache) and kept (about 32 KB a block); a point is its checkpoint's counts plus the few
 * thousand units after it. The last point comes from the counters. The expected line is
 * initial × (1 − x / total) per tier, left to the client.
 *
 * The dashboard and its filters: dashboard.ts. CSV exports: csv.ts, written by
 * the shared writer (csv.ts) in the office or the machine form.
 */
import { AppError } from '../../contract/errors'
import type { CsvFile, Dashboard, DepletionPoint, DepletionReport } from '../../contract/types'
import type { LiabilityReport } from '../../contract/liability-types'
import { LOSING } from '../../../game-core/block'
import type { GameDefinition } from '../../../game-core/rules'
import type { Db } from '../../ledger/db'
import type { BlockState, Catalog } from '../catalog'
import { iso } from '../common'
import { createDashboardReader, type DashboardArgs } from './dashboard'
import { dashboardDaysCsv, dashboardTiersCsv, depletionCsv, type CsvArgs } from './csv'

import type { ReportsDeps } from './context'
import { liabilityReport, type LiabilityArgs } from './liability'
import { liabilityCsv } from './liability-csv'
import type { CsvStyle } from '../csv'

export const CHECKPOINTS = 1000
export const MAX_POINTS = 300

export interface Reports {
  depletion(args: { emission: number; block?: number }): DepletionReport
  /** The managers' figures under their filters; demonstration emissions only with `includeDemo` (or chosen). */
  dashboard(args?: DashboardArgs): Dashboard
  csv(args: CsvArgs): CsvFile
  /** What the lottery owes, per emission, block and tier (liability.ts). */
  liability(args: LiabilityArgs): LiabilityReport
  liabilityCsv(args: LiabilityArgs & Partial<CsvStyle>): CsvFile
}

/** Prize counts of one block at its checkpoints: counts[k × tiers + t] = prizes of tier t among units 0 … position(k) − 1. */
interface Checkpoints {
  commitment: string
  counts: Uint32Array
}

/** The unit position of checkpoint k of a block of `size` units. */
export const checkpointAt = (k: number, size: number) => Math.floor((k * size) / CHECKPOINTS)

export function countCheckpoints(tiers: Uint8Array, nTiers: number, size: number): Uint32Array {
  const counts = new Uint32Array((CHECKPOINTS + 1) * nTiers)
  const running = new Uint32Array(nTiers)
  let u = 0
  for (let k = 1; k <= CHECKPOINTS; k++) {
    const end = checkpointAt(k, size)
    for (; u < end; u++) {
      const t = tiers[u]
      if (t !== LOSING) running[t]++
    }
    counts.set(running, k * nTiers)
  }
  return counts
}

/** What the reports' functions share: the services they read, the checkpoints kept, the statements prepared once. */
interface ReportsContext extends ReportsDeps {
  /** Each block's checkpoints, by "emission/block", kept while its commitment stays the same. */
  cache: Map<string, Checkpoints>
  board: ReturnType<typeof createDashboardReader>
  statements: ReturnType<typeof prepareReportStatements>
}

function prepareReportStatements(db: Db) {
  return {
    tiersOfBlock: db.prepare('SELECT tier, sold FROM block_tiers WHERE emission = ? AND block = ?'),
    tiersOfEmission: db.prepare('SELECT tier, sum(sold) AS sold FROM block_tiers WHERE emission = ? GROUP BY tier'),
  }
}

function checkpoints(ctx: ReportsContext, b: BlockState, def: GameDefinition): Uint32Array {
  const key = `${b.emission}/${b.block}`
  const hit = ctx.cache.get(key)
  if (hit && hit.commitment === b.commitment) return hit.counts
  const counts = countCheckpoints(ctx.catalog.deriver(b.emission, b.block, b).tiers, def.tiers.length, def.blockSize)
  ctx.cache.set(key, { commitment: b.commitment!, counts })
  return counts
}

/** Prizes per tier among units 0 … x − 1 of a block: its checkpoint before x, then the few units after it. */
function prefix(
  ctx: ReportsContext,
  b: BlockState,
  def: GameDefinition,
  x: number,
  tiersOf: (b: BlockState) => Uint8Array,
): number[] {
  const n = def.tiers.length
  const size = def.blockSize
  if (x <= 0) return new Array<number>(n).fill(0)
  if (x >= size) return def.tiers.map((t) => t.count)
  const counts = checkpoints(ctx, b, def)
  let k = Math.floor((x * CHECKPOINTS) / size)
  while (k < CHECKPOINTS && checkpointAt(k + 1, size) <= x) k++
  while (k > 0 && checkpointAt(k, size) > x) k--
  const out = Array.from(counts.subarray(k * n, k * n + n))
  const from = checkpointAt(k, size)
  if (from < x) {
    const tiers = tiersOf(b)
    for (let u = from; u < x; u++) {
      const t = tiers[u]
      if (t !== LOSING) out[t]++
    }
  }
  return out
}

function soldCounts(rows: { tier: number; sold: number }[], n: number): number[] {
  const sold = new Array<number>(n).fill(0)
  for (const r of rows) sold[r.tier] = r.sold
  return sold
}

/** The tier tables of the blocks one report reads, each derived once (through the catalog's cache). */
function tierTables(catalog: Catalog): (b: BlockState) => Uint8Array {
  const tables = new Map<BlockState, Uint8Array>()
  return (b) => {
    let t = tables.get(b)
    if (!t) tables.set(b, (t = catalog.deriver(b.emission, b.block, b).tiers))
    return t
  }
}

/** MAX_POINTS + 1 points evenly spread over the units sold; the last one from the counters. */
function depletionSeries(
  ctx: ReportsContext,
  def: GameDefinition,
  blocks: BlockState[],
  initial: number[],
  sold: number[],
  unitsSold: number,
): DepletionPoint[] {
  const size = def.blockSize
  const points = Math.min(MAX_POINTS, unitsSold)
  const series: DepletionPoint[] = [{ unitsSold: 0, remaining: [...initial] }]
  const tiersOf = tierTables(ctx.catalog)
  for (let j = 1; j < points; j++) {
    const x = Math.round((j * unitsSold) / points)
    if (x === series[series.length - 1].unitsSold) continue
    const bi = Math.floor(x / size)
    const soldBefore = prefix(ctx, blocks[bi], def, x - bi * size, tiersOf)
    // the blocks before this one are sold out: all their prizes are gone
    series.push({ unitsSold: x, remaining: initial.map((init, t) => init - bi * def.tiers[t].count - soldBefore[t]) })
  }
  if (unitsSold > 0) series.push({ unitsSold, remaining: initial.map((init, t) => init - sold[t]) })
  return series
}

function depletion(ctx: ReportsContext, { emission, block }: { emission: number; block?: number }): DepletionReport {
  const { catalog, statements } = ctx
  const def = catalog.definition(emission)
  const asOf = iso(ctx.clock())
  const blocks = block === undefined ? catalog.blockStates(emission) : [catalog.blockState(emission, block)]
  const initial = def.tiers.map((t) => t.count * blocks.length)
  const rows =
    block === undefined ? statements.tiersOfEmission.all(emission) : statements.tiersOfBlock.all(emission, block)
  const sold = soldCounts(rows as { tier: number; sold: number }[], def.tiers.length)
  const unitsSold = blocks.reduce((a, b) => a + b.units_sold, 0)
  return {
    emission,
    block: block ?? null,
    unitsTotal: blocks.length * def.blockSize,
    unitsSold,
    tiers: def.tiers.map((t, i) => ({
      amountCents: t.amountCents,
      initial: initial[i],
      sold: sold[i],
      remaining: initial[i] - sold[i],
    })),
    series: depletionSeries(ctx, def, blocks, initial, sold, unitsSold),
    asOf,
  }
}

function reportCsv(ctx: ReportsContext, args: CsvArgs): CsvFile {
  const { board, catalog } = ctx
  const style = { form: args.form ?? 'machine', locale: args.locale ?? 'fr' }
  if (args.report === 'depletion')
    return depletionCsv(depletion(ctx, args), catalog.facts(args.emission).demo === 1, style)
  if (args.report === 'dashboard') return dashboardDaysCsv(board, catalog, args, iso(ctx.clock()), style)
  if (args.report === 'dashboard-tiers') return dashboardTiersCsv(board.read(args), style)
  throw new AppError(
    'BAD_ARGUMENTS',
    `unknown report ${JSON.stringify((args as { report: unknown }).report)}: give depletion, dashboard or dashboard-tiers`,
    { field: 'report' },
  )
}

export function createReports(deps: ReportsDeps): Reports {
  const { db, clock, catalog, alerts } = deps
  const board = createDashboardReader({ db, clock, catalog, alerts })
  const ctx: ReportsContext = { ...deps, cache: new Map(), board, statements: prepareReportStatements(db) }
  return {
    depletion: (args) => depletion(ctx, args),
    dashboard: (args) => board.read(args),
    liability: (args) => liabilityReport(ctx, args),
    liabilityCsv: ({ form = 'machine', locale = 'fr', timeZone, ...args }) =>
      liabilityCsv(liabilityReport(ctx, args), { form, locale, timeZone }),
    csv: (args) => reportCsv(ctx, args),
  }
}
