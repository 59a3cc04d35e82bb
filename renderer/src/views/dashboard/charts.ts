import type { ChartConfiguration } from 'chart.js'
import type { Dashboard } from '../../../../electron/contract'
import {
  chartFrame,
  expectedLine,
  legendBelow,
  stepDecimals,
  WHOLE_PERCENT,
  type ChartFigures,
} from '../../components/depletionChart'

export interface DashboardLabels {
  dark: boolean
  sales: string
  prizes: string
  wonShare: string
  soldShare: string
  day: (d: string) => string
  money: (cents: number) => string
  /** A share; with `digits`, exactly that many decimals (an axis's ticks: as many as their step needs). */
  pct: (x: number, digits?: number) => string
  /** Headers of the first column of the charts' tables. */
  dayColumn: string
  tierColumn: string
}

export function salesPerDayConfig(d: Dashboard, l: DashboardLabels): ChartConfiguration<'bar' | 'line'> {
  return {
    type: 'bar',
    data: {
      labels: d.salesPerDay.map((x) => l.day(x.day)),
      datasets: [
        {
          type: 'bar',
          label: l.sales,
          data: d.salesPerDay.map((x) => x.salesCents),
          backgroundColor: salesColor(l.dark),
          borderColor: salesColor(l.dark),
          borderRadius: 3,
        },
        {
          // bars, as the sales: a day's amount (a smoothed line once dipped below 0 €)
          type: 'bar',
          label: l.prizes,
          data: d.salesPerDay.map((x) => x.prizesCents),
          backgroundColor: PRIZES_COLOR,
          borderColor: PRIZES_COLOR,
          borderRadius: 3,
        },
      ],
    },
    options: {
      ...chartFrame(),
      interaction: { mode: 'index', intersect: false },
      scales: { y: { beginAtZero: true, ticks: { callback: (v) => l.money(Number(v)) } } },
      plugins: {
        legend: legendBelow(),
        tooltip: { callbacks: { label: (i) => `${i.dataset.label}: ${l.money(Number(i.parsed.y))}` } },
      },
    },
  }
}

/** The colours of the sales bars and of the tiers' share won: one per dataset, so that the legend's swatch is the bars' colour. */
export const salesColor = (dark: boolean) => (dark ? 'rgba(111, 156, 245, 0.8)' : 'rgba(31, 87, 195, 0.75)')
/** The prizes' bars, beside the sales'. */
export const PRIZES_COLOR = '#d4a017'
export const WON_COLOR = '#c2410c'

/** The share of units sold of the emissions the depletion counts: what a uniform spread of prizes predicts each tier's share won to be. */
export const soldShareOf = (d: Dashboard) =>
  d.depletionUnits.total > 0 ? d.depletionUnits.sold / d.depletionUnits.total : 0

/** Share of each tier already won (the tier named on the axis), beside the share of units sold that a uniform spread predicts. */
export function depletionPerTierConfig(d: Dashboard, l: DashboardLabels): ChartConfiguration<'bar' | 'line'> {
  const soldShare = soldShareOf(d)
  return {
    type: 'bar',
    data: {
      labels: d.depletion.map((x) => l.money(x.amountCents)),
      datasets: [
        {
          type: 'bar',
          label: l.wonShare,
          data: d.depletion.map((x) => (x.initial ? (x.sold / x.initial) * 100 : 0)),
          backgroundColor: WON_COLOR,
          borderColor: WON_COLOR,
          borderRadius: 3,
        },
        { type: 'line', label: l.soldShare, data: d.depletion.map(() => soldShare * 100), ...expectedLine() },
      ],
    },
    options: {
      ...chartFrame(),
      scales: {
        // the whole axis (0–1 % showed nothing early on); the screen's zoom fits it to the bars
        y: { ...WHOLE_PERCENT, ticks: { callback: (v, _i, ticks) => l.pct(Number(v) / 100, stepDecimals(ticks)) } },
      },
      plugins: {
        legend: legendBelow(),
        tooltip: {
          callbacks: {
            label: (i) => {
              const row = d.depletion[i.dataIndex]
              return i.datasetIndex === 0
                ? `${l.wonShare}: ${l.pct(Number(i.parsed.y) / 100)} (${row.sold} / ${row.initial})`
                : `${l.soldShare}: ${l.pct(Number(i.parsed.y) / 100)}`
            },
          },
        },
      },
    },
  }
}

/** The sales chart's figures: each day's sales and prizes. */
export function salesPerDayFigures(d: Dashboard, l: DashboardLabels): ChartFigures {
  return {
    columns: [l.dayColumn, l.sales, l.prizes],
    rows: d.salesPerDay.map((x) => [l.day(x.day), l.money(x.salesCents), l.money(x.prizesCents)]),
  }
}

/** The depletion chart's figures: each tier's share won (with its counts) beside the share of units sold. */
export function depletionPerTierFigures(d: Dashboard, l: DashboardLabels): ChartFigures {
  const sold = l.pct(soldShareOf(d))
  return {
    columns: [l.tierColumn, l.wonShare, l.soldShare],
    rows: d.depletion.map((x) => [
      l.money(x.amountCents),
      `${l.pct(x.initial ? x.sold / x.initial : 0)} (${x.sold} / ${x.initial})`,
      sold,
    ]),
  }
}
