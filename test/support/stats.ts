/**
 * Small statistics toolkit for the game-core tests: the chi-square survival function through the
 * regularized upper incomplete gamma function Q(a, x) (Numerical Recipes, 3rd ed., §6.2: series
 * for x < a + 1, Lentz continued fraction otherwise), and the Pearson statistics the tests use.
 */

const EPS = 1e-15
const FPMIN = 1e-300

/** ln Γ(x) for x > 0 (Lanczos approximation, g = 7, n = 9; ~15 significant digits). */
export function lnGamma(x: number): number {
  if (!(x > 0)) throw new RangeError(`lnGamma needs x > 0, got ${x}`)
  const g = 7
  const c = [
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
    12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
  ]
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - lnGamma(1 - x)
  const z = x - 1
  let a = c[0]
  const t = z + g + 0.5
  for (let i = 1; i < g + 2; i++) a += c[i] / (z + i)
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(a)
}

/** P(a, x) by its series; converges fast for x < a + 1. */
function gammaPSeries(a: number, x: number): number {
  let ap = a
  let sum = 1 / a
  let del = sum
  for (let n = 0; n < 100_000; n++) {
    ap += 1
    del *= x / ap
    sum += del
    if (Math.abs(del) < Math.abs(sum) * EPS) break
  }
  return sum * Math.exp(-x + a * Math.log(x) - lnGamma(a))
}

/** Q(a, x) by its continued fraction (modified Lentz); converges fast for x ≥ a + 1. */
function gammaQContinuedFraction(a: number, x: number): number {
  let b = x + 1 - a
  let c = 1 / FPMIN
  let d = 1 / b
  let h = d
  for (let i = 1; i < 100_000; i++) {
    const an = -i * (i - a)
    b += 2
    d = an * d + b
    if (Math.abs(d) < FPMIN) d = FPMIN
    c = b + an / c
    if (Math.abs(c) < FPMIN) c = FPMIN
    d = 1 / d
    const del = d * c
    h *= del
    if (Math.abs(del - 1) < EPS) break
  }
  return Math.exp(-x + a * Math.log(x) - lnGamma(a)) * h
}

/** Regularized upper incomplete gamma Q(a, x) = Γ(a, x) / Γ(a). */
export function gammaQ(a: number, x: number): number {
  if (!(a > 0) || !(x >= 0)) throw new RangeError(`gammaQ needs a > 0 and x ≥ 0, got a=${a}, x=${x}`)
  if (x === 0) return 1
  if (x < a + 1) return 1 - gammaPSeries(a, x)
  return gammaQContinuedFraction(a, x)
}

/** P(X ≥ x) for X chi-square distributed with `dof` degrees of freedom. */
export function chiSquareSurvival(x: number, dof: number): number {
  if (!(dof > 0)) throw new RangeError(`dof must be > 0, got ${dof}`)
  if (x <= 0) return 1
  return gammaQ(dof / 2, x / 2)
}

export interface ChiSquareResult {
  statistic: number
  dof: number
  pValue: number
}

/** Pearson goodness of fit of observed counts to expected counts (same total); dof = cells - 1 - fitted. */
export function chiSquareGoodnessOfFit(
  observed: ArrayLike<number>,
  expected: ArrayLike<number>,
  fitted = 0,
): ChiSquareResult {
  if (observed.length !== expected.length) throw new Error('observed and expected differ in length')
  let statistic = 0
  for (let i = 0; i < observed.length; i++) {
    const e = expected[i]
    if (!(e > 0)) throw new Error(`expected count ${e} in cell ${i} is not positive`)
    statistic += (observed[i] - e) ** 2 / e
  }
  const dof = observed.length - 1 - fitted
  return { statistic, dof, pValue: chiSquareSurvival(statistic, dof) }
}

/**
 * Pearson test of homogeneity / independence on an r × c contingency table (rows of counts).
 * Rows or columns that are entirely zero are dropped (they carry no information).
 */
export function chiSquareContingency(table: number[][]): ChiSquareResult {
  const rows = table.filter((r) => r.some((v) => v !== 0))
  const cols = rows[0].length
  const colTotals = new Array<number>(cols).fill(0)
  const rowTotals = rows.map((r) => r.reduce((a, b) => a + b, 0))
  for (const r of rows) r.forEach((v, j) => (colTotals[j] += v))
  const total = rowTotals.reduce((a, b) => a + b, 0)
  const keep = colTotals.map((t) => t > 0)
  let statistic = 0
  rows.forEach((r, i) => {
    r.forEach((v, j) => {
      if (!keep[j]) return
      const e = (rowTotals[i] * colTotals[j]) / total
      statistic += (v - e) ** 2 / e
    })
  })
  const dof = (rows.length - 1) * (keep.filter(Boolean).length - 1)
  return { statistic, dof, pValue: chiSquareSurvival(statistic, dof) }
}
