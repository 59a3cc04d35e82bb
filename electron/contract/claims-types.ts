/**
 * Prize claims (electron/services/claims/README.md): a sold unit whose prize reaches its emission's claim threshold
 * is paid in person, after its winner's identity is checked by one person and the payment
 * approved by another; claims by related parties also need an auditor's sign-off.
 */
import type { Role } from './define'

/** Who granted and who confirmed an account that took a step (a claim's, a ceremony's). */
export interface AccountProvenance {
  name: string
  role: Role
  grantedBy: string | null
  confirmedBy: string | null
  confirmedAt: string | null
}

/**
 * pending (won, not yet claimed) → verified → approved → paid; rejected at any step before paid;
 * expired when still open after its emission's claim deadline. Paid, rejected and expired are final.
 */
export const CLAIM_STATUSES = ['pending', 'verified', 'approved', 'paid', 'rejected', 'expired'] as const
export type ClaimStatus = (typeof CLAIM_STATUSES)[number]
/** The statuses of a claim won and not yet settled: what the lottery still owes on it. */
export const OPEN_CLAIM_STATUSES = ['pending', 'verified', 'approved'] as const satisfies readonly ClaimStatus[]
export const isOpen = (s: ClaimStatus): s is (typeof OPEN_CLAIM_STATUSES)[number] =>
  (OPEN_CLAIM_STATUSES as readonly ClaimStatus[]).includes(s)

/** The claim deadline's default: 30 days after the emission's close, as FDJ's instant games. */
export const DEFAULT_CLAIM_DAYS = 30
export const MAX_CLAIM_DAYS = 3650
const DAY_MS = 86_400_000

/** The moment an emission's open claims expire: `days` after its close (null while it is not closed). */
export function claimDeadline(closedAt: string | null, days: number): string | null {
  return closedAt === null ? null : new Date(Date.parse(closedAt) + days * DAY_MS).toISOString()
}

/** The identity documents support accepts (those FDJ asks for). */
export const IDENTITY_DOCUMENTS = ['id-card', 'passport', 'residence-permit'] as const
export type IdentityDocument = (typeof IDENTITY_DOCUMENTS)[number]

/** How a prize claimed in person is paid. */
export const PAYMENT_METHODS = ['transfer', 'cheque'] as const
export type PaymentMethod = (typeof PAYMENT_METHODS)[number]

/** The winner's identity as support recorded it: shown whole only to an auditor who gives a reason (logged). */
export interface WinnerIdentity {
  serial: string
  /** null: the claim was verified before the name and date of birth were kept (schema 18) */
  name: string | null
  birthDate: string | null
  document: IdentityDocument
  reference: string
}

/** How a related party is linked to the lottery. */
export const RELATIONS = ['staff', 'retailer', 'family', 'other'] as const
export type Relation = (typeof RELATIONS)[number]

/** The default claim threshold: 5,000 €, from which FDJ asks for the winner's identity. */
export const DEFAULT_CLAIM_THRESHOLD_CENTS = 500_000

export interface ClaimStep {
  by: string
  at: string
}

export interface Claim {
  serial: string
  emission: number
  /** The emission is a demonstration: marked DÉMO, left out of the real figures by default. */
  demo: boolean
  prizeCents: number
  player: string
  soldAt: string
  status: ClaimStatus
  /** The player is in the register of related parties (now, or when an auditor signed off). */
  related: boolean
  /** A related party's claim not yet signed off by an auditor: it cannot be paid. */
  needsSignOff: boolean
  /** The document's number masked to its last four characters (claims:identity gives it whole, to an auditor). */
  verified: (ClaimStep & { document: IdentityDocument; reference: string }) | null
  /** The winner as recorded, masked: initials and year of birth (null: not recorded). */
  winner: { initials: string; birthYear: string | null } | null
  /** The staff member the claim is assigned to, and since when. */
  assigned: { to: string; at: string } | null
  /** Whole days since the sale while the claim is open (null once paid, rejected or expired). */
  daysPending: number | null
  approved: ClaimStep | null
  signedOff: ClaimStep | null
  paid: (ClaimStep & { reference: string; method: PaymentMethod | null }) | null
  rejected: (ClaimStep & { reason: string; from: (typeof OPEN_CLAIM_STATUSES)[number] }) | null
  /** Still open at its emission's claim deadline: no longer paid. */
  expired: ClaimStep | null
}

/** Claims of one status, under the list's other filters. */
export interface ClaimTotal {
  status: ClaimStatus
  count: number
  amountCents: number
}

export interface ClaimsPage {
  total: number
  page: number
  pageSize: number
  items: Claim[]
  /** One entry per status (all five, zeros included), under the filters other than status. */
  totals: ClaimTotal[]
}

export interface RelatedParty {
  id: number
  /** The player account, as the sales feed names it (matched ignoring case). */
  player: string
  relation: Relation
  /** The staff member or retailer the account is linked to. */
  linkedTo: string
  reason: string
  addedBy: string
  addedAt: string
  removed: (ClaimStep & { reason: string }) | null
}

/** Why a player is flagged for auditors. */
export const WINNER_FLAGS = ['improbable', 'many-claims', 'related'] as const
export type WinnerFlag = (typeof WINNER_FLAGS)[number]

/** The cut-offs of the flags (claims/figures.ts), here so that the screens say them too. */
export const WINNER_CUT_OFFS = {
  /** `improbable`: from this many claims, when the chance of as many is below `improbableBelow`. */
  improbableFrom: 2,
  /** One chance in a million. */
  improbableBelow: 1e-6,
  /** `many-claims`: from this many claims, whatever their odds. */
  manyClaims: 5,
} as const

/**
 * A claimant's figures (electron/services/claims/README.md): their units, their claims, how many claims their units
 * would bring on average (the tier odds at each emission's threshold), and the chance of at
 * least as many.
 */
export interface WinnerFigures {
  player: string
  units: number
  claims: number
  claimsCents: number
  /** Σ over emissions of units bought × (units at or above the threshold ÷ units of a block). */
  expectedClaims: number
  /** P(at least `claims` claims) for those units, a Poisson tail of mean expectedClaims. */
  probability: number
  flags: WinnerFlag[]
}

/** The claims side of the dashboard, as of now, of the dashboard's emissions. */
export interface ClaimsDashboard {
  byStatus: ClaimTotal[]
  /** Prizes won at or above the threshold and not yet paid (pending, verified, approved). */
  unpaidCents: number
}

/** The claim's page: the claim, the player's entries in the register, and the player's figures. */
export interface ClaimDetail {
  claim: Claim
  parties: RelatedParty[]
  figures: WinnerFigures
  /** Each account that took a step: who granted it its role and who confirmed it (staff/confirmation.ts) */
  accounts: AccountProvenance[]
}

/** What an expiry pass did: per emission whose deadline had passed, the claims it marked expired. */
export interface ExpiryResult {
  at: string
  emissions: { emission: number; code: string; deadline: string; claims: number; amountCents: number }[]
  claims: number
  amountCents: number
}

/** An open claim within 30 days of its emission's deadline; `notice`: the step reached (30, 7 or 1 day). */
export interface ClaimDeadlineNotice {
  claim: Claim
  deadline: string
  daysLeft: number
  notice: 30 | 7 | 1
}
