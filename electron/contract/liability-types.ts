/**
 * Prize liability (electron/services/reports/liability.ts): what the lottery owes at a date, per
 * emission, block and prize tier. For each block, credited + paid + outstanding + expired + void
 * + unsold = the block's prize table (28,857,500 € for 500 000 CARATS), exactly.
 */

/** One line of the report, in cents; claims counted by what became of them. */
export interface LiabilityFigures {
  /** Prizes of the units sold: credited + paid + outstanding + expired + void. */
  wonCents: number
  /** Prizes below the claim threshold, credited to the players' accounts with the sale. */
  creditedCents: number
  paidCents: number
  /** Claims pending, verified or approved: won, not yet paid. */
  outstandingCents: number
  /** Claims still open at their emission's claim deadline. */
  expiredCents: number
  /** Claims rejected. */
  voidCents: number
  /** Prizes still in the units not sold. */
  unsoldCents: number
  /** The prize table of the blocks counted: what the six parts must add up to. */
  tableCents: number
  /** credited + paid + outstanding + expired + void + unsold − table: 0 when the accounts hold. */
  gapCents: number
  claims: { paid: number; outstanding: number; expired: number; void: number }
}

export interface LiabilityTier {
  tier: number
  amountCents: number
  /** Prizes of this tier in a block (the table's count) and those sold. */
  units: number
  sold: number
  /** The tier's prizes are claimed in person (at or above the emission's threshold), not credited. */
  claimed: boolean
  figures: LiabilityFigures
}

export interface LiabilityBlock {
  block: number
  figures: LiabilityFigures
  tiers: LiabilityTier[]
}

export interface LiabilityEmission {
  emission: number
  code: string
  demo: boolean
  status: string
  claimThresholdCents: number
  claimDays: number
  /** When its open claims expire (null while not closed). */
  claimDeadline: string | null
  figures: LiabilityFigures
  /** Its blocks with a prize table (generated); a block not yet generated holds no prize. */
  blocks: LiabilityBlock[]
}

export interface LiabilityReport {
  /** The moment the figures are of: now, or the end of the day asked for (UTC). */
  asOf: string
  /** The day asked for (null: now). */
  day: string | null
  emission: number | null
  includeDemo: boolean
  emissions: LiabilityEmission[]
  total: LiabilityFigures
  /** Every block's parts add up to its prize table. */
  balanced: boolean
}
