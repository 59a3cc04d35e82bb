/** The emissions as the screens read them: the list, one emission's summary and detail, one block's tiers. */
import { AppError, because } from '../../contract/errors'
import type { BlockDetail, BlockSummary, EmissionDetail, EmissionSummary } from '../../contract/types'
import { deriveFigures, type GameDefinition } from '../../../game-core/rules'
import type { BlockRow, EmissionRow } from '../catalog'
import { claimDeadline } from '../../contract/claims-types'
import type { EmissionsContext } from './context'
import { emissionFigures } from './figures'

type SummaryRow = EmissionRow & { n_blocks: number; n_generated: number; n_verified: number; units_sold: number }

function toSummary({ catalog, jobs }: EmissionsContext, r: SummaryRow): EmissionSummary {
  const def = catalog.definition(r.emission)
  return {
    emission: r.emission,
    code: r.code,
    startsOn: r.starts_on,
    status: r.status,
    blocks: r.blocks,
    blocksGenerated: r.n_generated,
    blocksVerified: r.n_verified,
    unitsTotal: r.blocks * def.blockSize,
    unitsSold: r.units_sold,
    createdAt: r.created_at,
    withdrawnReason: r.withdrawn_reason,
    demo: r.demo === 1,
    jobId: jobs.runningOn(r.emission)?.id ?? null,
    publishedAt: r.published_at,
    publishedBy: r.published_by,
    claimThresholdCents: r.claim_threshold_cents,
    claimDays: r.claim_days,
    closedAt: r.closed_at,
    claimDeadline: claimDeadline(r.closed_at, r.claim_days),
  }
}

function toBlockSummary(b: BlockRow, def: GameDefinition): BlockSummary {
  return {
    emission: b.emission,
    block: b.block,
    status: b.status,
    commitment: b.commitment,
    commitmentVersion: b.commitment_version,
    generatedAt: b.generated_at,
    verifiedAt: b.verified_at,
    unitsSold: b.units_sold,
    unitsTotal: def.blockSize,
    seeding: b.seeding,
  }
}

export function listEmissions(ctx: EmissionsContext): EmissionSummary[] {
  return (ctx.statements.list.all() as SummaryRow[]).map((r) => toSummary(ctx, r))
}

export function emissionSummary(ctx: EmissionsContext, emission: number): EmissionSummary {
  const r = ctx.statements.summary.get(emission) as SummaryRow | undefined
  if (!r)
    throw new AppError('NOT_FOUND', `emission ${emission} does not exist`, {
      field: 'emission',
      ...because('EMISSION_NOT_FOUND', { emission }),
    })
  return toSummary(ctx, r)
}

export function emissionDetail(ctx: EmissionsContext, emission: number): EmissionDetail {
  const { db, catalog } = ctx
  const s = emissionSummary(ctx, emission)
  const def = catalog.definition(emission)
  return {
    ...s,
    blockList: catalog.blocks(emission).map((b) => toBlockSummary(b, def)),
    figures: emissionFigures(db, catalog, emission),
  }
}

export function blockDetail({ db, catalog }: EmissionsContext, emission: number, block: number): BlockDetail {
  const def = catalog.definition(emission)
  const b = catalog.block(emission, block)
  const sold = new Map(
    (
      db.prepare('SELECT tier, sold FROM block_tiers WHERE emission = ? AND block = ?').all(emission, block) as {
        tier: number
        sold: number
      }[]
    ).map((r) => [r.tier, r.sold]),
  )
  const unitsLeft = def.blockSize - b.units_sold
  let prizesSold = 0
  const tiers = def.tiers.map((t, i) => {
    const s = sold.get(i) ?? 0
    prizesSold += s
    const remaining = t.count - s
    return {
      amountCents: t.amountCents,
      initial: t.count,
      sold: s,
      remaining,
      remainingOddsOneIn: remaining > 0 ? unitsLeft / remaining : null,
    }
  })
  const figures = deriveFigures(def)
  return { ...toBlockSummary(b, def), tiers, losingRemaining: figures.losingUnits - (b.units_sold - prizesSold) }
}
