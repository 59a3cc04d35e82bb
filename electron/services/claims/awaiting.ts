/**
 * The claims awaiting a step that a given person may take now (the to-do list, services/todo):
 * the step's role (the contract's access of its channel), its status, and the four-eyes rules of
 * steps.ts: never the verifier's approval, never a sign-off by the verifier or the approver, a
 * related party's payment only once signed off, nothing on a claim the register links to the
 * person, nothing past the emission's claim deadline. The step itself checks all of it again.
 */
import { claimDeadline, type Claim, type ClaimStatus } from '../../contract/claims-types'
import type { Role } from '../../contract/define'
import type { Actor } from '../common'
import { samePerson } from '../people'
import type { ClaimRow, ClaimsContext } from './context'
import { SELECT, toClaim } from './rows'

export type AwaitedStep = 'verify' | 'approve' | 'signOff' | 'pay'

/** Who takes each step: the access of claims:verify, claims:approve, claims:signOff, claims:pay (awaiting.test.ts holds them to it). */
export const STEP_ROLES: Record<AwaitedStep, readonly Role[]> = {
  verify: ['admin', 'support'],
  approve: ['manager'],
  signOff: ['auditor'],
  pay: ['admin', 'manager'],
}

const STEP_STATUSES: Record<AwaitedStep, readonly ClaimStatus[]> = {
  verify: ['pending'],
  approve: ['verified'],
  signOff: ['verified', 'approved'],
  pay: ['approved'],
}

/** How many open claims are looked at, oldest sale first; beyond, the list says there are more. */
export const AWAITED_SCAN = 500

export interface AwaitedClaim {
  claim: Claim
  step: AwaitedStep
}

/** Whether the step's own rules let `actor` take it on the claim as read. */
function stepAllowed(r: ClaimRow, step: AwaitedStep, actor: Actor): boolean {
  if (!STEP_STATUSES[step].includes(r.status)) return false
  if (step === 'approve') return !samePerson(r.verified_by, actor.name)
  if (step === 'signOff')
    return (
      Number(r.related) === 1 &&
      r.signed_off_by === null &&
      !samePerson(r.verified_by, actor.name) &&
      !samePerson(r.approved_by, actor.name)
    )
  if (step === 'pay') return Number(r.related) !== 1 || r.signed_off_by !== null
  return true
}

/** Past its emission's claim deadline, no step is taken (steps.ts refuseExpired). */
function pastDeadline(ctx: ClaimsContext, r: ClaimRow, now: number): boolean {
  const e = ctx.catalog.emission(r.emission)
  const deadline = claimDeadline(e.closed_at, e.claim_days)
  return deadline !== null && Date.parse(deadline) <= now
}

/** The register links the claim's player to the person (steps.ts refuseConflict). */
function linkedTo(ctx: ClaimsContext, r: ClaimRow, actor: Actor): boolean {
  return ctx.parties.of(r.player).some((p) => samePerson(p.linkedTo, actor.name))
}

/** The claims awaiting a step of `actor`'s, oldest sale first, each with the step; `more`: not all were looked at. */
export function claimsAwaiting(ctx: ClaimsContext, actor: Actor): { items: AwaitedClaim[]; more: boolean } {
  const steps = (Object.keys(STEP_ROLES) as AwaitedStep[]).filter((s) => STEP_ROLES[s].includes(actor.role))
  if (steps.length === 0) return { items: [], more: false }
  const statuses = [...new Set(steps.flatMap((s) => STEP_STATUSES[s]))]
  const rows = ctx.db
    .prepare(
      `${SELECT} WHERE c.status IN (${statuses.map(() => '?').join(', ')}) ORDER BY c.sold_at, c.unit_key LIMIT ?`,
    )
    .all(...statuses, AWAITED_SCAN) as ClaimRow[]
  const now = ctx.clock().getTime()
  const items: AwaitedClaim[] = []
  for (const r of rows) {
    const step = steps.find((s) => stepAllowed(r, s, actor))
    if (step === undefined || pastDeadline(ctx, r, now) || linkedTo(ctx, r, actor)) continue
    items.push({ claim: toClaim(ctx, r), step })
  }
  return { items, more: rows.length === AWAITED_SCAN }
}
