/**
 * Improbable winners' figures: the Poisson tail against known values, and the flags a services
 * world gives, with the probability worked out by hand from the small game's odds (100 units of
 * 100 € in a block of 10,000: p = 1/100 a unit at a 100 € threshold).
 */
import { describe, expect, it } from 'vitest'
import { LOSING } from '../../../game-core/block'
import { IMPROBABLE_BELOW, MANY_CLAIMS, poissonTail } from './figures'
import { STAFF, useClaimsWorlds, type ClaimsWorld } from '../../../test/support/claims-world'

const world = useClaimsWorlds('claim-figures')
const factorial = (n: number): number => (n <= 1 ? 1 : n * factorial(n - 1))
/** e^-λ λ^i / i!, written out. */
const poissonTerm = (lambda: number, i: number) => (Math.exp(-lambda) * lambda ** i) / factorial(i)

describe('poissonTail', () => {
  it('matches the closed forms', () => {
    expect(poissonTail(0.5, 1)).toBeCloseTo(1 - Math.exp(-0.5), 15)
    expect(poissonTail(2, 2)).toBeCloseTo(1 - Math.exp(-2) * (1 + 2), 14)
    expect(poissonTail(3, 4)).toBeCloseTo(1 - Math.exp(-3) * (1 + 3 + 9 / 2 + 27 / 6), 14)
  })

  it('is 1 for at least no claim, and 0 for a claim on no odds', () => {
    expect(poissonTail(0.3, 0)).toBe(1)
    expect(poissonTail(0, 0)).toBe(1)
    expect(poissonTail(0, 2)).toBe(0)
  })

  it('keeps tiny tails exact to a relative 1e-12, where 1 − P(X < k) would round to 0', () => {
    for (const [lambda, k] of [
      [1e-4, 2],
      [0.04, 4],
      [0.01, 10],
      [1e-3, 30],
    ] as const) {
      let byHand = 0
      for (let i = k; i < k + 40; i++) byHand += poissonTerm(lambda, i)
      expect(Math.abs(poissonTail(lambda, k) - byHand) / byHand).toBeLessThan(1e-12)
      // the first term dominates the tail
      expect(poissonTail(lambda, k)).toBeGreaterThanOrEqual(poissonTerm(lambda, k))
    }
  })

  it("is about 1 for fewer claims than a bulk buyer's units bring, where e^-λ alone underflows", () => {
    // 80,000 units at 1 % each: 800 claims expected, 2 made (e^-800 is below the smallest double)
    expect(poissonTail(800, 2)).toBeCloseTo(1, 15)
    expect(poissonTail(2000, 1500)).toBeCloseTo(1, 15)
    // for λ = n, P(X < n) = ½ − θ·e^-n n^n/n! with θ → ⅓ (Ramanujan), and e^-n n^n/n! ≈ 1/√(2πn)
    expect(poissonTail(10_000, 10_000)).toBeCloseTo(0.5 + 1 / (3 * Math.sqrt(2 * Math.PI * 10_000)), 4)
  })

  it('does not exceed 1 and grows with λ', () => {
    expect(poissonTail(50, 1)).toBeLessThanOrEqual(1)
    expect(poissonTail(0.2, 3)).toBeLessThan(poissonTail(0.3, 3))
  })
})

/** The tier of each unit of block 1, from the block's own secret: which units will win ≥ `cents`. */
function winsAtLeast(w: ClaimsWorld, emission: number, cents: number): (unit: number) => boolean {
  const def = w.catalog.definition(emission)
  const tiers = w.catalog.deriver(emission, 1).tiers
  return (unit) => tiers[unit] !== LOSING && def.tiers[tiers[unit]].amountCents >= cents
}

/**
 * Sells units of `emission` in order, from its next unit, until `lucky` holds `claims` winning
 * units (≥ `cents`): every winning unit goes to `lucky`, every other to the fillers. Returns the
 * number of units sold.
 */
function sellWinnersTo(
  w: ClaimsWorld,
  emission: number,
  cents: number,
  lucky: string,
  claims: number,
  fillers = ['fil', 'flo'],
): number {
  const wins = winsAtLeast(w, emission, cents)
  const first = w.sales.nextUnit(emission)!.unit
  const batch: { emission: number; player: string; soldAt: number }[] = []
  let won = 0
  for (let unit = first; won < claims; unit++) {
    const win = wins(unit)
    if (win) won++
    batch.push({ emission, player: win ? lucky : fillers[unit % fillers.length], soldAt: w.clock().getTime() })
  }
  const r = w.sales.sellBatch(batch)
  if (!r.ok) throw new Error(JSON.stringify(r.errors.slice(0, 3)))
  return batch.length
}

async function openEmission(w: ClaimsWorld, claimThresholdCents: number): Promise<number> {
  const emission = w.emissions.create(STAFF.operator, { blocks: 1, demo: true, claimThresholdCents }).emission
  for (const step of ['generate', 'verify'] as const) {
    const end = await w.jobs.wait(w.emissions[step](STAFF.operator, emission).id)
    if (end.state !== 'done') throw new Error(`${step}: ${end.message}`)
  }
  w.emissions.open(STAFF.operator, emission)
  return emission
}

const figuresOf = (w: ClaimsWorld, player: string) => w.claims.flags(player)[0]

describe('improbable winners', () => {
  it('flags a player holding every claim of the world, with the probability worked out by hand', async () => {
    const w = await world()
    sellWinnersTo(w, w.emission, 10_000, 'lucky', 4)
    const f = figuresOf(w, 'lucky')
    // 4 units, each winning 100 € or more with p = 100 / 10,000
    const lambda = 4 * (100 / 10_000)
    const byHand = poissonTerm(lambda, 4) * (1 + lambda / 5 + lambda ** 2 / 30 + lambda ** 3 / 210 + lambda ** 4 / 1680)
    expect(f).toMatchObject({ player: 'lucky', units: 4, claims: 4, claimsCents: 40_000, flags: ['improbable'] })
    expect(f.expectedClaims).toBeCloseTo(lambda, 12)
    expect(Math.abs(f.probability - byHand) / byHand).toBeLessThan(1e-9)
    expect(f.probability).toBeLessThan(IMPROBABLE_BELOW)
    expect(w.claims.flags().map((x) => x.player)).toEqual(['lucky'])
  })

  it('never flags one claim as improbable, however few the units', async () => {
    const w = await world()
    sellWinnersTo(w, w.emission, 10_000, 'once', 1)
    const f = figuresOf(w, 'once')
    expect(f).toMatchObject({ units: 1, claims: 1, flags: [] })
    expect(f.probability).toBeCloseTo(1 - Math.exp(-0.01), 14)
    expect(w.claims.flags()).toEqual([])
  })

  it(`flags ${MANY_CLAIMS} claims or more whatever their odds, and a player with many units only for that`, async () => {
    const w = await world()
    // everyone's units to one player: about 1 claim per 100 units, so many claims are expected
    w.sell(2000, ['busy'])
    const f = figuresOf(w, 'busy')
    expect(f.claims).toBeGreaterThanOrEqual(MANY_CLAIMS)
    expect(f.expectedClaims).toBeCloseTo(20, 12)
    expect(f.flags).toEqual(['many-claims'])
    expect(w.claims.flags().map((x) => x.player)).toEqual(['busy'])
  })

  it('flags an account of the register, and no longer once its entry is removed', async () => {
    const w = await world()
    sellWinnersTo(w, w.emission, 10_000, 'cousin', 1)
    expect(figuresOf(w, 'cousin').flags).toEqual([])
    const entry = w.parties.add(STAFF.auditor, {
      player: 'COUSIN',
      relation: 'family',
      linkedTo: 'suzy',
      reason: 'cousin of a support agent',
    })
    expect(figuresOf(w, 'cousin').flags).toEqual(['related'])
    expect(w.claims.flags().map((x) => [x.player, x.flags])).toEqual([['cousin', ['related']]])
    w.parties.remove(STAFF.auditor, entry.id, 'left the company')
    expect(w.claims.flags()).toEqual([])
  })

  it('counts the units of emissions of one odds together (an emission of other odds that sold nothing changes nothing)', async () => {
    const w = await world()
    // a third emission at 50 € sells nothing: its odds do not count
    const same = await openEmission(w, 10_000)
    await openEmission(w, 5_000)
    sellWinnersTo(w, w.emission, 10_000, 'both', 2)
    sellWinnersTo(w, same, 10_000, 'both', 2)
    const f = figuresOf(w, 'both')
    expect(f).toMatchObject({ units: 4, claims: 4 })
    expect(f.expectedClaims).toBeCloseTo(4 * (100 / 10_000), 12)
    expect(f.probability).toBeCloseTo(poissonTail(4 * (100 / 10_000), 4), 15)
    expect(f.flags).toEqual(['improbable'])
  })

  it('counts units of emissions with different thresholds, each at its own odds', async () => {
    const w = await world()
    // a second emission whose threshold is 50 €: 100 + 500 units of 10,000 reach it
    const low = await openEmission(w, 5_000)
    const inFirst = sellWinnersTo(w, w.emission, 10_000, 'both', 2)
    const inSecond = sellWinnersTo(w, low, 5_000, 'both', 2)
    const f = figuresOf(w, 'both')
    const lambda = 2 * (100 / 10_000) + 2 * (600 / 10_000)
    expect(f).toMatchObject({ units: 4, claims: 4 })
    expect(inFirst + inSecond).toBeGreaterThan(4)
    expect(f.expectedClaims).toBeCloseTo(lambda, 12)
    expect(f.probability).toBeCloseTo(poissonTail(lambda, 4), 15)
    expect(
      Math.abs(
        f.probability -
          poissonTerm(lambda, 4) * (1 + lambda / 5 + lambda ** 2 / 30 + lambda ** 3 / 210 + lambda ** 4 / 1680),
      ) / f.probability,
    ).toBeLessThan(1e-6)
    // 1 − P(X ≤ 3) for λ = 0.14 is about 1.4e-5: unlikely, but above the cut-off
    expect(f.flags).toEqual([])
  })
})
