import type {
  LiabilityEmission,
  LiabilityFigures,
  LiabilityReport,
  LiabilityTier,
} from '../../../../electron/contract/liability-types'

/**
 * The parts of a line, in the order of the identity they make: credited + paid + outstanding +
 * expired + void + unsold = table; then the gap (0 when the accounts hold). Each with the claims
 * it counts, for the parts that are claims.
 */
export const PARTS = ['credited', 'paid', 'outstanding', 'expired', 'void', 'unsold', 'table', 'gap'] as const
export type Part = (typeof PARTS)[number]

const CENTS: Record<Part, keyof LiabilityFigures> = {
  credited: 'creditedCents',
  paid: 'paidCents',
  outstanding: 'outstandingCents',
  expired: 'expiredCents',
  void: 'voidCents',
  unsold: 'unsoldCents',
  table: 'tableCents',
  gap: 'gapCents',
}
const CLAIMS: Partial<Record<Part, keyof LiabilityFigures['claims']>> = {
  paid: 'paid',
  outstanding: 'outstanding',
  expired: 'expired',
  void: 'void',
}

/** A part's amount in cents, and how many claims it counts (null for a part that is not claims). */
export function partOf(f: LiabilityFigures, part: Part): { cents: number; claims: number | null } {
  const key = CLAIMS[part]
  return { cents: f[CENTS[part]] as number, claims: key ? f.claims[key] : null }
}

/** The parts a table shows: the gap only when some line does not add up. */
export const shownParts = (balanced: boolean): Part[] => PARTS.filter((p) => p !== 'gap' || !balanced)

/** One line of an emission's table: a block (its tiers below it when opened), a tier of a block, or the emission's total. */
export type LiabilityRow =
  | { key: string; kind: 'block'; block: number; expanded: boolean; figures: LiabilityFigures }
  | { key: string; kind: 'tier'; block: number; tier: LiabilityTier; figures: LiabilityFigures }
  | { key: string; kind: 'total'; figures: LiabilityFigures }

/**
 * An emission's lines: each block, followed by its prize tiers when it is opened (`expanded`,
 * by block number), and the emission's total when it has more than one block.
 */
export function liabilityRows(e: LiabilityEmission, expanded: ReadonlySet<number>): LiabilityRow[] {
  const rows: LiabilityRow[] = []
  for (const b of e.blocks) {
    const open = expanded.has(b.block)
    rows.push({ key: `b${b.block}`, kind: 'block', block: b.block, expanded: open, figures: b.figures })
    if (open)
      for (const tier of b.tiers)
        rows.push({ key: `b${b.block}t${tier.tier}`, kind: 'tier', block: b.block, tier, figures: tier.figures })
  }
  if (e.blocks.length > 1) rows.push({ key: 'total', kind: 'total', figures: e.figures })
  return rows
}

/** The blocks opened at first: the only block of an emission of one; none of an emission of several. */
export const initiallyExpanded = (e: LiabilityEmission): Set<number> =>
  new Set(e.blocks.length === 1 ? [e.blocks[0].block] : [])

/** The blocks whose parts do not add up to their prize table, and by how much: what the warning names. */
export function gapsOf(r: LiabilityReport): { emission: number; block: number; gapCents: number }[] {
  return r.emissions.flatMap((e) =>
    e.blocks
      .filter((b) => b.figures.gapCents !== 0 || b.tiers.some((t) => t.figures.gapCents !== 0))
      .map((b) => ({ emission: e.emission, block: b.block, gapCents: b.figures.gapCents })),
  )
}

/** A deadline notice's colour: a month (info), a week (warning), a day (error). */
export function noticeType(notice: 30 | 7 | 1): 'info' | 'warning' | 'error' {
  return notice === 1 ? 'error' : notice === 7 ? 'warning' : 'info'
}
