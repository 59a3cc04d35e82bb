/**
 * Statistical properties of a block (SPEC §4): winners spread uniformly, no correlation between
 * neighbours, decoy amounts that say nothing of the outcome. Every test uses a FIXED secret, so
 * the results are reproducible, and the significance level ALPHA = 1e-4 (a sound derivation
 * fails one of these tests with probability about 1e-4 per test, for a given secret: never,
 * since the secret is fixed; a broken one fails with certainty).
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { nodePrimitives } from '../electron/crypto/node-primitives'
import { BlockDeriver, LOSING, recordBytes } from './block'
import { CARATS } from './carats'
import { chiSquareContingency, chiSquareGoodnessOfFit, chiSquareSurvival, gammaQ, lnGamma } from '../test/support/stats'
import { fixedSecret } from '../test/support/game-fixtures'

const ALPHA = 1e-4
const N = CARATS.blockSize
const SEGMENTS = 1000
const SEGMENT = N / SEGMENTS // 8,016 units

describe('the chi-square survival function (self-check)', () => {
  it('matches closed forms: Q(1, x) = e^-x; for 2 dof e^(-x/2); for 4 dof e^(-x/2)(1 + x/2)', () => {
    for (const x of [0.01, 0.5, 1, 2, 5, 20, 80]) {
      expect(gammaQ(1, x)).toBeCloseTo(Math.exp(-x), 12)
      expect(chiSquareSurvival(x, 2)).toBeCloseTo(Math.exp(-x / 2), 12)
      expect(chiSquareSurvival(x, 4) / (Math.exp(-x / 2) * (1 + x / 2))).toBeCloseTo(1, 10)
    }
    expect(chiSquareSurvival(0, 5)).toBe(1)
  })

  it('matches table values (both the series and the continued-fraction branches)', () => {
    const table: [x: number, dof: number, p: number][] = [
      [3.841458820694124, 1, 0.05],
      [6.6348966010212145, 1, 0.01],
      [15.136705226623606, 1, 1e-4],
      [18.307038053275146, 10, 0.05],
      [4.865182051705137, 10, 0.9],
      [1073.6426506574246, 999, 0.05],
      [0.454936423119572, 1, 0.5],
    ]
    for (const [x, dof, p] of table) expect(chiSquareSurvival(x, dof) / p, `x=${x}, dof=${dof}`).toBeCloseTo(1, 6)
  })

  it('lnGamma is right at whole and half numbers', () => {
    expect(lnGamma(1)).toBeCloseTo(0, 12)
    expect(lnGamma(10)).toBeCloseTo(Math.log(362_880), 10)
    expect(lnGamma(0.5)).toBeCloseTo(Math.log(Math.sqrt(Math.PI)), 12)
    expect(lnGamma(500.5) - lnGamma(499.5)).toBeCloseTo(Math.log(499.5), 9)
  })
})

/** Units per (segment, tier code), in one pass over the table. */
function codeCountsBySegment(tiers: Uint8Array, segments: number): Int32Array {
  const size = tiers.length / segments
  const counts = new Int32Array(segments * 256)
  for (let s = 0; s < segments; s++) {
    const base = s * 256
    for (let u = s * size, end = u + size; u < end; u++) counts[base + tiers[u]]++
  }
  return counts
}

/** Units of a tier group per segment, as a 2 × segments contingency table (in the group / not). */
function segmentTable(counts: Int32Array, inGroup: (code: number) => boolean, segments: number): number[][] {
  const fine = counts.length / 256
  const per = fine / segments
  const codes = Array.from({ length: 256 }, (_, c) => c).filter(inGroup)
  const hit = new Array<number>(segments).fill(0)
  const all = new Array<number>(segments).fill(0)
  for (let s = 0; s < fine; s++) {
    const S = Math.floor(s / per)
    for (const c of codes) hit[S] += counts[s * 256 + c]
    for (let c = 0; c < 256; c++) all[S] += counts[s * 256 + c]
  }
  return [hit, all.map((a, i) => a - hit[i])]
}

/** Pairs (unit, unit + 1) by outcome group: a groups × groups table. */
function neighbourTable(group: Uint8Array, groups: number): number[][] {
  const flat = new Int32Array(groups * groups)
  for (let u = 0; u + 1 < group.length; u++) flat[group[u] * groups + group[u + 1]]++
  return Array.from({ length: groups }, (_, i) => Array.from(flat.subarray(i * groups, (i + 1) * groups)))
}

describe(`one whole CARATS block's outcomes (fixed secret, alpha = ${ALPHA})`, () => {
  let tiers: Uint8Array
  let counts: Int32Array
  /** 0 losing, 1 for ≥ 100 EUR, then 50, 15, 10, 5 EUR */
  let group: Uint8Array
  let win: Uint8Array
  const amountCode = (euros: number) => CARATS.tiers.findIndex((t) => t.amountCents === euros * 100)
  const groupOf = (c: number) => (c === LOSING ? 0 : c <= amountCode(100) ? 1 : c - amountCode(100) + 1)

  beforeAll(() => {
    tiers = new BlockDeriver(CARATS, nodePrimitives, { emission: 1, block: 1, secret: fixedSecret('statistics') }).tiers
    counts = codeCountsBySegment(tiers, SEGMENTS)
    const codeGroup = Uint8Array.from({ length: 256 }, (_, c) => groupOf(c))
    group = tiers.map((c) => codeGroup[c])
    win = tiers.map((c) => (c === LOSING ? 0 : 1))
  }, 120_000)

  const groups: [string, (c: number) => boolean, number][] = [
    ['all winners', (c) => c !== LOSING, SEGMENTS],
    ['5 EUR winners', (c) => c === amountCode(5), SEGMENTS],
    ['10 EUR winners', (c) => c === amountCode(10), SEGMENTS],
    ['15 EUR winners', (c) => c === amountCode(15), SEGMENTS],
    ['50 EUR winners', (c) => c === amountCode(50), SEGMENTS], // 40 expected per segment
    ['100 EUR winners', (c) => c === amountCode(100), SEGMENTS],
    ['1,000 EUR and larger winners', (c) => c <= amountCode(1000), 100], // 10 expected per segment
  ]

  for (const [name, inGroup, segments] of groups) {
    it(`${name} are spread uniformly over ${segments} equal segments (chi-square homogeneity, ${segments - 1} dof, alpha = ${ALPHA})`, () => {
      const table = segmentTable(counts, inGroup, segments)
      const expectedTotal = CARATS.tiers.reduce((a, t, i) => a + (inGroup(i) ? t.count : 0), 0)
      expect(table[0].reduce((a, b) => a + b, 0)).toBe(expectedTotal)
      const test = chiSquareContingency(table)
      expect(test.dof).toBe(segments - 1)
      expect(test.pValue, `chi2 = ${test.statistic.toFixed(1)}`).toBeGreaterThan(ALPHA)
    })
  }

  it(`the tier mix is the same in every segment (segments × 6 outcome groups, alpha = ${ALPHA})`, () => {
    const table = Array.from({ length: 6 }, (_, g) => segmentTable(counts, (c) => groupOf(c) === g, SEGMENTS)[0])
    const test = chiSquareContingency(table)
    expect(test.dof).toBe(5 * (SEGMENTS - 1))
    expect(test.pValue).toBeGreaterThan(ALPHA)
  })

  it('the uniformity test does reject clustered winners (the test can fail)', () => {
    const laidOut = new Uint8Array(N).fill(LOSING)
    laidOut.fill(0, 0, 2_055_464)
    expect(
      chiSquareContingency(segmentTable(codeCountsBySegment(laidOut, SEGMENTS), (c) => c !== LOSING, SEGMENTS)).pValue,
    ).toBeLessThan(ALPHA)
    // mild clustering: 100 more winners in each of the first 100 segments, 100 fewer in the last 100
    const nudged = Uint8Array.from(tiers)
    for (let s = 0; s < 100; s++) {
      let moved = 0
      for (let u = s * SEGMENT; moved < 100; u++)
        if (nudged[u] === LOSING) {
          nudged[u] = 7
          moved++
        }
      moved = 0
      for (let u = (SEGMENTS - 1 - s) * SEGMENT; moved < 100; u++)
        if (nudged[u] !== LOSING) {
          nudged[u] = LOSING
          moved++
        }
    }
    expect(
      chiSquareContingency(segmentTable(codeCountsBySegment(nudged, SEGMENTS), (c) => c !== LOSING, SEGMENTS)).pValue,
    ).toBeLessThan(ALPHA)
  })

  it(`a unit's outcome is independent of its neighbour's: 2 × 2 win(i) vs win(i+1), chi-square 1 dof, alpha = ${ALPHA}`, () => {
    const test = chiSquareContingency(neighbourTable(win, 2))
    expect(test.dof).toBe(1)
    expect(test.pValue).toBeGreaterThan(ALPHA)
  })

  it(`a unit's tier is independent of its neighbour's tier (6 × 6 outcome groups, 25 dof, alpha = ${ALPHA})`, () => {
    const test = chiSquareContingency(neighbourTable(group, 6))
    expect(test.dof).toBe(25)
    expect(test.pValue).toBeGreaterThan(ALPHA)
  })

  const lagStatistic = (x: Uint8Array, k: number) => {
    let ones = 0
    for (let u = 0; u < x.length; u++) ones += x[u]
    let both = 0
    for (let u = 0; u + k < x.length; u++) both += x[u] & x[u + k]
    const p = ones / x.length
    const r = (both / (x.length - k) - p * p) / (p * (1 - p))
    return { r, statistic: (x.length - k) * r * r }
  }

  for (const k of [1, 2, 3, 7, 128, 1000]) {
    it(`lag-${k} autocorrelation of win/lose is zero (N·r² against chi-square 1 dof, alpha = ${ALPHA})`, () => {
      const { r, statistic } = lagStatistic(win, k)
      expect(chiSquareSurvival(statistic, 1), `r = ${r}`).toBeGreaterThan(ALPHA)
    })
  }

  it('the neighbour tests do reject correlated neighbours (the tests can fail)', () => {
    // In the first tenth of the block, every odd unit copies the outcome of the unit before it.
    const paired = Uint8Array.from(win)
    for (let u = 0; u + 1 < N / 10; u += 2) paired[u + 1] = paired[u]
    expect(chiSquareContingency(neighbourTable(paired, 2)).pValue).toBeLessThan(ALPHA)
    expect(chiSquareSurvival(lagStatistic(paired, 1).statistic, 1)).toBeLessThan(ALPHA)
  })
})

describe(`what units show (300,000 CARATS units, fixed secret, alpha = ${ALPHA})`, () => {
  const UNITS = 300_000
  const W = CARATS.winningCells
  const Y = CARATS.yoursCells
  const A = CARATS.printableAmountsCents.length
  // counts[row][amount index]: decoy cells of losing units, decoy cells of winning units, matching cells
  const decoys = [new Array<number>(A).fill(0), new Array<number>(A).fill(0)]
  const matched = new Array<number>(A).fill(0)
  const matchCell = new Array<number>(Y).fill(0)
  const winningNumber = new Map<number, number>()
  let winners = 0

  beforeAll(() => {
    const d = new BlockDeriver(CARATS, nodePrimitives, {
      emission: 1,
      block: 2,
      secret: fixedSecret('statistics-content'),
    })
    const rb = recordBytes(CARATS)
    const rec = d.records(2_000_000, UNITS)
    for (let i = 0; i < UNITS; i++) {
      const o = i * rb
      const win = new Set<number>()
      for (let j = 0; j < W; j++) {
        const n = rec[o + 8 + j]
        win.add(n)
        winningNumber.set(n, (winningNumber.get(n) ?? 0) + 1)
      }
      const isWinner = rec[o + 8 + W + 2 * Y] !== LOSING
      if (isWinner) winners++
      for (let j = 0; j < Y; j++) {
        const amount = rec[o + 8 + W + Y + j]
        if (win.has(rec[o + 8 + W + j])) {
          matched[amount]++
          matchCell[j]++
        } else decoys[isWinner ? 1 : 0][amount]++
      }
    }
  }, 120_000)

  it(`decoy amounts (non-matching cells) are distributed alike on winning and losing units (2 × 8 homogeneity, 7 dof, alpha = ${ALPHA})`, () => {
    expect(winners).toBeGreaterThan(70_000)
    const test = chiSquareContingency(decoys)
    expect(test.dof).toBe(7)
    expect(test.pValue, `chi2 = ${test.statistic.toFixed(2)}`).toBeGreaterThan(ALPHA)
  })

  it(`decoy amounts follow the configured weights (goodness of fit, 7 dof, alpha = ${ALPHA})`, () => {
    const all = decoys[0].map((c, i) => c + decoys[1][i])
    const total = all.reduce((a, b) => a + b, 0)
    const weights = CARATS.printableAmountsCents.map(
      (a) => CARATS.decoyWeights.find((d) => d.amountCents === a)?.weight ?? 0,
    )
    const wsum = weights.reduce((a, b) => a + b, 0)
    const test = chiSquareGoodnessOfFit(
      all,
      weights.map((w) => (total * w) / wsum),
    )
    expect(test.pValue, `chi2 = ${test.statistic.toFixed(2)}`).toBeGreaterThan(ALPHA)
  })

  it('the homogeneity test does tell matching cells from decoys (the test can fail)', () => {
    expect(chiSquareContingency([decoys[0], matched]).pValue).toBeLessThan(ALPHA)
  })

  it(`matching numbers stand in any of the 24 cells alike (goodness of fit, 23 dof, alpha = ${ALPHA})`, () => {
    const total = matchCell.reduce((a, b) => a + b, 0)
    expect(
      chiSquareGoodnessOfFit(
        matchCell,
        matchCell.map(() => total / Y),
      ).pValue,
    ).toBeGreaterThan(ALPHA)
  })

  it(`winning numbers are drawn alike from the 46 numbers (goodness of fit, 45 dof, alpha = ${ALPHA})`, () => {
    expect([...winningNumber.keys()].sort((a, b) => a - b)).toEqual([...CARATS.numbers].sort((a, b) => a - b))
    const observed = CARATS.numbers.map((n) => winningNumber.get(n) ?? 0)
    const test = chiSquareGoodnessOfFit(
      observed,
      observed.map(() => (UNITS * W) / CARATS.numbers.length),
    )
    expect(test.dof).toBe(45)
    expect(test.pValue).toBeGreaterThan(ALPHA)
  })
})
