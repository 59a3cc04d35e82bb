/**
 * Prize liability (README.md, "Prize liability"): for every block with a prize table, each tier's
 * prizes split by what became of them. A tier below the emission's claim threshold is credited
 * with the sale; a tier at or above it is claimed, and its claims are paid, outstanding (pending,
 * verified, approved), expired or void (rejected). What is not sold is still in the unsold
 * units. Each part comes from its own records (the tier counters or the sales, the claims table,
 * the prize table), so the identity credited + paid + outstanding + expired + void + unsold =
 * table is a check, not a sum: a claim missing for a sale, or one too many, shows as a gap.
 *
 * Now: the counters (block_tiers) and the claims grouped on their emission index. As of a past
 * day: the sales sold by its end, counted per block and tier (a scan of the emission's sales), and
 * each claim's state at that moment from its steps' recorded times.
 */
import type { GameDefinition } from '../../../game-core/rules'
import {
  claimDeadline,
  type ClaimStatus,
  type LiabilityBlock,
  type LiabilityEmission,
  type LiabilityFigures,
  type LiabilityReport,
  type LiabilityTier,
} from '../../contract'
import type { Db } from '../../ledger/db'
import { UNIT_KEY_BLOCK } from '../../ledger/unit-key'
import type { Catalog, EmissionRow } from '../catalog'
import { iso, type Clock } from '../common'

export interface LiabilityArgs {
  emission?: number
  /** A UTC day, YYYY-MM-DD: the figures at its end. */
  asOf?: string
  includeDemo?: boolean
}

type Fate = 'paid' | 'outstanding' | 'expired' | 'void'
/** Claims of one block and prize amount that met one fate. */
interface ClaimGroup {
  block: number
  prize: number
  fate: Fate
  n: number
}

export const emptyFigures = (): LiabilityFigures => ({
  wonCents: 0,
  creditedCents: 0,
  paidCents: 0,
  outstandingCents: 0,
  expiredCents: 0,
  voidCents: 0,
  unsoldCents: 0,
  tableCents: 0,
  gapCents: 0,
  claims: { paid: 0, outstanding: 0, expired: 0, void: 0 },
})

/** Adds `b` into `a` (the block's tiers into the block, the blocks into the emission, …). */
function addInto(a: LiabilityFigures, b: LiabilityFigures): LiabilityFigures {
  for (const k of Object.keys(a) as (keyof LiabilityFigures)[]) {
    if (k !== 'claims') a[k] += b[k]
  }
  for (const f of Object.keys(a.claims) as Fate[]) a.claims[f] += b.claims[f]
  return a
}

const FATE_CENTS: Record<Fate, 'paidCents' | 'outstandingCents' | 'expiredCents' | 'voidCents'> = {
  paid: 'paidCents',
  outstanding: 'outstandingCents',
  expired: 'expiredCents',
  void: 'voidCents',
}

/** One tier of one block: its counts, its claims by fate, and the identity's gap. */
function tierFigures(amount: number, units: number, sold: number, claimed: boolean, claims: ClaimGroup[]) {
  const f = emptyFigures()
  f.tableCents = units * amount
  f.unsoldCents = (units - sold) * amount
  if (claimed) {
    for (const c of claims) {
      f[FATE_CENTS[c.fate]] += c.n * amount
      f.claims[c.fate] += c.n
    }
  } else f.creditedCents = sold * amount
  f.wonCents = f.creditedCents + f.paidCents + f.outstandingCents + f.expiredCents + f.voidCents
  f.gapCents = f.wonCents + f.unsoldCents - f.tableCents
  return f
}

/** A claim's fate at a past moment (three times the same parameter), from its steps' recorded times. */
const FATE_THEN = `CASE WHEN c.paid_at <= ? THEN 'paid' WHEN c.rejected_at <= ? THEN 'void'
  WHEN c.expired_at <= ? THEN 'expired' ELSE 'outstanding' END`
const GROUPED = (fate: string, where: string) =>
  `SELECT (c.unit_key / ${UNIT_KEY_BLOCK}) % 1000 AS block, c.prize_cents AS prize, ${fate} AS fate, count(*) AS n
   FROM claims c WHERE c.emission = ? ${where} GROUP BY 1, 2, 3`

/**
 * An emission's claims now, per block, status and prize, read in the order of the index
 * `claims_by_block` (schema 19), whose expressions these are, covered and without a sort.
 */
const GROUPED_NOW = `SELECT (c.unit_key / ${UNIT_KEY_BLOCK}) % 1000 AS block, c.status AS status, c.prize_cents AS prize,
  count(*) AS n FROM claims c WHERE c.emission = ?
  GROUP BY (c.unit_key / ${UNIT_KEY_BLOCK}) % 1000, c.status, c.prize_cents`
const FATE_OF: Record<ClaimStatus, Fate> = {
  pending: 'outstanding',
  verified: 'outstanding',
  approved: 'outstanding',
  paid: 'paid',
  rejected: 'void',
  expired: 'expired',
}

/** An emission's claims by block, prize and fate: now, or at `at` those sold by then. */
function claimGroups(db: Db, emission: number, at: string | null, atMs: number | null): ClaimGroup[] {
  const rows =
    at === null
      ? (db.prepare(GROUPED_NOW).all(emission) as (Omit<ClaimGroup, 'fate'> & { status: ClaimStatus })[]).map(
          ({ status, ...r }) => ({ ...r, fate: FATE_OF[status] }),
        )
      : (db.prepare(GROUPED(FATE_THEN, 'AND c.sold_at <= ?')).all(at, at, at, emission, atMs) as ClaimGroup[])
  return rows.map((r) => ({ ...r, block: Number(r.block), prize: Number(r.prize), n: Number(r.n) }))
}

/** Units sold per block and tier: the counters now, the sales sold by `atMs` for a past day. */
function soldCounts(db: Db, emission: number, atMs: number | null): Map<string, number> {
  const rows = (
    atMs === null
      ? db.prepare('SELECT block, tier, sold AS n FROM block_tiers WHERE emission = ?').all(emission)
      : db
          .prepare(
            `SELECT (unit_key / ${UNIT_KEY_BLOCK}) % 1000 AS block, tier, count(*) AS n FROM sales
             WHERE unit_key BETWEEN ? AND ? AND tier IS NOT NULL AND sold_at <= ? GROUP BY 1, 2`,
          )
          .all(emission * 1e10, emission * 1e10 + 1e10 - 1, atMs)
  ) as { block: number; tier: number; n: number }[]
  return new Map(rows.map((r) => [`${Number(r.block)}:${Number(r.tier)}`, Number(r.n)]))
}

function blockFigures(
  def: GameDefinition,
  threshold: number,
  block: number,
  sold: Map<string, number>,
  claims: ClaimGroup[],
): LiabilityBlock {
  const tiers: LiabilityTier[] = def.tiers.map((t, tier) => {
    const n = sold.get(`${block}:${tier}`) ?? 0
    const claimed = t.amountCents >= threshold
    const mine = claims.filter((c) => c.block === block && c.prize === t.amountCents)
    const figures = tierFigures(t.amountCents, t.count, n, claimed, mine)
    return { tier, amountCents: t.amountCents, units: t.count, sold: n, claimed, figures }
  })
  const figures = tiers.reduce((a, t) => addInto(a, t.figures), emptyFigures())
  return { block, figures, tiers }
}

function emissionLiability(db: Db, catalog: Catalog, e: EmissionRow, at: string | null): LiabilityEmission {
  const def = catalog.definition(e.emission)
  const atMs = at === null ? null : Date.parse(at)
  const sold = soldCounts(db, e.emission, atMs)
  const claims = claimGroups(db, e.emission, at, atMs)
  const made = catalog
    .blocks(e.emission)
    .filter((b) => b.status !== 'pending' && (at === null || (b.generated_at !== null && b.generated_at <= at)))
  const blocks = made.map((b) => blockFigures(def, e.claim_threshold_cents, b.block, sold, claims))
  const figures = blocks.reduce((a, b) => addInto(a, b.figures), emptyFigures())
  return {
    emission: e.emission,
    code: e.code,
    demo: e.demo === 1,
    status: e.status,
    claimThresholdCents: e.claim_threshold_cents,
    claimDays: e.claim_days,
    claimDeadline: claimDeadline(e.closed_at, e.claim_days),
    figures,
    blocks,
  }
}

/** The end of a UTC day, as the ledger's times are written. */
const endOfDay = (day: string) => `${day}T23:59:59.999Z`

export function liabilityReport(
  { db, catalog, clock }: { db: Db; catalog: Catalog; clock: Clock },
  { emission, asOf, includeDemo = false }: LiabilityArgs,
): LiabilityReport {
  const at = asOf === undefined ? null : endOfDay(asOf)
  if (emission !== undefined) catalog.emission(emission) // an emission that does not exist is named
  const rows = (db.prepare('SELECT * FROM emissions ORDER BY emission').all() as EmissionRow[]).filter(
    (e) =>
      (emission === undefined ? includeDemo || e.demo === 0 : e.emission === emission) &&
      (at === null || e.created_at <= at),
  )
  const emissions = rows.map((e) => emissionLiability(db, catalog, e, at))
  const total = emissions.reduce((a, e) => addInto(a, e.figures), emptyFigures())
  const balanced = emissions.every((e) => e.blocks.every((b) => b.tiers.every((t) => t.figures.gapCents === 0)))
  return {
    asOf: at ?? iso(clock()),
    day: asOf ?? null,
    emission: emission ?? null,
    includeDemo,
    emissions,
    total,
    balanced,
  }
}
