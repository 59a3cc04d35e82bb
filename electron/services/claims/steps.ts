/**
 * A claim's steps (README.md): verify, approve, sign off, pay, reject, each with its
 * refusals. Each step is taken once, in its own transaction that re-reads the claim, and is audited.
 */
import { AppError, because } from '../../contract/errors'
import {
  claimDeadline,
  isOpen,
  type Claim,
  type ClaimStatus,
  type IdentityDocument,
  type PaymentMethod,
} from '../../contract/claims-types'
import { unitKey } from '../../ledger/unit-key'
import { lockClaim, lockSubject } from '../../ledger/row-locks'
import type { AuditService } from '../audit'
import { claimRow, initialsOf, maskedReference, serialOf, toClaim } from './rows'
import type { ClaimRow, ClaimsContext } from './context'
import { iso, type Actor } from '../common'
import { twoPersonAccount } from '../staff'
import { samePerson } from '../people'
import { parseSerialOrThrow } from '../sales'

/** The unit key a serial names (a serial that is none is refused, as claimRow refuses it). */
function keyOfSerial(serial: string): number {
  const id = parseSerialOrThrow(serial)
  return unitKey(id.emission, id.block, id.unit)
}

export type ClaimStep = 'verify' | 'approve' | 'signOff' | 'pay' | 'reject'

/** How far along each status is; a step leads to the status one further. */
const RANK: Record<Exclude<ClaimStatus, 'rejected' | 'expired'>, number> = {
  pending: 0,
  verified: 1,
  approved: 2,
  paid: 3,
}
const STEP_TO: Record<'verify' | 'approve' | 'pay', ClaimStatus> = {
  verify: 'verified',
  approve: 'approved',
  pay: 'paid',
}

/** Refuses a step the claim's status does not allow: done already (CONFLICT), too early or final (ILLEGAL_STATE). */
function refuseUnlessNext(ctx: ClaimsContext, r: ClaimRow, step: 'verify' | 'approve' | 'pay'): void {
  const serial = serialOf(ctx, r.unit_key)
  const reason = because('CLAIM_STEP', { serial, status: r.status, step })
  if (r.status === 'rejected')
    throw new AppError(
      'ILLEGAL_STATE',
      `the claim on ${serial} was rejected by ${r.rejected_by} (${r.reject_reason}): a rejection is final`,
      reason,
    )
  if (r.status === 'expired') return // refused by refuseExpired before any step's own check
  const target = RANK[STEP_TO[step] as keyof typeof RANK]
  const at = RANK[r.status]
  if (at >= target)
    throw new AppError('CONFLICT', `the claim on ${serial} is ${r.status} already: each step is taken once`, reason)
  if (at < target - 1) {
    const before = { verify: '', approve: 'its winner’s identity is verified', pay: 'it is approved' }[step]
    throw new AppError(
      'ILLEGAL_STATE',
      `the claim on ${serial} is ${r.status}: it is ${STEP_TO[step]} only once ${before}`,
      reason,
    )
  }
}

/**
 * No step on an expired claim, nor on an open one whose emission's claim deadline has passed
 * (the expiry pass, expiry.ts, will mark it so): after the deadline nothing is paid.
 */
function refuseExpired(ctx: ClaimsContext, r: ClaimRow): void {
  const e = ctx.catalog.emission(r.emission)
  const deadline = claimDeadline(e.closed_at, e.claim_days)
  const over =
    r.status === 'expired' || (isOpen(r.status) && deadline !== null && Date.parse(deadline) <= ctx.clock().getTime())
  if (!over) return
  const serial = serialOf(ctx, r.unit_key)
  throw new AppError(
    'ILLEGAL_STATE',
    `the claim on ${serial} was still open at emission ${r.emission}'s claim deadline, ${deadline}: it expired and can no longer be paid`,
    because('CLAIM_EXPIRED', { serial, deadline: deadline ?? '' }),
  )
}

/** Nobody acts on the claims of an account the register links to them: the person, however their name is typed (people.ts). */
function refuseConflict(ctx: ClaimsContext, actor: Actor, r: ClaimRow): void {
  const link = ctx.parties.of(r.player).find((p) => samePerson(p.linkedTo, actor.name))
  if (link) {
    const serial = serialOf(ctx, r.unit_key)
    throw new AppError(
      'FORBIDDEN',
      `the register links ${r.player} to ${actor.name} (entry ${link.id}): another person must handle the claim on ${serial}`,
      because('CLAIM_CONFLICT', { serial, name: actor.name, player: r.player }),
    )
  }
}

function refuseSamePerson(
  ctx: ClaimsContext,
  actor: Actor,
  r: ClaimRow,
  step: ClaimStep,
  earlier: 'verify' | 'approve',
  by: string | null,
): void {
  if (!samePerson(by, actor.name)) return
  const serial = serialOf(ctx, r.unit_key)
  throw new AppError(
    'FORBIDDEN',
    `${actor.name} took the claim's ${earlier} step on ${serial}: the ${step} step must be another person's`,
    because('CLAIM_SAME_PERSON', { serial, name: actor.name, step, earlier }),
  )
}

interface StepWrite {
  /** The step's refusals, on the claim as re-read inside the transaction. */
  check: (r: ClaimRow) => void
  /** The SET clause and its parameters. */
  set: string
  params: unknown[]
  action: Parameters<AuditService['record']>[1]
  details: (r: ClaimRow) => Record<string, unknown>
}

/**
 * One step: the claim locked and re-read inside an IMMEDIATE transaction (on a team ledger a
 * second step of the same claim waits for this one, then reads what it wrote), checked, written
 * only from the status it was read in (guarded again by the UPDATE), audited.
 */
function step(
  ctx: ClaimsContext,
  actor: Actor,
  serial: string,
  { check, set, params, action, details }: StepWrite,
): Claim {
  const {
    db,
    audit,
    statements: { byKey },
  } = ctx
  const key = db
    .transaction(() => {
      lockClaim(db, keyOfSerial(serial))
      const r = claimRow(ctx, serial)
      refuseConflict(ctx, actor, r)
      refuseExpired(ctx, r)
      check(r)
      const account = twoPersonAccount(db, actor)
      const changed = db
        .prepare(`UPDATE claims SET ${set} WHERE unit_key = ? AND status = ?`)
        .run(...params, r.unit_key, r.status).changes
      if (changed !== 1)
        throw new AppError('CONFLICT', `the claim on ${serial} changed while this step was written: read it again`)
      audit.record(actor.name, action, `unit:${serialOf(ctx, r.unit_key)}`, {
        prizeCents: r.prize_cents,
        player: r.player,
        from: r.status,
        ...details(r),
        account: { grantedBy: account.grantedBy, confirmedBy: account.confirmedBy },
      })
      return r.unit_key
    })
    .immediate()
  return toClaim(ctx, byKey.get(key) as ClaimRow)
}

/** Nobody under 18 wins: a date of birth that makes the winner a minor on the day of the check is refused. */
function refuseMinor(ctx: ClaimsContext, serial: string, birthDate: string | undefined): void {
  if (birthDate === undefined) return
  const today = iso(ctx.clock()).slice(0, 10)
  const adultFrom = `${String(Number(birthDate.slice(0, 4)) + 18).padStart(4, '0')}${birthDate.slice(4)}`
  if (adultFrom > today)
    throw new AppError(
      'BAD_ARGUMENTS',
      `born on ${birthDate}, the winner of ${serial} is under 18: a minor cannot win`,
      {
        field: 'birthDate',
        ...because('CLAIM_MINOR', { serial, birthDate }),
      },
    )
}

export interface VerifiedIdentity {
  document: IdentityDocument
  reference: string
  name?: string
  birthDate?: string
}

export function verifyClaim(ctx: ClaimsContext, actor: Actor, serial: string, identity: VerifiedIdentity): Claim {
  const { document, reference, name, birthDate } = identity
  return step(ctx, actor, serial, {
    check: (r) => {
      refuseUnlessNext(ctx, r, 'verify')
      refuseMinor(ctx, serialOf(ctx, r.unit_key), birthDate)
    },
    set: `status = 'verified', document = ?, document_ref = ?, winner_name = ?, winner_birth_date = ?,
          verified_by = ?, verified_at = ?`,
    params: [document, reference, name ?? null, birthDate ?? null, actor.name, iso(ctx.clock())],
    action: 'claim.verify',
    // the log (and the regulator's vault) keeps the identity masked, as the screens show it
    details: () => ({
      document,
      reference: maskedReference(reference),
      winner: name === undefined ? null : initialsOf(name),
    }),
  })
}

export function approveClaim(ctx: ClaimsContext, actor: Actor, serial: string): Claim {
  return step(ctx, actor, serial, {
    check: (r) => {
      refuseUnlessNext(ctx, r, 'approve')
      refuseSamePerson(ctx, actor, r, 'approve', 'verify', r.verified_by)
    },
    set: "status = 'approved', approved_by = ?, approved_at = ?",
    params: [actor.name, iso(ctx.clock())],
    action: 'claim.approve',
    details: (r) => ({ verifiedBy: r.verified_by }),
  })
}

/** An auditor signs off a related party's claim once verified, before it is paid, never after taking an earlier step. */
function refuseSignOff(ctx: ClaimsContext, actor: Actor, r: ClaimRow): void {
  const s = serialOf(ctx, r.unit_key)
  if (r.related !== 1)
    throw new AppError(
      'ILLEGAL_STATE',
      `${r.player} is not in the register of related parties: the claim on ${s} needs no sign-off`,
      because('CLAIM_NOT_RELATED', { serial: s, player: r.player }),
    )
  if (r.signed_off_by !== null)
    throw new AppError(
      'CONFLICT',
      `the claim on ${s} was signed off by ${r.signed_off_by} already`,
      because('CLAIM_STEP', { serial: s, status: r.status, step: 'signOff' }),
    )
  if (r.status !== 'verified' && r.status !== 'approved') {
    throw new AppError(
      'ILLEGAL_STATE',
      `the claim on ${s} is ${r.status}: an auditor signs off a claim once its winner's identity is verified, before it is paid`,
      because('CLAIM_STEP', { serial: s, status: r.status, step: 'signOff' }),
    )
  }
  refuseSamePerson(ctx, actor, r, 'signOff', 'verify', r.verified_by)
  refuseSamePerson(ctx, actor, r, 'signOff', 'approve', r.approved_by)
}

export function signOffClaim(ctx: ClaimsContext, actor: Actor, serial: string): Claim {
  return step(ctx, actor, serial, {
    check: (r) => refuseSignOff(ctx, actor, r),
    set: 'signed_off_by = ?, signed_off_at = ?',
    params: [actor.name, iso(ctx.clock())],
    action: 'claim.sign-off',
    details: () => ({}),
  })
}

/** Paid once approved, a related party's after its sign-off, each payment with its own reference (its use locked: two claims paid with it at once take turns). */
function refusePay(ctx: ClaimsContext, r: ClaimRow, reference: string): void {
  refuseUnlessNext(ctx, r, 'pay')
  lockSubject(ctx.db, `payment reference ${reference}`)
  const s = serialOf(ctx, r.unit_key)
  if (r.related === 1 && r.signed_off_by === null) {
    throw new AppError(
      'ILLEGAL_STATE',
      `${r.player} is in the register of related parties: an auditor signs off the claim on ${s} before it is paid`,
      because('CLAIM_SIGN_OFF', { serial: s, player: r.player }),
    )
  }
  const other = ctx.statements.paidWith.get(reference) as number | undefined
  if (other !== undefined) {
    throw new AppError(
      'CONFLICT',
      `payment reference ${reference} was recorded for the claim on ${serialOf(ctx, other)}: each payment has its own`,
      { field: 'reference', ...because('PAYMENT_REF_USED', { reference, serial: serialOf(ctx, other) }) },
    )
  }
}

export function payClaim(
  ctx: ClaimsContext,
  actor: Actor,
  serial: string,
  reference: string,
  method?: PaymentMethod,
): Claim {
  return step(ctx, actor, serial, {
    check: (r) => refusePay(ctx, r, reference),
    set: "status = 'paid', payment_ref = ?, payment_method = ?, paid_by = ?, paid_at = ?",
    params: [reference, method ?? null, actor.name, iso(ctx.clock())],
    action: 'claim.pay',
    details: (r) => ({ reference, method: method ?? null, approvedBy: r.approved_by }),
  })
}

/** Who may be given a claim to handle: an active staff account of support, a manager or an admin. */
const ASSIGNABLE_ROLES = ['support', 'manager', 'admin']

/** A manager or an admin gives an open claim to a staff member to handle; given again, it moves. */
export function assignClaim(ctx: ClaimsContext, actor: Actor, serial: string, to: string): Claim {
  const account = ctx.db.prepare('SELECT name, role, active FROM users WHERE name = ?').get(to) as
    { name: string; role: string; active: number } | undefined
  return step(ctx, actor, serial, {
    check: (r) => {
      const s = serialOf(ctx, r.unit_key)
      if (!isOpen(r.status))
        throw new AppError(
          'ILLEGAL_STATE',
          `the claim on ${s} is ${r.status}: only an open claim is assigned`,
          because('CLAIM_STEP', { serial: s, status: r.status, step: 'assign' }),
        )
      if (!account || account.active !== 1 || !ASSIGNABLE_ROLES.includes(account.role))
        throw new AppError(
          'BAD_ARGUMENTS',
          `${to} is not an active account of support, a manager or an administrator: a claim is handled by one`,
          { field: 'to', ...because('CLAIM_ASSIGNEE', { serial: s, name: to }) },
        )
    },
    set: 'assigned_to = ?, assigned_at = ?',
    params: [account?.name ?? to, iso(ctx.clock())],
    action: 'claim.assign',
    details: (r) => ({ to: account?.name ?? to, before: r.assigned_to }),
  })
}

export function rejectClaim(ctx: ClaimsContext, actor: Actor, serial: string, reason: string): Claim {
  return step(ctx, actor, serial, {
    check: (r) => {
      if (r.status === 'paid' || r.status === 'rejected') {
        const s = serialOf(ctx, r.unit_key)
        throw new AppError(
          r.status === 'paid' ? 'ILLEGAL_STATE' : 'CONFLICT',
          `the claim on ${s} is ${r.status}: ${r.status === 'paid' ? 'a paid claim cannot be rejected' : 'it was rejected already'}`,
          because('CLAIM_STEP', { serial: s, status: r.status, step: 'reject' }),
        )
      }
    },
    set: "rejected_from = status, status = 'rejected', rejected_by = ?, rejected_at = ?, reject_reason = ?",
    params: [actor.name, iso(ctx.clock()), reason],
    action: 'claim.reject',
    details: () => ({ reason }),
  })
}
