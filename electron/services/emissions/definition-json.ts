/**
 * A game definition as `carats rules --json` prints it and a publication bundle carries it: every
 * field the commitment's digest covers (DERIVATION.md §6), the exact canonical text hashed and its
 * digest, and the figures derived from it.
 */
import { canonicalJson, definitionDigest } from '../../../game-core/commitment'
import { toHex } from '../../../game-core/primitives'
import { deriveFigures, type GameDefinition } from '../../../game-core/rules'
import { nodePrimitives } from '../../crypto/node-primitives'

export function definitionJson(def: GameDefinition) {
  const f = deriveFigures(def)
  return {
    id: def.id,
    name: def.name,
    unitPriceCents: def.unitPriceCents,
    blockSize: def.blockSize,
    numbers: [...def.numbers],
    winningCells: def.winningCells,
    yoursCells: def.yoursCells,
    tiers: def.tiers.map((t) => ({
      amountCents: t.amountCents,
      count: t.count,
      ...(t.printedTotalCents !== undefined ? { printedTotalCents: t.printedTotalCents } : {}),
    })),
    printableAmountsCents: [...def.printableAmountsCents],
    compositions: def.compositions.map((c) => ({
      amountCents: c.amountCents,
      options: c.options.map((o) => ({ partsCents: [...o.partsCents], weight: o.weight })),
    })),
    decoyWeights: def.decoyWeights.map((d) => ({ amountCents: d.amountCents, weight: d.weight })),
    ...(def.printed ? { printed: { ...def.printed } } : {}),
    /** The exact bytes the definition digest hashes (UTF-8), and that digest. */
    canonicalDefinition: canonicalJson(def),
    definitionDigest: toHex(definitionDigest(nodePrimitives, def)),
    prizesPerBlock: f.prizesPerBlock,
    prizeTotalCents: f.prizeTotalCents,
    losingUnits: f.losingUnits,
    salesPerBlockCents: f.salesPerBlockCents,
    payoutRatio: f.payoutRatio,
    oddsOneIn: f.oddsOneIn,
  }
}

export type DefinitionJson = ReturnType<typeof definitionJson>
