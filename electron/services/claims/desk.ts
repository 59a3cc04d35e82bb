/**
 * Prize claims (README.md). A sold unit whose prize reaches its emission's threshold has a
 * claim from its sale (writer.ts). It moves pending → verified (support records the
 * identity check) → approved (a manager, never the person who verified) → paid (a payment
 * reference, by a manager or an admin), or is rejected with a reason before it is paid. Each
 * step is taken once, in its own transaction that re-reads the claim, and is audited. A related
 * party's claim is paid only after an auditor's sign-off, and nobody acts on the claims of an
 * account the register links to them.
 */
import { provenanceOf } from '../staff'
import type {
  Claim,
  ClaimDeadlineNotice,
  ClaimDetail,
  ClaimsPage,
  ExpiryResult,
  PaymentMethod,
  WinnerIdentity,
  ClaimStatus,
  ClaimTotal,
  WinnerFigures,
} from '../../contract/claims-types'
import type { CsvFile } from '../../contract/types'
import { buildClaimsContext, claimRow, SELECT, serialOf, toClaim } from './rows'
import type { ClaimRow, ClaimsContext, ClaimsDeps } from './context'
import {
  approveClaim,
  assignClaim,
  payClaim,
  rejectClaim,
  signOffClaim,
  verifyClaim,
  type VerifiedIdentity,
} from './steps'
import { lookAtIdentity } from './identity'
import { claimTotalsOf, claimTotalsWhere } from './totals'
import { claimsCsv, type ClaimsCsvFilters } from './csv'
import { expireClaims, nearingDeadline } from './expiry'
import { claimsAwaiting, type AwaitedClaim } from './awaiting'
import { iso, type Actor } from '../common'
import type { CsvStyle } from '../csv'

export interface ClaimsQuery {
  status?: ClaimStatus
  emission?: number
  player?: string
  order?: 'asc' | 'desc'
  page?: number
  pageSize?: number
}

export interface ClaimsService {
  list(q: ClaimsQuery): ClaimsPage
  /** Every claim under the filters, oldest sale first (the command line, exports). */
  all(q: Omit<ClaimsQuery, 'page' | 'pageSize'>): Claim[]
  /** Claims per status (all five) of these emissions (null: all). */
  totals(emissions: number[] | null): ClaimTotal[]
  get(serial: string): ClaimDetail
  /** The serials of the claims paid with this payment reference, exactly as recorded (at most one). */
  findPaid(reference: string): string[]
  /** Every claim under the filters as a CSV file (csv.ts), office or machine form. */
  csv(args: ClaimsCsvFilters & Partial<CsvStyle>): CsvFile
  /** One player's figures (flagged or not), or every flagged claimant's, least probable first. */
  flags(player?: string): WinnerFigures[]
  verify(actor: Actor, serial: string, identity: VerifiedIdentity): Claim
  approve(actor: Actor, serial: string): Claim
  signOff(actor: Actor, serial: string): Claim
  pay(actor: Actor, serial: string, reference: string, method?: PaymentMethod): Claim
  /** Gives an open claim to a staff member (support, manager, admin) to handle. */
  assign(actor: Actor, serial: string, to: string): Claim
  /** The winner's identity whole: an auditor's look, with a reason, logged (identity.ts). */
  identity(actor: Actor, serial: string, reason: string): WinnerIdentity
  reject(actor: Actor, serial: string, reason: string): Claim
  /** Every claim still open past its emission's deadline marked expired, each audited (expiry.ts). */
  expire(actor: Actor): ExpiryResult
  /** Open claims within 30 days of their deadline, nearest first. */
  nearingDeadline(): ClaimDeadlineNotice[]
  /** The open claims awaiting a step `actor` may take now, four-eyes rules applied (awaiting.ts). */
  awaiting(actor: Actor): { items: AwaitedClaim[]; more: boolean }
}

type Filters = Omit<ClaimsQuery, 'page' | 'pageSize' | 'order'>

/** The WHERE of a list: each filter on its own index (claims_by_status, _by_emission, _by_player). */
function where({ players }: ClaimsContext, q: Filters, withStatus: boolean): { sql: string; params: unknown[] } {
  const terms: string[] = []
  const params: unknown[] = []
  if (withStatus && q.status !== undefined) terms.push('c.status = ?') && params.push(q.status)
  if (q.emission !== undefined) terms.push('c.emission = ?') && params.push(q.emission)
  if (q.player !== undefined) terms.push('c.player_id = ?') && params.push(players.account(q.player).id)
  return { sql: terms.length ? `WHERE ${terms.join(' AND ')}` : '', params }
}

function listClaims(ctx: ClaimsContext, { page = 1, pageSize = 50, order = 'desc', ...q }: ClaimsQuery): ClaimsPage {
  const { db } = ctx
  const w = where(ctx, q, true)
  const dir = order === 'asc' ? 'ASC' : 'DESC'
  const rows = db
    .prepare(`${SELECT} ${w.sql} ORDER BY c.sold_at ${dir}, c.unit_key ${dir} LIMIT ? OFFSET ?`)
    .all(...w.params, pageSize, (page - 1) * pageSize) as ClaimRow[]
  const totals = claimTotalsWhere(db, where(ctx, q, false))
  const total =
    q.status === undefined ? totals.reduce((n, t) => n + t.count, 0) : totals.find((t) => t.status === q.status)!.count
  return { total, page, pageSize, items: rows.map((r) => toClaim(ctx, r)), totals }
}

function allClaims(ctx: ClaimsContext, { order = 'asc', ...q }: Omit<ClaimsQuery, 'page' | 'pageSize'>): Claim[] {
  const w = where(ctx, q, true)
  const dir = order === 'asc' ? 'ASC' : 'DESC'
  return (
    ctx.db.prepare(`${SELECT} ${w.sql} ORDER BY c.sold_at ${dir}, c.unit_key ${dir}`).all(...w.params) as ClaimRow[]
  ).map((r) => toClaim(ctx, r))
}

function claimsFile(
  ctx: ClaimsContext,
  { form = 'machine', locale = 'fr', timeZone, ...filters }: ClaimsCsvFilters & Partial<CsvStyle>,
): CsvFile {
  const asOf = iso(ctx.clock())
  return claimsCsv(allClaims(ctx, filters), filters, asOf, { form, locale, timeZone })
}

function claimDetail(ctx: ClaimsContext, serial: string): ClaimDetail {
  const r = claimRow(ctx, serial)
  const accounts = provenanceOf(ctx.db, [r.verified_by, r.approved_by, r.signed_off_by, r.paid_by, r.rejected_by])
  return { claim: toClaim(ctx, r), parties: ctx.parties.of(r.player), figures: ctx.figures.of(r.player_id), accounts }
}

function findPaid(ctx: ClaimsContext, reference: string): string[] {
  return (ctx.statements.paidWith.all(reference) as number[]).map((key) => serialOf(ctx, key))
}

function flags({ figures, players }: ClaimsContext, player?: string): WinnerFigures[] {
  return player === undefined ? figures.flagged() : [figures.of(players.account(player).id)]
}

export function createClaimsService(deps: ClaimsDeps): ClaimsService {
  const ctx = buildClaimsContext(deps)
  return {
    list: (q) => listClaims(ctx, q),
    all: (q) => allClaims(ctx, q),
    totals: (emissions) => claimTotalsOf(ctx.db, emissions),
    csv: (args) => claimsFile(ctx, args),
    get: (serial) => claimDetail(ctx, serial),
    findPaid: (reference) => findPaid(ctx, reference),
    flags: (player) => flags(ctx, player),
    verify: (actor, serial, identity) => verifyClaim(ctx, actor, serial, identity),
    approve: (actor, serial) => approveClaim(ctx, actor, serial),
    signOff: (actor, serial) => signOffClaim(ctx, actor, serial),
    pay: (actor, serial, reference, method) => payClaim(ctx, actor, serial, reference, method),
    assign: (actor, serial, to) => assignClaim(ctx, actor, serial, to),
    identity: (actor, serial, reason) => lookAtIdentity(ctx, actor, serial, reason),
    reject: (actor, serial, reason) => rejectClaim(ctx, actor, serial, reason),
    expire: (actor) => expireClaims(ctx, actor),
    nearingDeadline: () => nearingDeadline(ctx),
    awaiting: (actor) => claimsAwaiting(ctx, actor),
  }
}
