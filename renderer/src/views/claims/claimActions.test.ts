import { describe, expect, it } from 'vitest'
import type { Claim, ClaimStatus, RelatedParty } from '../../../../electron/contract/claims-types'
import type { Role } from '../../../../electron/contract/define'
import { canUse } from '../../access'
import { claimActions, identityOffered } from './claimActions'

const AT = '2026-01-01T00:00:00.000Z'
function claim(status: ClaimStatus, more: Partial<Claim> = {}): Claim {
  const reached = (s: ClaimStatus) =>
    ['pending', 'verified', 'approved', 'paid'].indexOf(status) >=
    ['pending', 'verified', 'approved', 'paid'].indexOf(s)
  return {
    serial: '0001-001-0000042-7',
    emission: 1,
    demo: false,
    prizeCents: 10_000,
    player: 'p-17',
    soldAt: AT,
    status,
    related: false,
    needsSignOff: false,
    verified:
      reached('verified') && status !== 'rejected'
        ? { by: 'sophie', at: AT, document: 'passport', reference: 'X1234567' }
        : null,
    approved: reached('approved') && status !== 'rejected' ? { by: 'marc', at: AT } : null,
    signedOff: null,
    paid: status === 'paid' ? { by: 'marc', at: AT, reference: 'VIR-1', method: 'transfer' } : null,
    rejected: status === 'rejected' ? { by: 'sophie', at: AT, reason: 'forged', from: 'pending' } : null,
    expired: status === 'expired' ? { by: 'system', at: AT } : null,
    winner: null,
    assigned: null,
    daysPending: null,
    ...more,
  }
}
const related = (status: ClaimStatus, more: Partial<Claim> = {}) =>
  claim(status, { related: true, needsSignOff: true, ...more })
const as = (role: Role, me: string, c: Claim, parties: RelatedParty[] = []) =>
  claimActions(c, (ch) => canUse(ch, role), me, parties)
const actions = (role: Role, me: string, c: Claim) => as(role, me, c).actions
const noteKeys = (role: Role, me: string, c: Claim) => as(role, me, c).notes.map((n) => n.key)

describe('the steps a claim offers, by role and status', () => {
  it('offers support the identity check of a pending claim, and its rejection', () => {
    expect(actions('support', 'sophie', claim('pending'))).toEqual(['verify', 'reject'])
    expect(actions('admin', 'admin', claim('pending'))).toEqual(['verify', 'assign', 'reject'])
    // support never approves nor pays
    expect(actions('support', 'sophie', claim('verified'))).toEqual(['reject'])
    expect(actions('support', 'sophie', claim('approved'))).toEqual(['reject'])
  })

  it('offers a manager the approval of a verified claim, then its payment', () => {
    expect(actions('manager', 'marc', claim('pending'))).toEqual(['assign', 'reject'])
    expect(actions('manager', 'marc', claim('verified'))).toEqual(['approve', 'assign', 'reject'])
    expect(actions('manager', 'marc', claim('approved'))).toEqual(['pay', 'assign', 'reject'])
    expect(actions('admin', 'admin', claim('approved'))).toEqual(['pay', 'assign', 'reject'])
  })

  it('never lets the person who verified approve, ignoring case, and says another manager approves', () => {
    const c = claim('verified', { verified: { by: 'Marc', at: AT, document: 'id-card', reference: 'AB12' } })
    expect(actions('manager', 'marc', c)).toEqual(['assign', 'reject'])
    expect(as('manager', 'marc', c).notes).toContainEqual({ key: 'anotherApproves', params: { name: 'Marc' } })
    expect(actions('manager', 'paul', c)).toEqual(['approve', 'assign', 'reject'])
  })

  it('asks an auditor’s sign-off of a related party’s claim before its payment', () => {
    expect(actions('auditor', 'aline', related('pending'))).toEqual(['reject'])
    expect(noteKeys('auditor', 'aline', related('pending'))).toEqual(['next', 'signOffNeeded', 'signOffAfterVerify'])
    expect(actions('auditor', 'aline', related('verified'))).toEqual(['signOff', 'reject'])
    expect(actions('auditor', 'aline', related('approved'))).toEqual(['signOff', 'reject'])
    // approved but not signed off: no payment yet, and everyone is told why
    expect(actions('manager', 'marc', related('approved'))).toEqual(['assign', 'reject'])
    expect(noteKeys('manager', 'marc', related('approved'))).toContain('signOffNeeded')
    expect(noteKeys('support', 'sophie', related('verified'))).toContain('signOffNeeded')
    // and what it waits for is the sign-off, not the payment
    expect(as('manager', 'marc', related('approved')).notes[0]).toEqual({
      key: 'next',
      params: { status: 'signOff', name: 'sophie' },
    })
    // signed off: paid as any other
    const signed = related('approved', { needsSignOff: false, signedOff: { by: 'aline', at: AT } })
    expect(actions('manager', 'marc', signed)).toEqual(['pay', 'assign', 'reject'])
    expect(actions('auditor', 'aline', signed)).toEqual(['reject'])
    expect(noteKeys('manager', 'marc', signed)).toEqual(['next'])
  })

  it('offers no sign-off of a claim that needs none, nor to who took an earlier step', () => {
    expect(actions('auditor', 'aline', claim('verified'))).toEqual(['reject'])
    const c = related('approved', { approved: { by: 'aline', at: AT } })
    expect(actions('auditor', 'aline', c)).toEqual(['reject'])
    expect(as('auditor', 'aline', c).notes).toContainEqual({ key: 'anotherSignsOff', params: { name: 'aline' } })
  })

  it('offers nothing on a paid or rejected claim: both are final', () => {
    for (const role of ['admin', 'support', 'manager', 'auditor'] as const) {
      expect(actions(role, 'x', claim('paid'))).toEqual([])
      expect(actions(role, 'x', claim('rejected'))).toEqual([])
    }
    expect(as('manager', 'marc', claim('paid')).notes).toEqual([{ key: 'closed', params: { status: 'paid' } }])
    expect(as('support', 'sophie', claim('rejected')).notes).toEqual([
      { key: 'closed', params: { status: 'rejected' } },
    ])
  })

  it('offers nothing on an expired claim, to any role, and says it will not be paid', () => {
    for (const role of ['admin', 'support', 'manager', 'auditor'] as const) {
      expect(actions(role, 'x', claim('expired'))).toEqual([])
      expect(as(role, 'x', claim('expired')).notes).toEqual([{ key: 'closed', params: { status: 'expired' } }])
    }
    // expired once verified and approved: still nothing, not even a rejection
    const late = claim('expired', {
      verified: { by: 'sophie', at: AT, document: 'passport', reference: 'X1234567' },
      approved: { by: 'marc', at: AT },
    })
    expect(as('manager', 'paul', late)).toEqual({
      actions: [],
      notes: [{ key: 'closed', params: { status: 'expired' } }],
    })
    // nor to a related party's claim still waiting for its sign-off
    expect(actions('auditor', 'aline', related('expired'))).toEqual([])
  })

  it('offers nothing to the person the register links the player to', () => {
    const party: RelatedParty = {
      id: 3,
      player: 'p-17',
      relation: 'staff',
      linkedTo: 'Sophie',
      reason: 'sister',
      addedBy: 'aline',
      addedAt: AT,
      removed: null,
    }
    const offer = as('support', 'sophie', related('pending'), [party])
    expect(offer.actions).toEqual([])
    expect(offer.notes).toContainEqual({ key: 'conflict', params: { player: 'p-17' } })
    // a removed entry links no more
    expect(
      as('support', 'sophie', claim('pending'), [{ ...party, removed: { by: 'aline', at: AT, reason: 'error' } }])
        .actions,
    ).toEqual(['verify', 'reject'])
    expect(as('manager', 'marc', related('verified'), [party]).actions).toEqual(['approve', 'assign', 'reject'])
  })

  it('offers an operator nothing: operators do not see claims', () => {
    expect(actions('operator', 'oscar', claim('pending'))).toEqual([])
    expect(actions('operator', 'oscar', claim('approved'))).toEqual([])
  })

  it('says what every open claim waits for', () => {
    expect(as('support', 'sophie', claim('verified')).notes[0]).toEqual({
      key: 'next',
      params: { status: 'verified', name: 'sophie' },
    })
    expect(as('support', 'sophie', claim('pending')).notes[0]).toEqual({
      key: 'next',
      params: { status: 'pending', name: '' },
    })
  })

  it('offers admins and managers the assignment of an open claim, and no one else, nor on a closed claim', () => {
    expect(actions('support', 'sophie', claim('pending'))).not.toContain('assign')
    expect(actions('auditor', 'aline', claim('verified'))).not.toContain('assign')
    expect(actions('manager', 'marc', claim('pending', { assigned: { to: 'sophie', at: AT } }))).toContain('assign')
    for (const s of ['paid', 'rejected', 'expired'] as const) expect(actions('admin', 'admin', claim(s))).toEqual([])
  })
})

describe('the whole identity of the winner', () => {
  const may = (role: Role, c: Claim) => identityOffered(c, (ch) => canUse(ch, role))
  it('is offered to an auditor once the identity is recorded, whatever the status since', () => {
    expect(may('auditor', claim('verified'))).toBe(true)
    expect(may('auditor', claim('paid'))).toBe(true)
    expect(may('auditor', claim('pending'))).toBe(false)
  })
  it('is offered to no other role', () => {
    for (const role of ['admin', 'support', 'manager', 'operator'] as const)
      expect(may(role, claim('paid'))).toBe(false)
  })
})
