/**
 * The managers' dashboard under its filters: one emission or all, a range of sale days (UTC,
 * inclusive, as daily_sales holds them), demonstration emissions or not.
 *
 * Two scopes. The period's figures (units, sales, prizes won, payouts, sales per day) come from
 * daily_sales, day by day and emission by emission, so a range of days is exact; the theoretical
 * payout is each emission's, weighted by its sales in the period. The state's figures count every
 * sale so far, as of the reading: the depletion table counts the chosen emissions that sold
 * (open, closed, or withdrawn after selling); the remaining prize liability and the top prizes
 * remaining count only those open for sale, since no unit of a closed or withdrawn emission will
 * ever be sold. A range of days does not change them (the counters hold no history per tier).
 *
 * Demonstration emissions' simulated sales stay out unless asked for, or unless the one emission
 * chosen is a demonstration (choosing it is asking).
 */
import { AppError } from '../../contract/errors'
import { dayRangeProblem, isoDayProblem } from '../../contract/dates'
import type { Dashboard, DashboardFilters } from '../../contract/types'
import { deriveFigures } from '../../../game-core/rules'
import { TOP_TIERS } from '../alerts'
import type { Catalog, EmissionRow } from '../catalog'
import { iso } from '../common'
import type { ReportsDeps } from './context'
import { SOFTWARE } from '../version'
import { claimsDashboard, claimTotalsOf } from '../claims'

/** Days of sales per day on the dashboard when the period has no first day. */
export const DASHBOARD_DAYS = 366

export interface DashboardArgs {
  includeDemo?: boolean
  emission?: number
  /** YYYY-MM-DD, inclusive, UTC: the sale days */
  from?: string
  to?: string
}

/** One emission's sales of one day, as daily_sales holds them. */
export interface DayRow {
  day: string
  emission: number
  units: number
  sales_cents: number
  prizes: number
  prizes_cents: number
}

export interface DashboardReader {
  read(args?: DashboardArgs): Dashboard
  /** The filters checked and completed, the emissions they choose, and the period's rows of daily_sales. */
  period(args?: DashboardArgs): { filters: DashboardFilters; emissions: EmissionRow[]; days: DayRow[] }
}

/** The filters, refused with a clear reason when a day does not exist or the range runs backwards (the command line reaches here unchecked by the contract). */
export function checkFilters(args: DashboardArgs): DashboardFilters {
  for (const field of ['from', 'to'] as const) {
    const day = args[field]
    const problem = day === undefined ? null : isoDayProblem(day)
    if (problem)
      throw new AppError(
        'BAD_ARGUMENTS',
        `${field}: ${problem === 'shape' ? `${JSON.stringify(day)} is not a date YYYY-MM-DD` : `${day} is not a day of the calendar`}`,
        { field },
      )
  }
  const problem = dayRangeProblem(args.from, args.to)
  if (problem) throw new AppError('BAD_ARGUMENTS', `to: ${problem}`, { field: 'to' })
  return {
    emission: args.emission ?? null,
    from: args.from ?? null,
    to: args.to ?? null,
    includeDemo: args.includeDemo ?? false,
  }
}

export function createDashboardReader({ db, clock, catalog, alerts }: ReportsDeps): DashboardReader {
  const allEmissions = db.prepare('SELECT * FROM emissions ORDER BY emission')
  const soldByEmission = db.prepare('SELECT emission, sum(units_sold) AS units FROM blocks GROUP BY emission')
  const tiersByEmission = db.prepare(
    'SELECT emission, tier, sum(sold) AS sold FROM block_tiers GROUP BY emission, tier',
  )
  const daysBetween = db.prepare(
    'SELECT day, emission, units, sales_cents, prizes, prizes_cents FROM daily_sales WHERE day >= ? AND day <= ? ORDER BY day, emission',
  )

  function period(args: DashboardArgs = {}) {
    const filters = checkFilters(args)
    const emissions =
      filters.emission !== null
        ? [catalog.emission(filters.emission)]
        : (allEmissions.all() as EmissionRow[]).filter((e) => filters.includeDemo || e.demo !== 1)
    const chosen = new Set(emissions.map((e) => e.emission))
    const days = (daysBetween.all(filters.from ?? '0000-01-01', filters.to ?? '9999-12-31') as DayRow[]).filter((d) =>
      chosen.has(d.emission),
    )
    return { filters, emissions, days }
  }

  function read(args: DashboardArgs = {}): Dashboard {
    const asOf = iso(clock())
    const { filters, emissions, days } = period(args)
    const figures = periodFigures(emissions, days, catalog)
    const since = filters.from ?? new Date(clock().getTime() - DASHBOARD_DAYS * 86_400_000).toISOString().slice(0, 10)
    const state = stateFigures(
      emissions,
      catalog,
      soldByEmission.all() as { emission: number; units: number }[],
      tiersByEmission.all() as TierRow[],
    )
    const chosen = new Set(emissions.map((e) => e.emission))
    return {
      asOf,
      version: SOFTWARE.version,
      filters,
      includesDemo: emissions.some((e) => e.demo === 1) || (filters.emission === null && filters.includeDemo),
      ...figures,
      salesPerDay: perDay(days.filter((d) => d.day >= since)),
      ...state,
      claims: claimsDashboard(claimTotalsOf(db, [...chosen])),
      alerts: filters.emission === null ? alerts.list() : alerts.list().filter((a) => chosen.has(a.emission)),
    }
  }

  return { read, period }
}

type TierRow = { emission: number; tier: number; sold: number }

/** Units, sales, prizes and payouts of the period's rows; the theoretical payout weighted by each emission's sales in it. */
function periodFigures(emissions: EmissionRow[], days: DayRow[], catalog: Catalog) {
  const ratio = new Map(emissions.map((e) => [e.emission, deriveFigures(catalog.definition(e.emission)).payoutRatio]))
  let unitsSold = 0
  let salesCents = 0
  let prizesWon = 0
  let prizesWonCents = 0
  let weighted = 0
  for (const d of days) {
    unitsSold += d.units
    salesCents += d.sales_cents
    prizesWon += d.prizes
    prizesWonCents += d.prizes_cents
    weighted += (ratio.get(d.emission) ?? 0) * d.sales_cents
  }
  return {
    unitsSold,
    salesCents,
    prizesWon,
    prizesWonCents,
    realisedPayout: salesCents > 0 ? prizesWonCents / salesCents : null,
    // with no sale in the period, the first chosen emission's own
    theoreticalPayout: salesCents > 0 ? weighted / salesCents : (ratio.get(emissions[0]?.emission) ?? 0),
  }
}

function perDay(days: DayRow[]): Dashboard['salesPerDay'] {
  const out: Dashboard['salesPerDay'] = []
  for (const d of days) {
    const last = out[out.length - 1]
    if (last && last.day === d.day) {
      last.units += d.units
      last.salesCents += d.sales_cents
      last.prizesCents += d.prizes_cents
    } else out.push({ day: d.day, units: d.units, salesCents: d.sales_cents, prizesCents: d.prizes_cents })
  }
  return out
}

/** Depletion of the emissions that sold or are open; liability and top prizes of the open ones; all from the counters. */
function stateFigures(
  emissions: EmissionRow[],
  catalog: Catalog,
  sold: { emission: number; units: number }[],
  tierRows: TierRow[],
) {
  const unitsOf = new Map(sold.map((r) => [r.emission, r.units]))
  let liability = 0
  const depletion = new Map<number, { amountCents: number; initial: number; sold: number }>()
  const top = new Map<number, { amountCents: number; initial: number; remaining: number }>()
  const depletionUnits = { sold: 0, total: 0 }
  for (const e of emissions) {
    const def = catalog.definition(e.emission)
    const units = unitsOf.get(e.emission) ?? 0
    const won = new Array<number>(def.tiers.length).fill(0)
    for (const r of tierRows) if (r.emission === e.emission) won[r.tier] = r.sold
    const onSale = e.status === 'open'
    if (units > 0 || onSale) {
      depletionUnits.sold += units
      depletionUnits.total += e.blocks * def.blockSize
      def.tiers.forEach((t, i) => {
        const d = depletion.get(t.amountCents) ?? { amountCents: t.amountCents, initial: 0, sold: 0 }
        d.initial += t.count * e.blocks
        d.sold += won[i]
        depletion.set(t.amountCents, d)
      })
    }
    if (!onSale) continue
    def.tiers.forEach((t, i) => {
      const remaining = t.count * e.blocks - won[i]
      liability += remaining * t.amountCents
      if (i >= TOP_TIERS) return
      const r = top.get(t.amountCents) ?? { amountCents: t.amountCents, initial: 0, remaining: 0 }
      r.initial += t.count * e.blocks
      r.remaining += remaining
      top.set(t.amountCents, r)
    })
  }
  return {
    remainingLiabilityCents: liability,
    topPrizesRemaining: [...top.values()].sort((a, b) => b.amountCents - a.amountCents),
    depletion: [...depletion.values()]
      .sort((a, b) => b.amountCents - a.amountCents)
      .map((d) => ({ ...d, remaining: d.initial - d.sold })),
    depletionUnits,
  }
}
