import { describe, expect, it } from 'vitest'
import type {
  LiabilityBlock,
  LiabilityEmission,
  LiabilityFigures,
  LiabilityReport,
} from '../../../../electron/contract/liability-types'
import { gapsOf, initiallyExpanded, liabilityRows, noticeType, partOf, PARTS, shownParts } from './rows'

function figures(more: Partial<LiabilityFigures> = {}): LiabilityFigures {
  return {
    wonCents: 600,
    creditedCents: 100,
    paidCents: 200,
    outstandingCents: 150,
    expiredCents: 50,
    voidCents: 100,
    unsoldCents: 400,
    tableCents: 1_000,
    gapCents: 0,
    claims: { paid: 2, outstanding: 3, expired: 1, void: 1 },
    ...more,
  }
}
function block(no: number, gap = 0): LiabilityBlock {
  const tier = (n: number, g = 0) => ({
    tier: n,
    amountCents: n * 100,
    units: 10,
    sold: 4,
    claimed: n > 1,
    figures: figures({ gapCents: g }),
  })
  return { block: no, figures: figures({ gapCents: gap }), tiers: [tier(1), tier(2, gap)] }
}
function emission(blocks: LiabilityBlock[], no = 1): LiabilityEmission {
  return {
    emission: no,
    code: `E${no}`,
    demo: false,
    status: 'open',
    claimThresholdCents: 200,
    claimDays: 30,
    claimDeadline: null,
    figures: figures(),
    blocks,
  }
}
function report(emissions: LiabilityEmission[], balanced = true): LiabilityReport {
  return {
    asOf: '2026-01-01T00:00:00.000Z',
    day: null,
    emission: null,
    includeDemo: false,
    emissions,
    total: figures(),
    balanced,
  }
}

describe('the lines of an emission’s liability', () => {
  it('lists each block, its tiers below it when opened, and a total when there are several blocks', () => {
    const e = emission([block(1), block(2)])
    expect(liabilityRows(e, new Set()).map((r) => r.key)).toEqual(['b1', 'b2', 'total'])
    const rows = liabilityRows(e, new Set([2]))
    expect(rows.map((r) => r.key)).toEqual(['b1', 'b2', 'b2t1', 'b2t2', 'total'])
    expect(rows.map((r) => r.kind)).toEqual(['block', 'block', 'tier', 'tier', 'total'])
    expect(rows[1]).toMatchObject({ kind: 'block', block: 2, expanded: true })
    expect(rows[0]).toMatchObject({ kind: 'block', block: 1, expanded: false })
    // a tier's line carries its own figures and the tier (amount, sold, claimed in person)
    expect(rows[3]).toMatchObject({ kind: 'tier', block: 2, tier: { tier: 2, claimed: true } })
    expect(rows[4].figures).toBe(e.figures)
  })

  it('gives an emission of one block no total line (it would repeat the block), and opens that block at first', () => {
    const e = emission([block(1)])
    expect(initiallyExpanded(e)).toEqual(new Set([1]))
    expect(liabilityRows(e, initiallyExpanded(e)).map((r) => r.key)).toEqual(['b1', 'b1t1', 'b1t2'])
    expect(initiallyExpanded(emission([block(1), block(2)]))).toEqual(new Set())
    expect(liabilityRows(emission([]), new Set())).toEqual([])
  })
})

describe('the parts of a line', () => {
  it('follow the identity’s order, each with the claims it counts', () => {
    const f = figures()
    expect(PARTS.map((p) => partOf(f, p))).toEqual([
      { cents: 100, claims: null },
      { cents: 200, claims: 2 },
      { cents: 150, claims: 3 },
      { cents: 50, claims: 1 },
      { cents: 100, claims: 1 },
      { cents: 400, claims: null },
      { cents: 1_000, claims: null },
      { cents: 0, claims: null },
    ])
    // the six parts make the prize table
    const six = PARTS.slice(0, 6).reduce((n, p) => n + partOf(f, p).cents, 0)
    expect(six).toBe(partOf(f, 'table').cents)
  })

  it('show the gap only when the accounts do not hold', () => {
    expect(shownParts(true)).not.toContain('gap')
    expect(shownParts(false)).toEqual([...PARTS])
  })
})

describe('the gaps named by the warning', () => {
  it('names each block whose parts or tiers do not add up, with its gap', () => {
    expect(gapsOf(report([emission([block(1), block(2)])]))).toEqual([])
    const r = report([emission([block(1), block(2, -500)]), emission([block(1, 300)], 3)], false)
    expect(gapsOf(r)).toEqual([
      { emission: 1, block: 2, gapCents: -500 },
      { emission: 3, block: 1, gapCents: 300 },
    ])
    // a tier out of step in a block whose total happens to hold is named too
    const offsetting = block(4)
    offsetting.tiers[0].figures.gapCents = 100
    offsetting.tiers[1].figures.gapCents = -100
    expect(gapsOf(report([emission([offsetting])], false))).toEqual([{ emission: 1, block: 4, gapCents: 0 }])
  })
})

describe('a deadline notice’s colour', () => {
  it('grows more urgent from a month to a week to a day', () => {
    expect([30, 7, 1].map((n) => noticeType(n as 30 | 7 | 1))).toEqual(['info', 'warning', 'error'])
  })
})
