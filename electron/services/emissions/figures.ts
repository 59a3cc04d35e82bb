/**
 * An emission's figures from the ledger's counters (blocks.units_sold, block_tiers.sold), never a
 * scan of the sales: what it has sold and paid, for the emission screen, and what it holds in
 * all, for its certificate. Sales count each unit at the game's price, as the dashboard does.
 */
import type { Certificate, EmissionFigures } from '../../contract/types'
import { deriveFigures } from '../../../game-core/rules'
import type { Db } from '../../ledger/db'
import type { BlockRow, Catalog } from '../catalog'

export function emissionFigures(db: Db, catalog: Catalog, emission: number): EmissionFigures {
  const def = catalog.definition(emission)
  const blocks = catalog.blocks(emission)
  const sold = db
    .prepare('SELECT tier, sum(sold) AS sold FROM block_tiers WHERE emission = ? GROUP BY tier')
    .all(emission) as { tier: number; sold: number }[]
  const unitsSold = blocks.reduce((a, b) => a + b.units_sold, 0)
  const salesCents = unitsSold * def.unitPriceCents
  let prizesWon = 0
  let prizesWonCents = 0
  for (const r of sold) {
    const tier = def.tiers[r.tier]
    if (!tier) continue
    prizesWon += r.sold
    prizesWonCents += r.sold * tier.amountCents
  }
  return {
    unitsSold,
    unitsTotal: blocks.length * def.blockSize,
    salesCents,
    prizesWon,
    prizesWonCents,
    realisedPayout: salesCents > 0 ? prizesWonCents / salesCents : 0,
    theoreticalPayout: deriveFigures(def).payoutRatio,
  }
}

/** Every block's units, prizes and sales; the blocks committed so far. */
export function emissionTotals(
  catalog: Catalog,
  emission: number,
  blocks: BlockRow[] = catalog.blocks(emission),
): Certificate['totals'] {
  const def = catalog.definition(emission)
  const f = deriveFigures(def)
  const n = blocks.length
  return {
    units: n * def.blockSize,
    blocks: n,
    blocksCommitted: blocks.filter((b) => b.commitment !== null).length,
    prizes: n * f.prizesPerBlock,
    prizesCents: n * f.prizeTotalCents,
    salesCents: n * f.salesPerBlockCents,
    payoutRatio: f.payoutRatio,
  }
}
