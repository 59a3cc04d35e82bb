/**
 * The reports' CSV exports, each one row per record under named columns, written by the shared
 * writer (csv.ts) in the form asked for: the depletion of a block or an emission (a row per prize
 * tier), the dashboard's sales (a row per day and emission of its period) and its prize tiers (a
 * row per tier, as of the reading). Each names its filters, the software's version and its as-of
 * time on its first line.
 */
import type { CsvFile, Dashboard, DepletionReport } from '../../contract/types'
import { deriveFigures } from '../../../game-core/rules'
import type { Catalog } from '../catalog'
import { writeCsv, type CsvCell, type CsvColumn, type CsvFilter, type CsvStyle } from '../csv'
import type { DashboardArgs, DashboardReader } from './dashboard'

export type CsvArgs = Partial<CsvStyle> &
  (
    | { report: 'depletion'; emission: number; block?: number }
    | ({ report: 'dashboard' | 'dashboard-tiers' } & DashboardArgs)
  )

const DEFAULT_STYLE: CsvStyle = { form: 'machine', locale: 'fr' }

const DEPLETION_COLUMNS: CsvColumn[] = [
  { id: 'emission', kind: 'int' },
  { id: 'block', kind: 'int' },
  { id: 'amount_cents', kind: 'cents' },
  { id: 'initial', kind: 'int' },
  { id: 'sold', kind: 'int' },
  { id: 'remaining', kind: 'int' },
  { id: 'expected_remaining', kind: 'int' },
  { id: 'units_sold', kind: 'int' },
  { id: 'units_total', kind: 'int' },
  { id: 'as_of', kind: 'time' },
  { id: 'demo_emission', kind: 'yes-no' },
]

const DAY_COLUMNS: CsvColumn[] = [
  { id: 'day', kind: 'day' },
  { id: 'emission', kind: 'int' },
  { id: 'demo_emission', kind: 'yes-no' },
  { id: 'units_sold', kind: 'int' },
  { id: 'sales_cents', kind: 'cents' },
  { id: 'winning_units', kind: 'int' },
  { id: 'prizes_won_cents', kind: 'cents' },
  { id: 'realised_payout', kind: 'share' },
  { id: 'theoretical_payout', kind: 'share' },
]

const TIER_COLUMNS: CsvColumn[] = [
  { id: 'amount_cents', kind: 'cents' },
  { id: 'initial', kind: 'int' },
  { id: 'sold', kind: 'int' },
  { id: 'remaining', kind: 'int' },
  { id: 'share_won', kind: 'share' },
]

/** The expected remaining of a tier whose prizes are spread evenly: initial × (1 − sold / total), rounded. */
export function expectedRemaining(initial: number, unitsSold: number, unitsTotal: number): number {
  return Math.round(initial * (1 - unitsSold / unitsTotal))
}

export function depletionCsv(r: DepletionReport, demo: boolean, style: CsvStyle = DEFAULT_STYLE): CsvFile {
  const rows = r.tiers.map((t) => [
    r.emission,
    r.block,
    t.amountCents,
    t.initial,
    t.sold,
    t.remaining,
    expectedRemaining(t.initial, r.unitsSold, r.unitsTotal),
    r.unitsSold,
    r.unitsTotal,
    r.asOf,
    demo,
  ])
  const filters: CsvFilter[] = [
    { id: 'emission', kind: 'int', value: r.emission },
    { id: 'block', kind: 'int', value: r.block },
  ]
  const content = writeCsv({ columns: DEPLETION_COLUMNS, rows, about: { asOf: r.asOf, filters } }, style)
  const where = `E${String(r.emission).padStart(4, '0')}${r.block === null ? '' : `-B${String(r.block).padStart(3, '0')}`}`
  return { fileName: `depletion-${where}-${r.asOf.slice(0, 10)}.csv`, content }
}

/** The dashboard's filters as its exports name them; the prize tiers are the state as of the reading, whatever the days. */
const dashboardFilters = (d: Dashboard['filters'], withDays: boolean): CsvFilter[] => [
  { id: 'emission', kind: 'int', value: d.emission },
  ...(withDays
    ? ([
        { id: 'from', kind: 'day', value: d.from },
        { id: 'to', kind: 'day', value: d.to },
      ] as const)
    : []),
  { id: 'include_demo', kind: 'yes-no', value: d.emission === null ? d.includeDemo : null },
]

/** The dashboard's period, a row per day and emission with sales (daily_sales), its payouts beside. */
export function dashboardDaysCsv(
  reader: DashboardReader,
  catalog: Catalog,
  args: DashboardArgs,
  asOf: string,
  style: CsvStyle = DEFAULT_STYLE,
): CsvFile {
  const { filters, emissions, days } = reader.period(args)
  const byNo = new Map(
    emissions.map((e) => [
      e.emission,
      { demo: e.demo === 1, ratio: deriveFigures(catalog.definition(e.emission)).payoutRatio },
    ]),
  )
  const rows: CsvCell[][] = days.map((d) => {
    const e = byNo.get(d.emission)!
    return [
      d.day,
      d.emission,
      e.demo,
      d.units,
      d.sales_cents,
      d.prizes,
      d.prizes_cents,
      d.sales_cents > 0 ? d.prizes_cents / d.sales_cents : null,
      e.ratio,
    ]
  })
  const content = writeCsv(
    { columns: DAY_COLUMNS, rows, about: { asOf, filters: dashboardFilters(filters, true) } },
    style,
  )
  return { fileName: `dashboard-${fileScope(filters)}${asOf.slice(0, 10)}.csv`, content }
}

/** The dashboard's prize tiers as of the reading, under its emission filter. */
export function dashboardTiersCsv(d: Dashboard, style: CsvStyle = DEFAULT_STYLE): CsvFile {
  const rows = d.depletion.map((t) => [
    t.amountCents,
    t.initial,
    t.sold,
    t.remaining,
    t.initial > 0 ? t.sold / t.initial : null,
  ])
  const content = writeCsv(
    { columns: TIER_COLUMNS, rows, about: { asOf: d.asOf, filters: dashboardFilters(d.filters, false) } },
    style,
  )
  return { fileName: `dashboard-tiers-${fileScope(d.filters)}${d.asOf.slice(0, 10)}.csv`, content }
}

/** "E0003-", "2026-03-01_2026-03-10-": what a file name tells of its filters. */
function fileScope(f: Dashboard['filters']): string {
  const emission = f.emission === null ? '' : `E${String(f.emission).padStart(4, '0')}-`
  const days = f.from || f.to ? `${f.from ?? 'start'}_${f.to ?? 'end'}-` : ''
  return emission + days
}
