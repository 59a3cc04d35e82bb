/**
 * An emission's certificate: the game, its prize table, the emission's totals and each block's
 * commitment. It is issued when the commitments were made (the last block's generation), whenever
 * it is printed; until every block is committed it is provisional.
 */
import type { Certificate } from '../../contract/types'
import { deriveFigures } from '../../../game-core/rules'
import type { AuditService } from '../audit'
import type { BlockRow, Catalog } from '../catalog'
import type { CeremonyService } from './ceremony'
import { type Clock, iso } from '../common'
import { emissionTotals } from './figures'

/** The audit checkpoint as the certificate prints it; none when it cannot be read under the key. */
function checkpointOf(audit: AuditService): Certificate['auditCheckpoint'] {
  try {
    const cp = audit.readCheckpoint().checkpoint
    return cp ? { entries: cp.entries, head: cp.head, at: cp.at } : null
  } catch {
    return null
  }
}

/** The time the last commitment was made (null: none yet). ISO times in UTC sort as text. */
export function commitmentsMadeAt(blocks: Pick<BlockRow, 'generated_at'>[]): string | null {
  return blocks.reduce<string | null>(
    (last, b) => (b.generated_at !== null && (last === null || b.generated_at > last) ? b.generated_at : last),
    null,
  )
}

export function buildCertificate(
  deps: { catalog: Catalog; audit: AuditService; clock: Clock; ceremony: CeremonyService },
  emission: number,
): Certificate {
  const { catalog, audit, clock, ceremony } = deps
  const e = catalog.emission(emission)
  const def = catalog.definition(emission)
  const f = deriveFigures(def)
  const blocks = catalog.blocks(emission)
  const totals = emissionTotals(catalog, emission, blocks)
  return {
    emission,
    code: e.code,
    gameName: def.name,
    definitionId: def.id,
    definitionDigest: e.definition_digest,
    unitPriceCents: def.unitPriceCents,
    blockSize: def.blockSize,
    tiers: def.tiers.map((t) => ({ amountCents: t.amountCents, count: t.count, totalCents: t.amountCents * t.count })),
    prizesPerBlock: f.prizesPerBlock,
    prizeTotalCents: f.prizeTotalCents,
    losingUnits: f.losingUnits,
    salesPerBlockCents: f.salesPerBlockCents,
    payoutRatio: f.payoutRatio,
    oddsOneIn: f.oddsOneIn,
    blocks: blocks.map((b) => ({
      block: b.block,
      status: b.status,
      commitment: b.commitment,
      generatedAt: b.generated_at,
      verifiedAt: b.verified_at,
      seeding: b.seeding,
    })),
    ceremony: ceremony.get(emission),
    singleControl: blocks.some((b) => b.status !== 'pending' && b.seeding === 'single'),
    issuedAt: commitmentsMadeAt(blocks),
    provisional: totals.blocksCommitted < totals.blocks,
    startsOn: e.starts_on,
    claimThresholdCents: e.claim_threshold_cents,
    claimDays: e.claim_days,
    totals,
    printedAt: iso(clock()),
    demo: e.demo === 1,
    auditCheckpoint: checkpointOf(audit),
  }
}
