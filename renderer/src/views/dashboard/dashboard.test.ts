import { describe, expect, it } from 'vitest'
import { formatPercent } from '../../format'
import { dashboardArgs, readQuery, readUnder, writeQuery } from './filters'
import { payoutTexts } from './payout'
import { claimsTable, liabilitySplit } from './liability'
import { depletionPerTierConfig, depletionPerTierFigures, salesPerDayConfig, salesPerDayFigures } from './charts'
import type { Dashboard } from '../../../../electron/contract'

const fr = (x: number, digits?: number, min?: number) => formatPercent(x, 'fr', digits, min).replace(/\u202f/g, ' ')

describe("the dashboard's payout", () => {
  it('shows the realised payout with as many decimals as the theoretical one', () => {
    expect(payoutTexts({ realisedPayout: 0.69, theoreticalPayout: 0.7199975 }, fr)).toEqual({
      realised: '69,00000 %',
      theoretical: '71,99975 %',
      digits: 5,
    })
    expect(payoutTexts({ realisedPayout: 0.6912345678, theoreticalPayout: 0.7199975 }, fr).realised).toBe('69,12346 %')
    expect(payoutTexts({ realisedPayout: 0.7, theoreticalPayout: 0.72 }, fr)).toEqual({
      realised: '70 %',
      theoretical: '72 %',
      digits: 0,
    })
  })
  it('shows no realised payout for a period without sales', () => {
    expect(payoutTexts({ realisedPayout: null, theoreticalPayout: 0.7199975 }, fr).realised).toBeNull()
  })
})

describe("the dashboard's filters in the address", () => {
  it('read back what they wrote', () => {
    const f = { emission: 3, from: '2026-03-01', to: '2026-03-10', includeDemo: true }
    expect(writeQuery(f)).toEqual({ emission: '3', from: '2026-03-01', to: '2026-03-10', demo: '1' })
    expect(readQuery(writeQuery(f) as Record<string, string>)).toEqual(f)
    expect(dashboardArgs(f)).toEqual({ includeDemo: true, emission: 3, from: '2026-03-01', to: '2026-03-10' })
    expect(dashboardArgs({ emission: null, from: null, to: null, includeDemo: false })).toEqual({ includeDemo: false })
  })
  it('tell a reading of other filters from one of these (its figures are covered until the new ones come)', () => {
    const real = { emission: null, from: null, to: null, includeDemo: false }
    expect(readUnder(real, { ...real })).toBe(true)
    expect(readUnder(real, { ...real, includeDemo: true })).toBe(false)
    expect(readUnder(real, { ...real, emission: 2 })).toBe(false)
    expect(readUnder({ ...real, from: '2026-03-01' }, { ...real, from: '2026-03-02' })).toBe(false)
  })
  it('leave out what is not a filter: a day that does not exist, a range backwards, an emission 0', () => {
    expect(readQuery({ emission: '0', from: '2026-02-30', to: '2026-03-01' })).toEqual({
      emission: null,
      from: null,
      to: '2026-03-01',
      includeDemo: false,
    })
    expect(readQuery({ from: '2026-03-10', to: '2026-03-01' })).toMatchObject({ from: null, to: null })
    expect(readQuery({ emission: ['2', '5'] })).toMatchObject({ emission: 2 })
  })
})

describe("the dashboard's charts", () => {
  const d = {
    salesPerDay: [{ day: '2026-03-01', units: 3, salesCents: 1500, prizesCents: 500 }],
    depletion: [
      { amountCents: 100, initial: 10, sold: 4, remaining: 6 },
      { amountCents: 50, initial: 20, sold: 2, remaining: 18 },
    ],
    depletionUnits: { sold: 25, total: 100 },
  } as unknown as Dashboard
  const l = {
    dark: false,
    sales: 'S',
    prizes: 'P',
    wonShare: 'W',
    soldShare: 'U',
    day: String,
    money: String,
    pct: String,
    dayColumn: 'Day',
    tierColumn: 'Tier',
  }

  it('paint each dataset in one colour, the one its legend swatch shows (not one colour per bar)', () => {
    for (const c of [salesPerDayConfig(d, l), depletionPerTierConfig(d, l)]) {
      for (const set of c.data.datasets) {
        expect(typeof set.backgroundColor, set.label).toBe('string')
        expect(set.borderColor ?? set.backgroundColor).toBe(set.backgroundColor)
      }
    }
  })
  it("draw the share of units sold of the emissions the depletion counts, beside each tier's share won", () => {
    const sets = depletionPerTierConfig(d, l).data.datasets
    expect(sets[0].data).toEqual([40, 10])
    expect(sets[1].data).toEqual([25, 25])
  })
  it('draw daily amounts as bars, never a smoothed line below 0 €, and shares on the whole 0–100 % axis', () => {
    const sales = salesPerDayConfig(d, l)
    expect(sales.data.datasets.map((set) => set.type)).toEqual(['bar', 'bar'])
    expect(sales.data.datasets.some((set) => 'tension' in set)).toBe(false)
    expect(depletionPerTierConfig(d, l).options!.scales!.y).toMatchObject({ min: 0, max: 100 })
  })
  it('give a screen reader the figures each chart draws, as a table', () => {
    expect(salesPerDayFigures(d, l)).toEqual({ columns: ['Day', 'S', 'P'], rows: [['2026-03-01', '1500', '500']] })
    // each tier's share won with its counts, beside the share of units sold (25 of 100)
    expect(depletionPerTierFigures(d, l)).toEqual({
      columns: ['Tier', 'W', 'U'],
      rows: [
        ['100', '0.4 (4 / 10)', '0.25'],
        ['50', '0.1 (2 / 20)', '0.25'],
      ],
    })
  })
})

describe("the dashboard's liability and claims", () => {
  const byStatus = [
    { status: 'pending' as const, count: 3, amountCents: 1_500_000 },
    { status: 'verified' as const, count: 1, amountCents: 500_000 },
    { status: 'approved' as const, count: 1, amountCents: 1_000_000 },
    { status: 'paid' as const, count: 2, amountCents: 2_000_000 },
    { status: 'rejected' as const, count: 1, amountCents: 500_000 },
  ]
  it('splits the liability into prizes won but not yet paid and prizes still in unsold units', () => {
    const d = { remainingLiabilityCents: 7_000_000, claims: { byStatus, unpaidCents: 3_000_000 } }
    expect(liabilitySplit(d)).toEqual({ wonUnpaidCents: 3_000_000, unsoldCents: 7_000_000, totalCents: 10_000_000 })
  })
  it('lists every status with a total line, and nothing when there is no claim', () => {
    expect(claimsTable({ byStatus, unpaidCents: 3_000_000 })).toEqual({
      rows: byStatus,
      total: { count: 8, amountCents: 5_500_000 },
    })
    expect(
      claimsTable({ byStatus: byStatus.map((t) => ({ ...t, count: 0, amountCents: 0 })), unpaidCents: 0 }),
    ).toBeNull()
  })
})
