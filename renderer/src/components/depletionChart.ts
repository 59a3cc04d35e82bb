import type { ChartConfiguration } from 'chart.js'
import type { DepletionReport } from '../../../electron/contract'

/** One colour per prize tier, largest prize first; readable on light and dark backgrounds. */
export const TIER_COLORS = ['#d4a017', '#e07b39', '#c2410c', '#7c3aed', '#2563eb', '#0891b2', '#059669', '#65a30d']

/** Options every chart here shares: drawn at once (no animation), filling its box. */
export const chartFrame = () => ({ responsive: true, maintainAspectRatio: false, animation: false as const })

/** The legend under the chart, its entries in the datasets' order (the expected line's `order` only puts it on top). */
export const legendBelow = () => ({
  position: 'bottom' as const,
  labels: {
    boxWidth: 12,
    boxHeight: 12,
    sort: (a: { datasetIndex?: number }, b: { datasetIndex?: number }) => (a.datasetIndex ?? 0) - (b.datasetIndex ?? 0),
  },
})

/**
 * The dashed grey line of what a uniform spread of prizes predicts. Chart.js draws the dataset
 * of lowest `order` last: the line stays on top of the tiers' lines and bars, which in the
 * all-tiers view all start on it and would hide it.
 */
export const EXPECTED_COLOR = '#4b5466'
export const expectedLine = () => ({
  borderColor: EXPECTED_COLOR,
  backgroundColor: EXPECTED_COLOR,
  borderDash: [7, 4],
  pointRadius: 0,
  borderWidth: 2.5,
  order: -1,
})

/** The whole axis of a share: 0 to 100 % (a fitted one ran 99,994–100,001 %, or −20 % to 120 %). */
export const WHOLE_PERCENT = { min: 0, max: 100 } as const

/**
 * The same chart with its y axis fitted to what it draws (the zoom of a zoomable chart): bars
 * still from zero, lines from their lowest point.
 */
export function fitToData<C extends ChartConfiguration>(config: C): C {
  const y = (config.options?.scales as Record<string, object> | undefined)?.y
  if (!y) return config
  const { min: _min, max: _max, suggestedMax: _sMax, suggestedMin: _sMin, ...rest } = y as Record<string, unknown>
  const fitted = { ...rest, beginAtZero: config.type === 'bar', grace: '5%' }
  return { ...config, options: { ...config.options, scales: { ...config.options!.scales, y: fitted } } } as C
}

/** A tier of at most this many prizes is drawn on an axis from 0 to its count, one tick per prize. */
export const SMALL_TIER = 10

/** The count axis of one tier: whole prizes from 0 to its count; a small tier with a tick each (0 1 2 3). */
function countAxis(initial: number) {
  return initial <= SMALL_TIER
    ? { min: 0, max: Math.max(initial, 1), ticks: { stepSize: 1, precision: 0 } }
    : { min: 0, max: initial, ticks: { precision: 0 } }
}

/** A chart's figures as a table (first column: what the x axis counts), for those who cannot see the chart. */
export interface ChartFigures {
  columns: string[]
  rows: string[][]
}

/** What a uniform spread of prizes predicts is left of `initial` once `sold` units are sold. */
export function expectedRemaining(r: DepletionReport, initial: number, sold: number): number {
  return r.unitsTotal > 0 ? initial * (1 - sold / r.unitsTotal) : initial
}

export interface DepletionLabels {
  tier: (amountCents: number) => string
  expected: string
  xAxis: string
  yAxis: string
  int: (n: number) => string
  /** A share as a percentage; with `digits`, exactly that many decimals (the ticks: as many as their step needs, so that no two read alike). */
  pct: (x: number, digits?: number) => string
}

/**
 * Remaining prizes against units sold. With `tier` null every tier is drawn as a share of its
 * initial count, so all fit one axis and the expected line is the same diagonal for all;
 * with a tier chosen, its counts are drawn against its own expected line.
 */
export function depletionConfig(
  r: DepletionReport,
  tier: number | null,
  l: DepletionLabels,
): ChartConfiguration<'line'> {
  const xs = r.series.map((p) => p.unitsSold)
  const last = xs.length ? xs[xs.length - 1] : 0
  const ends = [0, Math.max(last, 1)]
  const expectedAt = (initial: number, sold: number) => expectedRemaining(r, initial, sold)

  const datasets: ChartConfiguration<'line'>['data']['datasets'] = []
  if (tier === null) {
    r.tiers.forEach((t, i) => {
      datasets.push({
        label: l.tier(t.amountCents),
        data: r.series.map((p) => ({ x: p.unitsSold, y: t.initial > 0 ? (p.remaining[i] / t.initial) * 100 : 0 })),
        borderColor: TIER_COLORS[i % TIER_COLORS.length],
        backgroundColor: TIER_COLORS[i % TIER_COLORS.length],
        pointRadius: 0,
        borderWidth: 2,
        stepped: t.initial < 50,
      })
    })
    datasets.push({ label: l.expected, data: ends.map((x) => ({ x, y: expectedAt(100, x) })), ...expectedLine() })
  } else {
    const t = r.tiers[tier]
    const color = TIER_COLORS[tier % TIER_COLORS.length]
    datasets.push({
      label: l.tier(t.amountCents),
      data: r.series.map((p) => ({ x: p.unitsSold, y: p.remaining[tier] })),
      borderColor: color,
      backgroundColor: color + '22',
      fill: 'origin',
      pointRadius: 0,
      borderWidth: 2,
      stepped: t.initial < 50,
    })
    datasets.push({ label: l.expected, data: ends.map((x) => ({ x, y: expectedAt(t.initial, x) })), ...expectedLine() })
  }

  return {
    type: 'line',
    data: { datasets },
    options: {
      ...chartFrame(),
      parsing: false,
      interaction: { mode: 'nearest', axis: 'x', intersect: false },
      scales: {
        x: {
          type: 'linear',
          min: 0,
          max: ends[1],
          title: { display: true, text: l.xAxis },
          ticks: { precision: 0, callback: (v) => l.int(Number(v)) },
        },
        // The whole axis; the screen's zoom fits it to the lines (early in a block the gaps are a few percent).
        y:
          tier === null
            ? {
                type: 'linear',
                ...WHOLE_PERCENT,
                title: { display: true, text: l.yAxis },
                ticks: { callback: (v, _i, ticks) => l.pct(Number(v) / 100, stepDecimals(ticks)) },
              }
            : {
                type: 'linear',
                title: { display: true, text: l.yAxis },
                ...mergeTicks(countAxis(r.tiers[tier].initial), (v) => l.int(Number(v))),
              },
      },
      plugins: {
        legend: legendBelow(),
        tooltip: {
          callbacks: {
            title: (items) => `${l.xAxis}: ${l.int(Number(items[0]?.parsed.x ?? 0))}`,
            label: (item) =>
              `${item.dataset.label}: ${tier === null ? l.pct(Number(item.parsed.y) / 100) : l.int(Math.round(Number(item.parsed.y)))}`,
          },
        },
      },
    },
  }
}

function mergeTicks<A extends { ticks: object }>(axis: A, callback: (v: number | string) => string) {
  return { ...axis, ticks: { ...axis.ticks, callback } }
}

/** The decimals of a percentage axis's labels: as many as the step between its ticks needs (99,75 % beside 99,8 %, not 99,8 % twice). */
export function stepDecimals(ticks: { value: number }[]): number {
  const step = ticks.length > 1 ? Math.abs(ticks[1].value - ticks[0].value) : 1
  for (let d = 0; d < 4; d++) if (Math.abs(Math.round(step * 10 ** d) - step * 10 ** d) < 1e-6) return d
  return 4
}

/** The depletion chart's figures: at each point of the series, what is left of each tier drawn and what was expected. */
export function depletionFigures(r: DepletionReport, tier: number | null, l: DepletionLabels): ChartFigures {
  if (tier === null) {
    return {
      columns: [l.xAxis, ...r.tiers.map((t) => l.tier(t.amountCents)), l.expected],
      rows: r.series.map((p) => [
        l.int(p.unitsSold),
        ...r.tiers.map((t, i) => l.pct(t.initial > 0 ? p.remaining[i] / t.initial : 0, 1)),
        l.pct(expectedRemaining(r, 1, p.unitsSold), 1),
      ]),
    }
  }
  const t = r.tiers[tier]
  return {
    columns: [l.xAxis, l.tier(t.amountCents), l.expected],
    rows: r.series.map((p) => [
      l.int(p.unitsSold),
      l.int(p.remaining[tier]),
      l.int(Math.round(expectedRemaining(r, t.initial, p.unitsSold))),
    ]),
  }
}
