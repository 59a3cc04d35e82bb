import type { ChannelName } from '../../../../electron/contract'
import { isOpen, type Claim, type RelatedParty } from '../../../../electron/contract/claims-types'

/** A step a user may take on a claim, each a form on the claim's page (assign: who handles it, not a status). */
export type ClaimAction = 'verify' | 'approve' | 'signOff' | 'pay' | 'assign' | 'reject'

/** The channel each action calls: offered only to a role the contract lets call it. */
export const CLAIM_ACTION_CHANNEL: Record<ClaimAction, ChannelName> = {
  verify: 'claims:verify',
  approve: 'claims:approve',
  signOff: 'claims:signOff',
  pay: 'claims:pay',
  assign: 'claims:assign',
  reject: 'claims:reject',
}

/**
 * Why a step is not offered, where a user would wonder: the message key under `claims.notes`
 * and its parameters.
 */
export interface ClaimNote {
  key: 'next' | 'closed' | 'signOffNeeded' | 'conflict' | 'anotherApproves' | 'anotherSignsOff' | 'signOffAfterVerify'
  params: Record<string, string>
}

export interface ClaimOffer {
  actions: ClaimAction[]
  notes: ClaimNote[]
}

const same = (a: string | null | undefined, b: string) => !!a && a.toLowerCase() === b.toLowerCase()
/** Paid, rejected and expired are final: no step is taken on them. */
const open = (c: Claim) => isOpen(c.status)

/**
 * What the claim waits for, said to everyone (claims.notes.next.<status>; an approved claim of a
 * related party waits for its sign-off), and a related party's sign-off; or that it is closed.
 */
function waitsFor(c: Claim): ClaimNote[] {
  if (!open(c)) return [{ key: 'closed', params: { status: c.status } }]
  const waiting = c.status === 'approved' && c.needsSignOff ? 'signOff' : c.status
  const next: ClaimNote = { key: 'next', params: { status: waiting, name: c.verified?.by ?? '' } }
  return c.needsSignOff ? [next, { key: 'signOffNeeded', params: { player: c.player } }] : [next]
}

/**
 * The steps `me` may take on the claim (the contract's roles through `can`, the claim's status,
 * the second-person rule, the sign-off of related parties' claims, the register's links to
 * `me`), as the claims service checks them; and why a step the role could take is not offered.
 */
export function claimActions(
  claim: Claim,
  can: (channel: ChannelName) => boolean,
  me: string,
  parties: RelatedParty[] = [],
): ClaimOffer {
  const notes = waitsFor(claim)
  if (!open(claim)) return { actions: [], notes }
  const link = parties.find((p) => p.removed === null && same(p.linkedTo, me))
  if (link) return { actions: [], notes: [...notes, { key: 'conflict', params: { player: claim.player } }] }

  const may = (a: ClaimAction) => can(CLAIM_ACTION_CHANNEL[a])
  const actions: ClaimAction[] = []
  const { status } = claim
  if (status === 'pending' && may('verify')) actions.push('verify')
  if (status === 'verified' && may('approve')) {
    if (same(claim.verified?.by, me)) notes.push({ key: 'anotherApproves', params: { name: claim.verified!.by } })
    else actions.push('approve')
  }
  if (claim.needsSignOff && may('signOff')) {
    const tookStep = [claim.verified?.by, claim.approved?.by].find((by) => same(by, me))
    if (status === 'pending') notes.push({ key: 'signOffAfterVerify', params: {} })
    else if (tookStep) notes.push({ key: 'anotherSignsOff', params: { name: tookStep } })
    else actions.push('signOff')
  }
  // a related party's claim waiting for its sign-off: said by the signOffNeeded note
  if (status === 'approved' && may('pay') && !claim.needsSignOff) actions.push('pay')
  if (may('assign')) actions.push('assign')
  if (may('reject')) actions.push('reject')
  return { actions, notes }
}

/**
 * Whether `me` may ask for the winner's whole identity (claims:identity, an auditor's look, logged):
 * only once support recorded it, whatever the claim's status since.
 */
export function identityOffered(claim: Claim, can: (channel: ChannelName) => boolean): boolean {
  return claim.verified !== null && can('claims:identity')
}
