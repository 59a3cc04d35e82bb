import { describe, expect, it } from 'vitest'
import { CARATS } from './carats'
import {
  DefinitionError,
  MAX_TOTAL_WEIGHT,
  assertValidDefinition,
  deriveFigures,
  tierIndexOf,
  validateDefinition,
  type GameDefinition,
} from './rules'
import { caratsCopy, smallDefinition, tinyDefinition } from '../test/support/game-fixtures'

const euros = (n: number) => n * 100

/** Expects `def` to be rejected with one reason matching each pattern (and no valid verdict). */
function expectReasons(def: GameDefinition, ...patterns: RegExp[]): string[] {
  const reasons = validateDefinition(def)
  for (const p of patterns)
    expect(reasons, `a reason matching ${p}`).toEqual(expect.arrayContaining([expect.stringMatching(p)]))
  expect(() => assertValidDefinition(def)).toThrow(DefinitionError)
  return reasons
}

describe('the 500 000 CARATS definition', () => {
  it('is valid', () => {
    expect(validateDefinition(CARATS)).toEqual([])
    expect(() => assertValidDefinition(CARATS)).not.toThrow()
  })

  it('follows the regulation: 5 EUR units, blocks of 8,016,000, 6 + 24 cells, the 46 numbers', () => {
    expect(CARATS.unitPriceCents).toBe(500)
    expect(CARATS.blockSize).toBe(8_016_000)
    expect(CARATS.winningCells).toBe(6)
    expect(CARATS.yoursCells).toBe(24)
    expect(CARATS.numbers).toHaveLength(46)
    const expected = [1, 2, 3, 4, 6, 7, 8, 9, 11, 12, 13, 14]
    for (let n = 16; n <= 49; n++) expected.push(n)
    expect([...CARATS.numbers].sort((a, b) => a - b)).toEqual(expected)
    for (const never of [5, 10, 15]) expect(CARATS.numbers).not.toContain(never)
  })

  it('has the prize table of art. 3, largest prize first', () => {
    expect(CARATS.tiers.map((t) => [t.amountCents / 100, t.count])).toEqual([
      [500_000, 2],
      [10_000, 2],
      [1_000, 1_000],
      [100, 80_160],
      [50, 40_000],
      [15, 200_000],
      [10, 1_030_000],
      [5, 704_300],
    ])
    expect(CARATS.printableAmountsCents).toEqual([5, 10, 15, 50, 100, 1_000, 10_000, 500_000].map(euros))
  })

  it('derives the figures of the spec from the rows', () => {
    const f = deriveFigures(CARATS)
    expect(f.prizesPerBlock).toBe(2_055_464)
    expect(f.prizeTotalCents).toBe(2_885_750_000)
    expect(f.losingUnits).toBe(5_960_536)
    expect(f.salesPerBlockCents).toBe(4_008_000_000)
    expect(f.payoutRatio).toBeCloseTo(0.7199975, 8) // 71.99975 %
    expect(f.payoutRatio).toBe(2_885_750_000 / 4_008_000_000)
    expect(f.oddsOneIn.toFixed(2)).toBe('3.90')
    expect(f.oddsOneIn).toBeCloseTo(8_016_000 / 2_055_464, 12)
  })

  it('figures follow the rows when the table changes (they are computed, never typed in)', () => {
    const def = caratsCopy()
    def.tiers = def.tiers.map((t) =>
      t.amountCents === euros(5) ? { amountCents: t.amountCents, count: t.count + 1000 } : t,
    )
    def.printed = undefined
    const f = deriveFigures(def)
    expect(f.prizesPerBlock).toBe(2_056_464)
    expect(f.prizeTotalCents).toBe(2_885_750_000 + 1000 * 500)
    expect(f.losingUnits).toBe(5_959_536)
  })

  it('rejects the regulation\'s typo grand total "28 857 00 €" with a message giving the real total', () => {
    const def = caratsCopy()
    def.printed = { ...def.printed, prizeTotalCents: 2_885_700 }
    const reasons = expectReasons(def, /printed prize total/)
    expect(reasons).toHaveLength(1)
    expect(reasons[0]).toContain('28,857 EUR')
    expect(reasons[0]).toContain('28,857,500 EUR')
    // The right total, printed, is accepted.
    def.printed = { ...def.printed, prizeTotalCents: 2_885_750_000 }
    expect(validateDefinition(def)).toEqual([])
  })

  it('rejects a printed prize count that does not add up', () => {
    const def = caratsCopy()
    def.printed = { prizesPerBlock: 2_055_465 }
    const reasons = expectReasons(def, /printed number of prizes 2055465 does not add up: the rows hold 2055464/)
    expect(reasons).toHaveLength(1)
  })

  it('finds a tier by amount', () => {
    expect(tierIndexOf(CARATS, euros(500_000))).toBe(0)
    expect(tierIndexOf(CARATS, euros(5))).toBe(7)
    expect(tierIndexOf(CARATS, euros(20))).toBe(-1)
  })
})

describe('validateDefinition: each bad definition is rejected with its reason', () => {
  it('a row total that does not add up', () => {
    const def = caratsCopy()
    def.tiers = def.tiers.map((t) => (t.amountCents === euros(100) ? { ...t, printedTotalCents: euros(8_016_001) } : t))
    const reasons = expectReasons(
      def,
      /prize 100 EUR: the row total 8,016,001 EUR does not add up \(80160 × 100 EUR = 8,016,000 EUR\)/,
    )
    expect(reasons).toHaveLength(1)
  })

  it('a composition that does not sum to its prize', () => {
    const def = caratsCopy()
    def.compositions = def.compositions.map((r) =>
      r.amountCents === euros(50)
        ? { ...r, options: [...r.options, { partsCents: [euros(15), euros(15), euros(15)], weight: 1 }] }
        : r,
    )
    const reasons = expectReasons(def, /compositions of 50 EUR: 15 EUR \+ 15 EUR \+ 15 EUR sums to 45 EUR, not 50 EUR/)
    expect(reasons).toHaveLength(1)
  })

  it('a composition with more than 6 parts (more than the winning numbers)', () => {
    const def = caratsCopy()
    const seven = [euros(10), euros(10), euros(10), euros(5), euros(5), euros(5), euros(5)]
    def.compositions = def.compositions.map((r) =>
      r.amountCents === euros(50) ? { ...r, options: [...r.options, { partsCents: seven, weight: 1 }] } : r,
    )
    const reasons = expectReasons(def, /compositions of 50 EUR: .* has 7 parts, more than the 6 winning numbers/)
    expect(reasons).toHaveLength(1)
  })

  it('an empty composition and a rule without options', () => {
    const def = caratsCopy()
    def.compositions = def.compositions.map((r) => {
      if (r.amountCents === euros(10)) return { ...r, options: [...r.options, { partsCents: [], weight: 1 }] }
      if (r.amountCents === euros(1_000)) return { ...r, options: [] }
      return r
    })
    expectReasons(
      def,
      /compositions of 10 EUR: an empty composition/,
      /compositions of 1,000 EUR: no composition is listed/,
    )
  })

  it('a part that is not a printable amount', () => {
    const def = caratsCopy()
    def.compositions = def.compositions.map((r) =>
      r.amountCents === euros(50)
        ? { ...r, options: [...r.options, { partsCents: [euros(20), euros(20), euros(10)], weight: 1 }] }
        : r,
    )
    const reasons = expectReasons(def, /compositions of 50 EUR: part 20 EUR is not a printable amount/)
    expect(reasons.filter((r) => /part 20 EUR/.test(r))).toHaveLength(2) // once per offending part
  })

  it('more prizes than units', () => {
    const def = smallDefinition({ blockSize: 3000 })
    const reasons = expectReasons(def, /more prizes \(3300\) than units in a block \(3000\)/)
    expect(reasons).toHaveLength(1)
  })

  it('a number list too short for the zones', () => {
    const def = caratsCopy()
    def.numbers = def.numbers.slice(0, 29)
    const reasons = expectReasons(def, /the number list is too short for the zones: 29 numbers, .*\(30\)/)
    expect(reasons).toHaveLength(1)
    // exactly enough is fine
    def.numbers = CARATS.numbers.slice(0, 30)
    expect(validateDefinition(def)).toEqual([])
  })

  it('duplicate numbers, and numbers that cannot be printed on a gem', () => {
    const def = caratsCopy()
    def.numbers = [...def.numbers, 7, 0, 256, 2.5]
    expectReasons(
      def,
      /number 7 is listed twice/,
      /number 0 is not a whole number from 1 to 255/,
      /number 256 is not/,
      /number 2.5 is not/,
    )
  })

  it('a tier without composition', () => {
    const def = caratsCopy()
    def.compositions = def.compositions.filter((r) => r.amountCents !== euros(15))
    const reasons = expectReasons(def, /prize 15 EUR has no composition/)
    expect(reasons).toHaveLength(1)
  })

  it('compositions for an amount that is not a prize, or given twice', () => {
    const def = caratsCopy()
    def.compositions = [
      ...def.compositions,
      { amountCents: euros(20), options: [{ partsCents: [euros(10), euros(10)], weight: 1 }] },
      def.compositions[7],
    ]
    expectReasons(
      def,
      /compositions of 20 EUR: 20 EUR is not a prize of the table/,
      /compositions of 5 EUR are given twice/,
    )
  })

  it('decoy weights that add up to zero', () => {
    const def = caratsCopy()
    def.decoyWeights = def.decoyWeights.map((d) => ({ ...d, weight: 0 }))
    const reasons = expectReasons(def, /the decoy weights add up to zero/)
    expect(reasons).toHaveLength(1)
    def.decoyWeights = []
    expectReasons(def, /the decoy weights add up to zero/)
  })

  it('bad decoy entries: unprintable amount, weighted twice, negative or fractional weight', () => {
    const def = caratsCopy()
    def.decoyWeights = [
      ...def.decoyWeights,
      { amountCents: euros(20), weight: 1 },
      { amountCents: euros(5), weight: -1 },
      { amountCents: euros(10), weight: 0.5 },
    ]
    expectReasons(
      def,
      /decoy amount 20 EUR is not a printable amount/,
      /decoy amount 5 EUR is weighted twice/,
      /decoy amount 5 EUR: the weight must be a whole number ≥ 0, got -1/,
      /decoy amount 10 EUR: the weight must be a whole number ≥ 0, got 0.5/,
    )
  })

  it(`weight totals above ${MAX_TOTAL_WEIGHT} (draws use 16-bit words)`, () => {
    const def = caratsCopy()
    def.decoyWeights = def.decoyWeights.map((d, i) => (i === 0 ? { ...d, weight: MAX_TOTAL_WEIGHT } : d))
    def.compositions = def.compositions.map((r) =>
      r.amountCents === euros(10) ? { ...r, options: r.options.map((o) => ({ ...o, weight: 40_000 })) } : r,
    )
    const reasons = expectReasons(
      def,
      new RegExp(`the decoy weights add up to ${MAX_TOTAL_WEIGHT + 700}, more than ${MAX_TOTAL_WEIGHT}`),
      new RegExp(`compositions of 10 EUR: the weights add up to 80000, more than ${MAX_TOTAL_WEIGHT}`),
    )
    expect(reasons).toHaveLength(2)
    // exactly the maximum is allowed
    def.decoyWeights = [{ amountCents: euros(5), weight: MAX_TOTAL_WEIGHT }]
    def.compositions = CARATS.compositions
    expect(validateDefinition(def)).toEqual([])
  })

  it('composition weights that are not positive whole numbers', () => {
    const def = caratsCopy()
    def.compositions = def.compositions.map((r) =>
      r.amountCents === euros(15)
        ? { ...r, options: r.options.map((o, i) => ({ ...o, weight: i === 0 ? 0 : i === 1 ? 1.5 : o.weight })) }
        : r,
    )
    expectReasons(
      def,
      /compositions of 15 EUR: 15 EUR must have a positive whole weight, got 0/,
      /compositions of 15 EUR: 10 EUR \+ 5 EUR must have a positive whole weight, got 1.5/,
    )
  })

  it('bad table rows: empty table, repeated amount, non-positive counts and amounts', () => {
    expectReasons({ ...caratsCopy(), tiers: [], compositions: [] }, /the prize table is empty/)
    const def = caratsCopy()
    def.tiers = [...def.tiers, { amountCents: euros(5), count: 1 }, { amountCents: euros(10) + 0.5, count: 0 }]
    expectReasons(
      def,
      /prize 5 EUR appears in two rows of the table/,
      /the number of prizes must be a positive whole number, got 0/,
      /prize amount 1000.5 is not a positive whole number of cents/,
    )
  })

  it('bad sizes: unit price, block size, zones', () => {
    const def = caratsCopy()
    def.unitPriceCents = 0
    def.blockSize = 10_000_001
    def.winningCells = 0
    def.yoursCells = -1
    expectReasons(
      def,
      /unit price must be a positive whole number of cents, got 0/,
      /block size must be a whole number from 1 to 10000000, got 10000001/,
      /the winning-numbers zone must have at least one cell, got 0/,
      /the "your numbers" zone must have at least one cell, got -1/,
    )
  })

  it('bad printable amounts: none, unsorted, repeated', () => {
    expectReasons({ ...tinyDefinition(), printableAmountsCents: [] }, /no printable amount is defined/)
    expectReasons(
      { ...tinyDefinition(), printableAmountsCents: [100, 300, 200, 1000] },
      /printable amounts must be listed in ascending order without repeats/,
    )
    expectReasons(
      { ...tinyDefinition(), printableAmountsCents: [100, 200, 200, 300, 1000] },
      /ascending order without repeats/,
    )
  })

  it('a definition with several faults lists every one of them', () => {
    const def = caratsCopy()
    def.numbers = [...def.numbers.slice(0, 27), def.numbers[0]] // 28 numbers with a duplicate
    def.tiers = def.tiers.map((t) => (t.amountCents === euros(1_000) ? { ...t, printedTotalCents: euros(999_000) } : t))
    def.printed = { prizesPerBlock: 2_055_464, prizeTotalCents: 2_885_700 }
    def.blockSize = 2_000_000
    def.compositions = def.compositions
      .filter((r) => r.amountCents !== euros(15))
      .map((r) =>
        r.amountCents === euros(50)
          ? {
              ...r,
              options: [
                ...r.options,
                {
                  partsCents: [euros(20), euros(10), euros(10), euros(5), euros(5), euros(5), euros(5)],
                  weight: 70_000,
                },
              ],
            }
          : r,
      )
    def.decoyWeights = def.decoyWeights.map((d) => ({ ...d, weight: 0 }))
    const reasons = expectReasons(
      def,
      /number 1 is listed twice/,
      /the number list is too short for the zones/,
      /prize 1,000 EUR: the row total 999,000 EUR does not add up/,
      /more prizes \(2055464\) than units in a block \(2000000\)/,
      /the printed prize total 28,857 EUR does not add up/,
      /compositions of 50 EUR: .* has 7 parts/,
      /compositions of 50 EUR: .* sums to 60 EUR, not 50 EUR/,
      /compositions of 50 EUR: part 20 EUR is not a printable amount/,
      /compositions of 50 EUR: the weights add up to 70100, more than 65535/,
      /prize 15 EUR has no composition/,
      /the decoy weights add up to zero/,
    )
    expect(reasons).toHaveLength(11)
    let caught: unknown
    try {
      assertValidDefinition(def)
    } catch (e) {
      caught = e
    }
    expect(caught).toBeInstanceOf(DefinitionError)
    const err = caught as DefinitionError
    expect(err.code).toBe('DEFINITION_INVALID')
    expect(err.reasons).toEqual(reasons)
    for (const r of reasons) expect(err.message).toContain(r)
  })

  it('the small test definitions used by the other tests are themselves valid', () => {
    expect(validateDefinition(smallDefinition())).toEqual([])
    expect(validateDefinition(tinyDefinition())).toEqual([])
  })
})
