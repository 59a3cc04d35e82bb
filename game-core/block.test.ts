import { createCipheriv, createHash, createHmac } from 'node:crypto'
import { beforeAll, describe, expect, it } from 'vitest'
import { nodePrimitives } from '../electron/crypto/node-primitives'
import {
  BlockDeriver,
  LOSING,
  buildTierTable,
  decodeRecord,
  deriveBlockKeys,
  recordBytes,
  type BlockRef,
  type UnitTicket,
} from './block'
import { CARATS } from './carats'
import { evaluateTicket } from './evaluate'
import type { Primitives } from './primitives'
import type { GameDefinition } from './rules'
import { formatSerial } from './serial'
import { chiSquareGoodnessOfFit } from '../test/support/stats'
import { compositionKey, fixedSecret, smallDefinition, tinyDefinition } from '../test/support/game-fixtures'

const prim = nodePrimitives
const ALPHA = 1e-4

function ref(label: string, emission = 1, block = 1): BlockRef {
  return { emission, block, secret: fixedSecret(label) }
}

const allTickets = (d: BlockDeriver, from = 0, count = d.def.blockSize): UnitTicket[] => {
  const rec = d.records(from, count)
  const rb = recordBytes(d.def)
  return Array.from({ length: count }, (_, i) => decodeRecord(d.def, d.ref, rec, i * rb))
}

const sha = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex')

/** Every rule a unit's content must follow (SPEC §1–2); throws with the unit and the rule broken. */
function checkTicket(def: GameDefinition, t: UnitTicket, tierCode: number): void {
  const fail = (m: string) => {
    throw new Error(`unit ${t.unit}: ${m} — ${JSON.stringify(t)}`)
  }
  const allowed = new Set(def.numbers)
  const printable = new Set(def.printableAmountsCents)
  if (t.winning.length !== def.winningCells) fail('wrong number of winning numbers')
  if (new Set(t.winning).size !== def.winningCells) fail('a winning number repeats')
  if (t.numbers.length !== def.yoursCells || t.amountsCents.length !== def.yoursCells) fail('wrong number of cells')
  if (new Set(t.numbers).size !== def.yoursCells) fail('a number repeats in "your numbers"')
  for (const n of [...t.winning, ...t.numbers]) if (!allowed.has(n)) fail(`number ${n} is not in the list`)
  for (const a of t.amountsCents) if (!printable.has(a)) fail(`amount ${a} is not printable`)
  if (t.serial !== formatSerial({ emission: t.emission, block: t.block, unit: t.unit }, def.blockSize)) fail('serial')

  const winning = new Set(t.winning)
  const matches = t.numbers.flatMap((n, i) => (winning.has(n) ? [i] : []))
  const ev = evaluateTicket(def, t)
  if (ev.problems.length > 0) fail(`evaluation problems: ${ev.problems.join('; ')}`)
  if (ev.prizeCents !== t.prizeCents) fail(`evaluation pays ${ev.prizeCents}, the unit says ${t.prizeCents}`)
  if (JSON.stringify(ev.matches) !== JSON.stringify(matches)) fail('evaluation matches differ')

  if (tierCode === LOSING) {
    if (t.tier !== null || t.prizeCents !== 0) fail('a losing unit with a prize')
    if (matches.length !== 0) fail('a losing unit shows a match')
  } else {
    const tier = def.tiers[tierCode]
    if (t.tier !== tierCode || t.prizeCents !== tier.amountCents)
      fail(`prize differs from the outcome (${tier.amountCents})`)
    if (matches.length < 1 || matches.length > Math.min(def.winningCells, def.yoursCells))
      fail(`${matches.length} matches`)
    const parts = matches.map((i) => t.amountsCents[i])
    if (parts.reduce((a, b) => a + b, 0) !== tier.amountCents) fail('matching amounts do not add up to the prize')
    const rule = def.compositions.find((c) => c.amountCents === tier.amountCents)!
    if (!rule.options.some((o) => compositionKey(o.partsCents) === compositionKey(parts)))
      fail(`composition ${compositionKey(parts)} is not allowed`)
  }
}

describe('block keys', () => {
  it('are HMAC-SHA256(secret, label ‖ u16be(emission) ‖ u16be(block)) for the three labels', () => {
    const r = ref('keys', 1234, 567)
    const keys = deriveBlockKeys(prim, r)
    const expected = (label: string) =>
      new Uint8Array(
        createHmac('sha256', r.secret)
          .update(Buffer.concat([Buffer.from(label), Buffer.from([0x04, 0xd2, 0x02, 0x37])]))
          .digest(),
      )
    expect(new Uint8Array(keys.tiers)).toEqual(expected('CARATS/v1/tiers'))
    expect(new Uint8Array(keys.units)).toEqual(expected('CARATS/v1/units'))
    expect(new Uint8Array(keys.extra)).toEqual(expected('CARATS/v1/units-extra'))
  })

  it('refuse a secret that is not 32 bytes', () => {
    expect(() => deriveBlockKeys(prim, { emission: 1, block: 1, secret: new Uint8Array(31) })).toThrow(/32 bytes/)
    expect(() => new BlockDeriver(CARATS, prim, { emission: 1, block: 1, secret: new Uint8Array(33) })).toThrow(
      /32 bytes/,
    )
  })
})

describe('the tier table', () => {
  it('holds exactly the prize table (small game, several secrets)', () => {
    const def = smallDefinition()
    for (const label of ['a', 'b', 'c']) {
      const tiers = new BlockDeriver(def, prim, ref(label)).tiers
      const counts = new Map<number, number>()
      for (const c of tiers) counts.set(c, (counts.get(c) ?? 0) + 1)
      def.tiers.forEach((t, i) => expect(counts.get(i)).toBe(t.count))
      expect(counts.get(LOSING)).toBe(def.blockSize - def.tiers.reduce((a, t) => a + t.count, 0))
      expect(counts.size).toBe(def.tiers.length + 1)
    }
  })

  it('is the Fisher–Yates shuffle of DERIVATION.md (independent re-implementation from the text, exact in BigInt)', () => {
    // T laid out in table order; 32-bit big-endian words r of AES-256-CTR(K_tiers) from counter 0;
    // for i = N-1 … 1, B = i + 1: m = r·B, reject when (m mod 2³²) < (2³² mod B), else j = ⌊m / 2³²⌋; swap T[i], T[j].
    const def = smallDefinition()
    const r = ref('fy')
    const key = deriveBlockKeys(prim, r).tiers
    const n = def.blockSize
    const table = new Uint8Array(n).fill(255)
    let at = 0
    def.tiers.forEach((t, i) => {
      table.fill(i, at, at + t.count)
      at += t.count
    })
    const stream = createCipheriv('aes-256-ctr', key, Buffer.alloc(16)).update(Buffer.alloc(4 * n * 2))
    const TWO32 = 1n << 32n
    let p = 0
    for (let i = n - 1; i > 0; i--) {
      const B = BigInt(i + 1)
      let j: number
      for (;;) {
        const m = BigInt(stream.readUInt32BE(p)) * B
        p += 4
        if (m % TWO32 >= TWO32 % B) {
          j = Number(m / TWO32)
          break
        }
      }
      ;[table[i], table[j]] = [table[j], table[i]]
    }
    expect(sha(new BlockDeriver(def, prim, r).tiers)).toBe(sha(table))
  })

  it('tierOf / prizeOf read it, and refuse units outside the block', () => {
    const def = smallDefinition()
    const d = new BlockDeriver(def, prim, ref('tierOf'))
    for (let u = 0; u < def.blockSize; u += 37) {
      const code = d.tiers[u]
      expect(d.tierOf(u)).toBe(code === LOSING ? null : code)
      expect(d.prizeOf(u)).toBe(code === LOSING ? 0 : def.tiers[code].amountCents)
    }
    for (const bad of [-1, def.blockSize, 1.5, NaN]) {
      expect(() => d.tierOf(bad)).toThrow(RangeError)
      expect(() => d.ticket(bad)).toThrow(RangeError)
    }
    expect(() => d.records(def.blockSize - 5, 6)).toThrow(RangeError)
    expect(d.records(0, 0)).toHaveLength(0)
  })
})

describe('determinism and independence', () => {
  const def = smallDefinition()

  it('the same secret, emission and block give the same tier table and the same tickets', () => {
    const a = new BlockDeriver(def, prim, ref('same', 3, 4))
    const b = new BlockDeriver(def, prim, { emission: 3, block: 4, secret: Uint8Array.from(fixedSecret('same')) })
    expect(sha(a.tiers)).toBe(sha(b.tiers))
    expect(sha(a.records(0, def.blockSize))).toBe(sha(b.records(0, def.blockSize)))
    for (const u of [0, 1, 4321, 9999]) expect(a.ticket(u)).toEqual(b.ticket(u))
  })

  it('the same secret on CARATS gives the same whole tier table', () => {
    const r = ref('carats-same')
    expect(sha(buildTierTable(CARATS, prim, deriveBlockKeys(prim, r)))).toBe(
      sha(new BlockDeriver(CARATS, prim, r).tiers),
    )
  })

  const base = ref('indep', 5, 6)
  const others: [string, BlockRef][] = [
    ['another secret', ref('indep-other', 5, 6)],
    ['a secret differing in one bit', { ...base, secret: base.secret.map((b, i) => (i === 31 ? b ^ 1 : b)) }],
    ['the same secret in another emission', { ...base, emission: 7 }],
    ['the same secret for another block', { ...base, block: 7 }],
    ['emission and block swapped', { ...base, emission: 6, block: 5 }],
  ]

  for (const [what, other] of others) {
    it(`${what} gives another tier table and other tickets`, () => {
      const a = new BlockDeriver(def, prim, base)
      const b = new BlockDeriver(def, prim, other)
      // Two independent shuffles agree on a unit with probability Σ p² (about 0.45 here): far from 1.
      const pSame = [...def.tiers.map((t) => t.count), def.blockSize - 3300].reduce(
        (s, c) => s + (c / def.blockSize) ** 2,
        0,
      )
      let same = 0
      for (let u = 0; u < def.blockSize; u++) if (a.tiers[u] === b.tiers[u]) same++
      expect(Math.abs(same / def.blockSize - pSame)).toBeLessThan(0.03)
      let sameWinning = 0
      for (let u = 0; u < 200; u++)
        if (JSON.stringify(a.ticket(u).winning) === JSON.stringify(b.ticket(u).winning)) sameWinning++
      expect(sameWinning).toBe(0)
    })
  }
})

describe('ticket content', () => {
  let carats: BlockDeriver
  beforeAll(() => {
    carats = new BlockDeriver(CARATS, prim, ref('content'))
    void carats.tiers
  })

  it('follows every rule on 30,000 CARATS units (start, middle, end of the block)', () => {
    const ranges: [number, number][] = [
      [0, 10_000],
      [4_000_000, 10_000],
      [CARATS.blockSize - 10_000, 10_000],
    ]
    let winners = 0
    for (const [from, count] of ranges) {
      for (const t of allTickets(carats, from, count)) {
        checkTicket(CARATS, t, carats.tiers[t.unit])
        for (const n of [...t.winning, ...t.numbers])
          if (n === 5 || n === 10 || n === 15) throw new Error(`unit ${t.unit} shows ${n}`)
        if (t.tier !== null) winners++
      }
    }
    expect(winners).toBeGreaterThan(6000) // about 30,000 / 3.9
  })

  it('follows every rule on every unit of a top-prize winner, 10,000 EUR winner and 1,000 EUR winners of a CARATS block', () => {
    let seen = 0
    const tiers = carats.tiers
    for (let u = 0; u < CARATS.blockSize; u++) {
      if (tiers[u] <= 2) {
        checkTicket(CARATS, carats.ticket(u), tiers[u])
        seen++
      }
    }
    expect(seen).toBe(1004)
  })

  it('follows every rule on every unit of the small game and of the tiny game (numbers just enough for the zones)', () => {
    for (const def of [smallDefinition(), tinyDefinition()]) {
      const d = new BlockDeriver(def, prim, ref('every-unit'))
      for (const t of allTickets(d)) checkTicket(def, t, d.tiers[t.unit])
    }
  })

  it('keeps following the rules when a unit runs out of its own keystream words (the extra-key path)', () => {
    // A constant keystream on the units key makes (depending on how draws are taken from words)
    // almost every draw a rejection, so units must continue on the extra key: at least one of
    // 0x00 / 0xff bytes does that; both must still give lawful units, the same by any access path.
    const r = ref('refill')
    const keys = deriveBlockKeys(prim, r)
    const same = (a: Uint8Array, b: Uint8Array) => Buffer.from(a).equals(Buffer.from(b))
    const def = smallDefinition()
    let refilled = 0
    for (const fill of [0x00, 0xff]) {
      let extraCalls = 0
      const starved: Primitives = {
        ...prim,
        keystream(key, firstBlock, length) {
          if (same(key, keys.extra)) extraCalls++
          if (same(key, keys.units)) return new Uint8Array(length).fill(fill)
          return prim.keystream(key, firstBlock, length)
        },
      }
      const d = new BlockDeriver(def, starved, r)
      const tickets = allTickets(d, 0, 2000)
      for (const t of tickets) checkTicket(def, t, d.tiers[t.unit])
      for (const u of [0, 511, 512, 1999]) expect(d.ticket(u)).toEqual(tickets[u])
      if (extraCalls > 0) {
        refilled++
        // the extra key is per unit: units do not all look alike
        expect(new Set(tickets.map((t) => t.winning.join(','))).size).toBeGreaterThan(1900)
      }
    }
    expect(refilled).toBeGreaterThan(0)
  })
})

describe('compositions are drawn with their weights', () => {
  function compositionFrequencies(def: GameDefinition, d: BlockDeriver, amountCents: number) {
    const tierCode = def.tiers.findIndex((t) => t.amountCents === amountCents)
    const counts = new Map<string, number>()
    const tiers = d.tiers
    for (let u = 0; u < def.blockSize; u++) {
      if (tiers[u] !== tierCode) continue
      const t = d.ticket(u)
      const w = new Set(t.winning)
      const key = compositionKey(t.numbers.flatMap((n, i) => (w.has(n) ? [t.amountsCents[i]] : [])))
      counts.set(key, (counts.get(key) ?? 0) + 1)
    }
    return counts
  }

  function expectWeights(def: GameDefinition, counts: Map<string, number>, amountCents: number) {
    const rule = def.compositions.find((c) => c.amountCents === amountCents)!
    const total = rule.options.reduce((a, o) => a + o.weight, 0)
    const n = [...counts.values()].reduce((a, b) => a + b, 0)
    const keys = rule.options.map((o) => compositionKey(o.partsCents))
    for (const k of counts.keys()) expect(keys, `composition ${k} drawn`).toContain(k)
    const observed = keys.map((k) => counts.get(k) ?? 0)
    const expected = rule.options.map((o) => (n * o.weight) / total)
    return chiSquareGoodnessOfFit(observed, expected)
  }

  it(`the 40,000 winners of 50 EUR in a CARATS block show all 9 compositions, in proportion to their weights (chi-square, alpha = ${ALPHA})`, () => {
    const d = new BlockDeriver(CARATS, prim, ref('compositions'))
    const counts = compositionFrequencies(CARATS, d, 5000)
    expect([...counts.values()].reduce((a, b) => a + b, 0)).toBe(40_000)
    expect(counts.size).toBe(9)
    // the single 50 EUR part has weight 60 of 100
    expect(counts.get('5000')! / 40_000).toBeGreaterThan(0.58)
    expect(counts.get('5000')! / 40_000).toBeLessThan(0.62)
    const test = expectWeights(CARATS, counts, 5000)
    expect(test.dof).toBe(8)
    expect(test.pValue).toBeGreaterThan(ALPHA)
  })

  it(`every multi-option rule of the small game is drawn in proportion to its weights (chi-square, alpha = ${ALPHA})`, () => {
    const def = smallDefinition({
      blockSize: 40_000,
      tiers: smallDefinition().tiers.map((t) => ({ ...t, count: t.count * 4 })),
    })
    const d = new BlockDeriver(def, prim, ref('compositions-small'))
    for (const amount of [10000, 5000, 1500, 1000]) {
      const counts = compositionFrequencies(def, d, amount)
      const rule = def.compositions.find((c) => c.amountCents === amount)!
      expect(counts.size).toBe(rule.options.length)
      expect(expectWeights(def, counts, amount).pValue).toBeGreaterThan(ALPHA)
    }
  })

  it('the statistics would notice a wrong weighting (the test can fail)', () => {
    const def = smallDefinition({
      blockSize: 40_000,
      tiers: smallDefinition().tiers.map((t) => ({ ...t, count: t.count * 4 })),
    })
    const d = new BlockDeriver(def, prim, ref('compositions-small'))
    const counts = compositionFrequencies(def, d, 1000)
    // Pretend the rule said 50/50 instead of 80/20.
    const skewed = {
      ...def,
      compositions: def.compositions.map((c) =>
        c.amountCents === 1000 ? { ...c, options: c.options.map((o) => ({ ...o, weight: 1 })) } : c,
      ),
    }
    expect(expectWeights(skewed, counts, 1000).pValue).toBeLessThan(ALPHA)
  })
})

describe('random access', () => {
  const def = smallDefinition()
  const d = new BlockDeriver(def, prim, ref('random-access'))

  it('ticket(i) equals the i-th record of any range that holds it (across keystream batches)', () => {
    const rb = recordBytes(def)
    const big = d.records(300, 1500)
    for (const u of [300, 301, 511, 512, 811, 812, 1023, 1024, 1799]) {
      expect(d.ticket(u)).toEqual(decodeRecord(def, d.ref, big, (u - 300) * rb))
    }
    for (const [from, count] of [
      [700, 5],
      [811, 1],
      [1000, 300],
      [1299, 501],
    ]) {
      expect(
        Buffer.from(d.records(from, count)).equals(
          Buffer.from(big.subarray((from - 300) * rb, (from - 300 + count) * rb)),
        ),
      ).toBe(true)
    }
  })

  it('the last unit of the block can be made alone', () => {
    const last = d.ticket(def.blockSize - 1)
    expect(last.unit).toBe(def.blockSize - 1)
    expect(last).toEqual(decodeRecord(def, d.ref, d.records(def.blockSize - 3, 3), 2 * recordBytes(def)))
  })

  it('a unit does not depend on the order units are made in', () => {
    const fresh = new BlockDeriver(def, prim, d.ref)
    const a = fresh.ticket(9876)
    fresh.records(0, 2000)
    expect(fresh.ticket(9876)).toEqual(a)
    expect(new BlockDeriver(def, prim, d.ref).ticket(9876)).toEqual(a)
  })

  it('records carry identity, prize, tier and match count, decoded into the ticket', () => {
    const rb = recordBytes(def)
    expect(rb).toBe(4 + 4 + 6 + 48 + 2)
    const rec = d.records(0, def.blockSize)
    for (let u = 0; u < def.blockSize; u += 97) {
      const t = decodeRecord(def, d.ref, rec, u * rb)
      expect(t.unit).toBe(u)
      expect(t.emission).toBe(1)
      expect(t.block).toBe(1)
      expect(t.tier).toBe(d.tierOf(u))
      expect(t.prizeCents).toBe(d.prizeOf(u))
      const w = new Set(t.winning)
      expect(rec[u * rb + rb - 1]).toBe(t.numbers.filter((n) => w.has(n)).length)
    }
  })
})

/**
 * Known answers, recorded from the derivation of DERIVATION.md as committed at 9867e5c. A block's
 * content and commitment are printed on certificates and re-verified years later: any change here
 * is a change of the derivation, to be made on purpose (new version label, DERIVATION.md updated).
 */
describe('known answers (the derivation is stable: a block made today is made identically later)', () => {
  const d = new BlockDeriver(CARATS, prim, ref('known-answer', 12, 34))

  it('the first 1,000 unit records of a fixed CARATS block', () => {
    expect(sha(d.records(0, 1000))).toBe('f6f8b9c80dfe36e17334aa030c53727e1d233e1dcd0685be2525156c40c7e80c')
  })

  it('a losing unit and a 50 EUR winner of that block', () => {
    expect(d.ticket(0)).toEqual({
      emission: 12,
      block: 34,
      unit: 0,
      serial: '0012-034-0000000-4',
      tier: null,
      prizeCents: 0,
      winning: [23, 45, 41, 17, 27, 29],
      numbers: [9, 6, 13, 16, 24, 22, 37, 39, 32, 46, 30, 31, 28, 42, 44, 38, 4, 12, 33, 19, 2, 43, 8, 40],
      amountsCents: [
        5000, 1000, 1000, 5000, 500, 1500, 1000000, 5000, 500, 500, 1500, 5000, 1500, 1500, 500, 1000, 1000, 10000,
        10000, 1500, 1500, 1000, 1000, 1000,
      ],
    })
    expect(d.ticket(28)).toEqual({
      emission: 12,
      block: 34,
      unit: 28,
      serial: '0012-034-0000028-0',
      tier: 4,
      prizeCents: 5000,
      winning: [9, 47, 37, 29, 35, 8],
      numbers: [4, 14, 19, 24, 46, 47, 20, 36, 26, 18, 33, 42, 27, 17, 16, 25, 1, 43, 44, 41, 39, 13, 7, 31],
      amountsCents: [
        1000, 500, 500, 100000, 500, 5000, 500, 1000, 500, 500, 500, 500, 500, 10000, 500, 500, 1000000, 10000,
        50000000, 100000, 1000, 500, 500, 500,
      ],
    })
  })
})
