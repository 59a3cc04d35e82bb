import { describe, expect, it } from 'vitest'
import { depletionConfig } from './depletionChart'
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
const labels = { tier: (c: number) => `${c / 100} €`, expected: 'Expected', xAxis: 'Units sold', yAxis: 'Remaining', int: String, pct: String }

describe('depletion chart', () => {
  it('draws every tier as a share of its initial count, with one expected diagonal', () => {
    const c = depletionConfig(report, null, labels)
    const sets = c.data.datasets
    expect(sets.map((d) => d.label)).toEqual(['1000 €', '5 €', 'Expected'])
    expect(sets[0].data).toEqual([{ x: 0, y: 100 }, { x: 250, y: 70 }, { x: 500, y: 40 }])
    expect(sets[2].data).toEqual([{ x: 0, y: 100 }, { x: 500, y: 50 }])
  })
  it('draws one tier in counts against its own expected line', () => {
    const c = depletionConfig(report, 1, labels)
    expect(c.data.datasets[0].data).toEqual([{ x: 0, y: 200 }, { x: 250, y: 150 }, { x: 500, y: 100 }])
    expect(c.data.datasets[1].data).toEqual([{ x: 0, y: 200 }, { x: 500, y: 100 }])
  })
})
