import { describe, expect, it } from 'vitest'
import { depletionConfig, depletionFigures, fitToData, SMALL_TIER, stepDecimals, WHOLE_PERCENT } from './depletionChart'
import type { DepletionReport } from '../../../electron/contract'

const report: DepletionReport = {
  emission: 1,
  block: 1,
  unitsTotal: 1000,
  unitsSold: 500,
  tiers: [
    { amountCents: 100_000, initial: 10, sold: 6, remaining: 4 },
    { amountCents: 500, initial: 200, sold: 100, remaining: 100 },
  ],
  series: [
    { unitsSold: 0, remaining: [10, 200] },
    { unitsSold: 250, remaining: [7, 150] },
    { unitsSold: 500, remaining: [4, 100] },
  ],
  asOf: '2026-01-01T00:00:00Z',
}
const labels = {
  tier: (c: number) => `${c / 100} €`,
  expected: 'Expected',
  xAxis: 'Units sold',
  yAxis: 'Remaining',
  int: String,
  pct: String,
}

describe('depletion chart', () => {
  it('draws every tier as a share of its initial count, with one expected diagonal', () => {
    const c = depletionConfig(report, null, labels)
    const sets = c.data.datasets
    expect(sets.map((d) => d.label)).toEqual(['1000 €', '5 €', 'Expected'])
    expect(sets[0].data).toEqual([
      { x: 0, y: 100 },
      { x: 250, y: 70 },
      { x: 500, y: 40 },
    ])
    expect(sets[2].data).toEqual([
      { x: 0, y: 100 },
      { x: 500, y: 50 },
    ])
  })
  it('draws one tier in counts against its own expected line', () => {
    const c = depletionConfig(report, 1, labels)
    expect(c.data.datasets[0].data).toEqual([
      { x: 0, y: 200 },
      { x: 250, y: 150 },
      { x: 500, y: 100 },
    ])
    expect(c.data.datasets[1].data).toEqual([
      { x: 0, y: 200 },
      { x: 500, y: 100 },
    ])
  })
  it('draws the expected line above the tiers, in the all-tiers view as in one tier', () => {
    for (const tier of [null, 0, 1]) {
      const sets = depletionConfig(report, tier, labels).data.datasets
      const expected = sets.find((d) => d.label === 'Expected')!
      // chart.js draws the dataset of lowest order last, on top of the others
      for (const d of sets.filter((x) => x !== expected)) expect(expected.order ?? 0).toBeLessThan(d.order ?? 0)
      expect(expected.borderWidth).toBeGreaterThanOrEqual(2)
    }
  })
  it('counts a small tier in whole prizes: a tier of 3 has the ticks 0 1 2 3, not 2 2 2 2', () => {
    const small: DepletionReport = {
      ...report,
      tiers: [{ amountCents: 50_000_000, initial: 3, sold: 1, remaining: 2 }],
      series: [
        { unitsSold: 0, remaining: [3] },
        { unitsSold: 500, remaining: [2] },
      ],
    }
    const y = depletionConfig(small, 0, labels).options!.scales!.y as {
      min?: number
      max?: number
      ticks: { stepSize?: number; precision?: number }
    }
    expect(y).toMatchObject({ min: 0, max: 3, ticks: { stepSize: 1, precision: 0 } })
    // a large tier on its whole axis, 0 to its count, still in whole prizes; the zoom fits it to the line
    const largeConfig = depletionConfig(report, 1, labels)
    const large = largeConfig.options!.scales!.y as {
      min?: number
      max?: number
      ticks: { stepSize?: number; precision?: number }
    }
    expect(large).toMatchObject({ min: 0, max: report.tiers[1].initial })
    expect(large.ticks).toMatchObject({ precision: 0 })
    const fitted = fitToData(largeConfig).options!.scales!.y as Record<string, unknown>
    expect(fitted.min).toBeUndefined()
    expect(fitted.max).toBeUndefined()
    expect(fitted).toMatchObject({ beginAtZero: false, ticks: { precision: 0 } })
    expect(large.ticks.stepSize).toBeUndefined()
    expect(SMALL_TIER).toBeGreaterThanOrEqual(3)
    // units sold are whole too
    expect(
      (depletionConfig(small, 0, labels).options!.scales!.x as { ticks: { precision?: number } }).ticks.precision,
    ).toBe(0)
  })
  it('labels the all-tiers percentages with the decimals their step needs, so that no two ticks read alike', () => {
    expect(stepDecimals([99.7, 99.75, 99.8].map((value) => ({ value })))).toBe(2)
    expect(stepDecimals([0, 20, 40].map((value) => ({ value })))).toBe(0)
    expect(stepDecimals([99.8, 99.9, 100].map((value) => ({ value })))).toBe(1)
    const pct = (x: number, digits?: number) => `${(x * 100).toFixed(digits ?? 1)} %`
    const y = depletionConfig(report, null, { ...labels, pct }).options!.scales!.y as {
      ticks: { callback: (v: number, i: number, t: { value: number }[]) => string }
    }
    const ticks = [99.7, 99.75, 99.8, 99.85, 99.9, 99.95, 100].map((value) => ({ value }))
    const texts = ticks.map((t, i) => y.ticks.callback(t.value, i, ticks))
    expect(new Set(texts).size).toBe(ticks.length)
    expect(texts[1]).toBe('99.75 %')
  })
})

describe("depletion chart's figures (its text alternative)", () => {
  const pct = (x: number, digits?: number) => `${(x * 100).toFixed(digits ?? 0)}%`
  it('lists, at each point sold, every tier’s share left and the expected share', () => {
    expect(depletionFigures(report, null, { ...labels, pct })).toEqual({
      columns: ['Units sold', '1000 €', '5 €', 'Expected'],
      rows: [
        ['0', '100.0%', '100.0%', '100.0%'],
        ['250', '70.0%', '75.0%', '75.0%'],
        ['500', '40.0%', '50.0%', '50.0%'],
      ],
    })
  })
  it('lists one tier in counts beside the count a uniform spread predicts', () => {
    expect(depletionFigures(report, 0, labels)).toEqual({
      columns: ['Units sold', '1000 €', 'Expected'],
      rows: [
        ['0', '10', '10'],
        ['250', '7', '8'],
        ['500', '4', '5'],
      ],
    })
  })
})

describe('charts that do not mislead', () => {
  it('draws every tier of a block on the whole axis, 0 to 100 %, and zooms on the lines only when asked', () => {
    const y = depletionConfig(report, null, labels).options!.scales!.y as Record<string, unknown>
    expect(y).toMatchObject(WHOLE_PERCENT)
    const fitted = fitToData(depletionConfig(report, null, labels)).options!.scales!.y as Record<string, unknown>
    expect(fitted).toMatchObject({ beginAtZero: false, grace: '5%' })
    expect(fitted.min).toBeUndefined()
  })
})
