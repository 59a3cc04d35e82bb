import type { ChartConfiguration } from 'chart.js'
import type { Dashboard } from '../../../../electron/contract'
import { TIER_COLORS, chartFrame, expectedLine, legendBelow } from '../../components/depletionChart'

export interface DashboardLabels {
  dark: boolean
  sales: string
  prizes: string
  wonShare: string
  soldShare: string
  day: (d: string) => string
  money: (cents: number) => string
  pct: (x: number) => string
}

export function salesPerDayConfig(d: Dashboard, l: DashboardLabels): ChartConfiguration<'bar' | 'line'> {
  return {
    type: 'bar',
    data: {
      labels: d.salesPerDay.map((x) => l.day(x.day)),
      datasets: [
        { type: 'bar', label: l.sales, data: d.salesPerDay.map((x) => x.salesCents), backgroundColor: l.dark ? 'rgba(111, 156, 245, 0.8)' : 'rgba(31, 87, 195, 0.75)', borderRadius: 3 },
        { type: 'line', label: l.prizes, data: d.salesPerDay.map((x) => x.prizesCents), borderColor: '#d4a017', backgroundColor: '#d4a017', pointRadius: 2, borderWidth: 2, tension: 0.25 },
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

/** Share of each tier already won, beside the share of units sold that a uniform spread predicts. */
export function depletionPerTierConfig(d: Dashboard, soldShare: number, l: DashboardLabels): ChartConfiguration<'bar' | 'line'> {
  return {
    type: 'bar',
    data: {
      labels: d.depletion.map((x) => l.money(x.amountCents)),
      datasets: [
        {
          type: 'bar',
          label: l.wonShare,
          data: d.depletion.map((x) => (x.initial ? (x.sold / x.initial) * 100 : 0)),
          backgroundColor: d.depletion.map((_, i) => TIER_COLORS[i % TIER_COLORS.length]),
          borderRadius: 3,
        },
        { type: 'line', label: l.soldShare, data: d.depletion.map(() => soldShare * 100), ...expectedLine() },
      ],
    },
    options: {
      ...chartFrame(),
      scales: { y: { beginAtZero: true, suggestedMax: Math.min(100, Math.max(1, soldShare * 200)), ticks: { callback: (v) => l.pct(Number(v) / 100) } } },
      plugins: {
        legend: legendBelow(),
        tooltip: {
          callbacks: {
            label: (i) => {
              const row = d.depletion[i.dataIndex]
              return i.datasetIndex === 0 ? `${l.wonShare}: ${l.pct(Number(i.parsed.y) / 100)} (${row.sold} / ${row.initial})` : `${l.soldShare}: ${l.pct(Number(i.parsed.y) / 100)}`
            },
          },
        },
      },
    },
  }
}
