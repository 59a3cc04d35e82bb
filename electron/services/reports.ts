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
 * Dashboard scopes: units, sales and prizes won count every sale ever made; the depletion table
 * counts the emissions that sold (open, closed, or withdrawn after selling); the remaining prize
 * liability and the top prizes remaining count only the emissions open for sale, since no unit of
 * a closed or withdrawn emission will ever be sold.
 *
 * CSV: written by the shared writer (csv.ts), whose figures stay numbers and whose text cells
 * cannot run as formulas.
 */
import { AppError } from '../contract/errors'
import type { CsvFile, Dashboard, DepletionPoint, DepletionReport } from '../contract/types'
import { LOSING } from '../../game-core/block'
import { deriveFigures, type GameDefinition } from '../../game-core/rules'
import type { Db } from '../ledger/db'
import type { AlertsService } from './alerts'
import { TOP_TIERS } from './alerts'
import type { BlockRow, Catalog, EmissionRow } from './catalog'
import { type Clock, iso } from './common'
import { toCsv } from './csv'

export const CHECKPOINTS = 1000
export const MAX_POINTS = 300
/** Days of sales per day on the dashboard. */
export const DASHBOARD_DAYS = 366

export interface ReportsDeps {
  db: Db
  clock: Clock
  catalog: Catalog
  alerts: AlertsService
}

export type CsvArgs = { report: 'depletion'; emission: number; block?: number } | { report: 'dashboard'; includeDemo?: boolean }

export interface Reports {
  depletion(args: { emission: number; block?: number }): DepletionReport
  /** The managers' figures; demonstration emissions only with `includeDemo`. */
  dashboard(opts?: { includeDemo?: boolean }): Dashboard
  csv(args: CsvArgs): CsvFile
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

export function createReports({ db, clock, catalog, alerts }: ReportsDeps): Reports {
  const cache = new Map<string, Checkpoints>()
  const tiersOfBlock = db.prepare('SELECT tier, sold FROM block_tiers WHERE emission = ? AND block = ?')
  const tiersOfEmission = db.prepare('SELECT tier, sum(sold) AS sold FROM block_tiers WHERE emission = ? GROUP BY tier')
  const allEmissions = db.prepare('SELECT * FROM emissions ORDER BY emission')
  const soldByEmission = db.prepare('SELECT emission, sum(units_sold) AS units FROM blocks GROUP BY emission')
  const tiersByEmission = db.prepare('SELECT emission, tier, sum(sold) AS sold FROM block_tiers GROUP BY emission, tier')
  const perDay = db.prepare(`SELECT day, sum(units) AS units, sum(sales_cents) AS sales_cents, sum(prizes_cents) AS prizes_cents
                             FROM daily_sales WHERE day >= ? AND emission IN (SELECT emission FROM emissions WHERE demo <= ?)
                             GROUP BY day ORDER BY day`)

  function checkpoints(b: BlockRow, def: GameDefinition): Uint32Array {
    const key = `${b.emission}/${b.block}`
    const hit = cache.get(key)
    if (hit && hit.commitment === b.commitment) return hit.counts
    const counts = countCheckpoints(catalog.deriver(b.emission, b.block).tiers, def.tiers.length, def.blockSize)
    cache.set(key, { commitment: b.commitment!, counts })
    return counts
  }

  /** Prizes per tier among units 0 … x − 1 of a block: its checkpoint before x, then the few units after it. */
  function prefix(b: BlockRow, def: GameDefinition, x: number, tiersOf: (b: BlockRow) => Uint8Array): number[] {
    const n = def.tiers.length
    const size = def.blockSize
    if (x <= 0) return new Array<number>(n).fill(0)
    if (x >= size) return def.tiers.map((t) => t.count)
    const counts = checkpoints(b, def)
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

  const reports: Reports = {
    depletion({ emission, block }) {
      catalog.emission(emission)
      const def = catalog.definition(emission)
      const n = def.tiers.length
      const size = def.blockSize
      const asOf = iso(clock())
      const blocks = block === undefined ? catalog.blocks(emission) : [catalog.block(emission, block)]
      const initial = def.tiers.map((t) => t.count * blocks.length)
      const sold = soldCounts((block === undefined ? tiersOfEmission.all(emission) : tiersOfBlock.all(emission, block)) as { tier: number; sold: number }[], n)
      const unitsSold = blocks.reduce((a, b) => a + b.units_sold, 0)
      const unitsTotal = blocks.length * size

      // MAX_POINTS + 1 points evenly spread over the units sold; the last one from the counters
      const points = Math.min(MAX_POINTS, unitsSold)
      const series: DepletionPoint[] = [{ unitsSold: 0, remaining: [...initial] }]
      const tables = new Map<BlockRow, Uint8Array>()
      const tiersOf = (b: BlockRow) => {
        let t = tables.get(b)
        if (!t) tables.set(b, (t = catalog.deriver(b.emission, b.block).tiers))
        return t
      }
      for (let j = 1; j < points; j++) {
        const x = Math.round((j * unitsSold) / points)
        if (x === series[series.length - 1].unitsSold) continue
        const bi = Math.floor(x / size)
        const soldBefore = prefix(blocks[bi], def, x - bi * size, tiersOf)
        // the blocks before this one are sold out: all their prizes are gone
        series.push({ unitsSold: x, remaining: initial.map((init, t) => init - bi * def.tiers[t].count - soldBefore[t]) })
      }
      if (unitsSold > 0) series.push({ unitsSold, remaining: initial.map((init, t) => init - sold[t]) })
      return {
        emission,
        block: block ?? null,
        unitsTotal,
        unitsSold,
        tiers: def.tiers.map((t, i) => ({ amountCents: t.amountCents, initial: initial[i], sold: sold[i], remaining: initial[i] - sold[i] })),
        series,
        asOf,
      }
    },

    dashboard({ includeDemo = false } = {}) {
      const asOf = iso(clock())
      // demonstration emissions' simulated sales stay out of the real figures unless asked for
      const emissions = (allEmissions.all() as EmissionRow[]).filter((e) => includeDemo || e.demo !== 1)
      const unitsOf = new Map((soldByEmission.all() as { emission: number; units: number }[]).map((r) => [r.emission, r.units]))
      const tierRows = tiersByEmission.all() as { emission: number; tier: number; sold: number }[]
      let unitsSold = 0
      let salesCents = 0
      let prizesWon = 0
      let prizesWonCents = 0
      let theoreticalWeighted = 0
      let liability = 0
      const depletion = new Map<number, { amountCents: number; initial: number; sold: number }>()
      const top = new Map<number, { amountCents: number; initial: number; remaining: number }>()
      let theoreticalFallback = 0
      for (const e of emissions) {
        const def = catalog.definition(e.emission)
        const figures = deriveFigures(def)
        const units = unitsOf.get(e.emission) ?? 0
        const sold = soldCounts(tierRows.filter((r) => r.emission === e.emission), def.tiers.length)
        const sales = units * def.unitPriceCents
        unitsSold += units
        salesCents += sales
        theoreticalWeighted += figures.payoutRatio * sales
        if (theoreticalFallback === 0) theoreticalFallback = figures.payoutRatio
        def.tiers.forEach((t, i) => {
          prizesWon += sold[i]
          prizesWonCents += sold[i] * t.amountCents
        })
        const onSale = e.status === 'open'
        if (units > 0 || onSale) {
          def.tiers.forEach((t, i) => {
            const d = depletion.get(t.amountCents) ?? { amountCents: t.amountCents, initial: 0, sold: 0 }
            d.initial += t.count * e.blocks
            d.sold += sold[i]
            depletion.set(t.amountCents, d)
          })
        }
        if (onSale) {
          def.tiers.forEach((t, i) => {
            const remaining = t.count * e.blocks - sold[i]
            liability += remaining * t.amountCents
            if (i < TOP_TIERS) {
              const r = top.get(t.amountCents) ?? { amountCents: t.amountCents, initial: 0, remaining: 0 }
              r.initial += t.count * e.blocks
              r.remaining += remaining
              top.set(t.amountCents, r)
            }
          })
        }
      }
      const since = new Date(clock().getTime() - DASHBOARD_DAYS * 86_400_000).toISOString().slice(0, 10)
      const days = perDay.all(since, includeDemo ? 1 : 0) as { day: string; units: number; sales_cents: number; prizes_cents: number }[]
      return {
        asOf,
        includesDemo: includeDemo,
        unitsSold,
        salesCents,
        prizesWon,
        prizesWonCents,
        realisedPayout: salesCents > 0 ? prizesWonCents / salesCents : 0,
        theoreticalPayout: salesCents > 0 ? theoreticalWeighted / salesCents : theoreticalFallback,
        remainingLiabilityCents: liability,
        topPrizesRemaining: [...top.values()].sort((a, b) => b.amountCents - a.amountCents),
        salesPerDay: days.map((d) => ({ day: d.day, units: d.units, salesCents: d.sales_cents, prizesCents: d.prizes_cents })),
        depletion: [...depletion.values()].sort((a, b) => b.amountCents - a.amountCents).map((d) => ({ ...d, remaining: d.initial - d.sold })),
        alerts: alerts.list(),
      }
    },

    csv(args) {
      if (args.report === 'depletion') {
        const r = reports.depletion(args)
        const demo = catalog.emission(r.emission).demo === 1 ? 'yes' : 'no'
        const rows = r.tiers.map((t) => [r.emission, r.block ?? '', t.amountCents, t.initial, t.sold, t.remaining, expectedRemaining(t.initial, r.unitsSold, r.unitsTotal), r.unitsSold, r.unitsTotal, r.asOf, demo])
        const content = toCsv(['emission', 'block', 'amount_cents', 'initial', 'sold', 'remaining', 'expected_remaining', 'units_sold', 'units_total', 'as_of', 'demo_emission'], rows)
        const where = `E${String(r.emission).padStart(4, '0')}${r.block === null ? '' : `-B${String(r.block).padStart(3, '0')}`}`
        return { fileName: `depletion-${where}-${r.asOf.slice(0, 10)}.csv`, content }
      }
      if (args.report === 'dashboard') {
        const d = reports.dashboard({ includeDemo: args.includeDemo })
        const rows: (string | number)[][] = [
          ['summary', 'as_of', d.asOf],
          ['summary', 'includes_demo_emissions', d.includesDemo ? 'yes' : 'no'],
          ['summary', 'units_sold', d.unitsSold],
          ['summary', 'sales_cents', d.salesCents],
          ['summary', 'prizes_won', d.prizesWon],
          ['summary', 'prizes_won_cents', d.prizesWonCents],
          ['summary', 'realised_payout', d.realisedPayout],
          ['summary', 'theoretical_payout', d.theoreticalPayout],
          ['summary', 'remaining_liability_cents', d.remainingLiabilityCents],
          ...d.topPrizesRemaining.flatMap((t) => [
            ['top_prizes_remaining', `${t.amountCents}.remaining`, t.remaining],
            ['top_prizes_remaining', `${t.amountCents}.initial`, t.initial],
          ]),
          ...d.depletion.flatMap((t) => [
            ['depletion', `${t.amountCents}.initial`, t.initial],
            ['depletion', `${t.amountCents}.sold`, t.sold],
            ['depletion', `${t.amountCents}.remaining`, t.remaining],
          ]),
          ...d.salesPerDay.flatMap((s) => [
            ['sales_per_day', `${s.day}.units`, s.units],
            ['sales_per_day', `${s.day}.sales_cents`, s.salesCents],
            ['sales_per_day', `${s.day}.prizes_cents`, s.prizesCents],
          ]),
          ...d.alerts.map((a) => ['alert', a.at, a.message]),
        ]
        return { fileName: `dashboard-${d.asOf.slice(0, 10)}.csv`, content: toCsv(['section', 'item', 'value'], rows) }
      }
      throw new AppError('BAD_ARGUMENTS', `unknown report ${JSON.stringify((args as { report: unknown }).report)}`, { field: 'report' })
    },
  }
  return reports
}

/** The expected remaining of a tier whose prizes are spread evenly: initial × (1 − sold / total), rounded. */
export function expectedRemaining(initial: number, unitsSold: number, unitsTotal: number): number {
  return Math.round(initial * (1 - unitsSold / unitsTotal))
}
