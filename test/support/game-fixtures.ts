/** Fixed inputs shared by the game-core tests: reproducible secrets and small game definitions. */
import { createHash } from 'node:crypto'
import { CARATS } from '../../game-core/carats'
import type { GameDefinition } from '../../game-core/rules'

/** A fixed 32-byte block secret named by a label (SHA-256 of the label), so tests are reproducible. */
export function fixedSecret(label: string): Uint8Array {
  return new Uint8Array(createHash('sha256').update(`carats-test-secret/${label}`).digest())
}

const euros = (n: number) => n * 100

/** A deep copy of CARATS that a test may break without touching the real one. */
export function caratsCopy(): GameDefinition {
  return structuredClone(CARATS) as GameDefinition
}

/**
 * A small game on the CARATS numbers, amounts, compositions and decoys: 10,000 units, a table
 * with every composition rule that has several options, so whole blocks verify in milliseconds.
 */
export function smallDefinition(overrides: Partial<GameDefinition> = {}): GameDefinition {
  const c = caratsCopy()
  const keep = [euros(100), euros(50), euros(15), euros(10), euros(5)]
  const counts: Record<number, number> = {
    [euros(100)]: 100,
    [euros(50)]: 500,
    [euros(15)]: 600,
    [euros(10)]: 1200,
    [euros(5)]: 900,
  }
  return {
    ...c,
    id: 'small-test-game',
    name: 'Small test game',
    blockSize: 10_000,
    tiers: keep.map((a) => ({ amountCents: a, count: counts[a] })),
    printed: undefined,
    compositions: c.compositions.filter((r) => keep.includes(r.amountCents)),
    ...overrides,
  }
}

/** The tiniest sound game: numbers just enough for the zones (3 + 5 = 8), 300 units. */
export function tinyDefinition(): GameDefinition {
  return {
    id: 'tiny-test-game',
    name: 'Tiny test game',
    unitPriceCents: 200,
    blockSize: 300,
    numbers: [1, 2, 3, 4, 6, 7, 8, 9],
    winningCells: 3,
    yoursCells: 5,
    tiers: [
      { amountCents: 600, count: 20 },
      { amountCents: 300, count: 60 },
    ],
    printableAmountsCents: [100, 200, 300, 1000],
    compositions: [
      // 600 is a prize but not a printable amount: it only ever shows as a sum of parts.
      {
        amountCents: 600,
        options: [
          { partsCents: [300, 300], weight: 3 },
          { partsCents: [300, 200, 100], weight: 2 },
          { partsCents: [200, 200, 200], weight: 1 },
        ],
      },
      {
        amountCents: 300,
        options: [
          { partsCents: [300], weight: 2 },
          { partsCents: [100, 200], weight: 1 },
          { partsCents: [100, 100, 100], weight: 1 },
        ],
      },
    ],
    decoyWeights: [
      { amountCents: 100, weight: 5 },
      { amountCents: 200, weight: 3 },
      { amountCents: 300, weight: 2 },
      { amountCents: 1000, weight: 1 },
    ],
  }
}

/** The composition a winning ticket shows, as a sorted key ("10000+5000"), from its matching cells. */
export function compositionKey(parts: readonly number[]): string {
  return [...parts].sort((a, b) => b - a).join('+')
}
