/**
 * Claims as finance and support need them: the winner's identity kept and shown masked, whole only
 * to an auditor with a reason (logged); the payment's method; who the claim is assigned to; days
 * pending; a demonstration's claims marked. Each sealed: a value changed with SQL is named.
 */
import { describe, expect, it } from 'vitest'
import { STAFF, useClaimsWorlds } from '../../../test/support/claims-world'
import { refusalData as refusal } from '../../../test/support/refusal'

const world = useClaimsWorlds('identity')
const { support: suzy, manager: max, admin: ada, auditor: aude, operator: otto } = STAFF
const WINNER = {
  document: 'passport',
  reference: '18AB12345',
  name: 'Jeanne-Marie Dupont',
  birthDate: '1980-04-02',
} as const

async function verifiedClaim() {
  const w = await world()
  w.sell(1500, ['alice', 'bob'])
  const [first, second] = w.claims.all({}).map((c) => c.serial)
  return { w, serial: first, other: second, claim: w.claims.verify(suzy, first, WINNER) }
}

describe("the winner's identity", () => {
  it('is kept with the check and shown masked: initials, year of birth, the last four characters', async () => {
    const { w, serial, claim } = await verifiedClaim()
    expect(claim.winner).toEqual({ initials: 'J. M. D.', birthYear: '1980' })
    expect(claim.verified).toMatchObject({ document: 'passport', reference: '…2345' })
    expect(claim.demo).toBe(true)
    expect(claim.daysPending).toBe(0)
    const entry = w.db.prepare("SELECT details FROM audit WHERE action = 'claim.verify'").pluck().get() as string
    expect(entry).not.toContain('Dupont')
    expect(entry).not.toContain('18AB12345')
    expect(w.claims.csv({}).content).not.toContain('Dupont')
    expect(w.claims.get(serial).claim.winner?.initials).toBe('J. M. D.')
  })

  it('is shown whole to an auditor who gives a reason, and the look is logged', async () => {
    const { w, serial, other } = await verifiedClaim()
    expect(refusal(() => w.claims.identity(aude, serial, ' '))).toMatchObject({ code: 'REASON_REQUIRED' })
    expect(w.claims.identity(aude, serial, 'payment dispute, ticket 88')).toEqual({ serial, ...WINNER })
    const look = w.db.prepare("SELECT actor, object, details FROM audit WHERE action = 'claim.identity-view'").all()
    expect(look).toEqual([{ actor: 'aude', object: `unit:${serial}`, details: expect.stringContaining('dispute') }])
    expect(refusal(() => w.claims.identity(aude, other, 'not yet checked'))).toMatchObject({ code: 'ILLEGAL_STATE' })
  })

  it('refuses a winner under 18', async () => {
    const { w, other } = await verifiedClaim()
    const minor = { ...WINNER, birthDate: '2015-01-01' }
    expect(refusal(() => w.claims.verify(suzy, other, minor))).toMatchObject({
      code: 'BAD_ARGUMENTS',
      reason: { key: 'CLAIM_MINOR' },
    })
    expect(w.claims.get(other).claim.status).toBe('pending')
  })
})

describe('the payment, the assignee and the seals', () => {
  it('records how the prize was paid', async () => {
    const { w, serial } = await verifiedClaim()
    w.claims.approve(max, serial)
    expect(w.claims.pay(ada, serial, 'CHQ-0042', 'cheque').paid).toMatchObject({
      reference: 'CHQ-0042',
      method: 'cheque',
    })
    expect(w.claims.get(serial).claim.daysPending).toBeNull()
  })

  it('assigns an open claim to support, a manager or an admin, and to nobody else', async () => {
    const { w, serial } = await verifiedClaim()
    expect(w.claims.assign(max, serial, 'SUZY').assigned).toMatchObject({ to: 'suzy' })
    expect(w.claims.assign(max, serial, 'mia').assigned).toMatchObject({ to: 'mia' })
    for (const to of [otto.name, aude.name, 'nobody'])
      expect(refusal(() => w.claims.assign(max, serial, to))).toMatchObject({ reason: { key: 'CLAIM_ASSIGNEE' } })
    w.claims.approve(max, serial)
    w.claims.pay(ada, serial, 'VIR-77', 'transfer')
    expect(refusal(() => w.claims.assign(max, serial, 'suzy'))).toMatchObject({ code: 'ILLEGAL_STATE' })
    const entries = w.db.prepare("SELECT details FROM audit WHERE action = 'claim.assign'").pluck().all()
    expect(entries).toHaveLength(2)
  })

  it('seals the new fields: a name or an assignee changed with SQL is named by the check', async () => {
    const { w, serial } = await verifiedClaim()
    w.claims.assign(max, serial, 'suzy')
    expect(w.audit.checkRecords().findings).toEqual([])
    w.db.prepare("UPDATE claims SET assigned_to = 'mallory' WHERE assigned_to = 'suzy'").run()
    expect(w.audit.checkRecords().findings).toMatchObject([{ kind: 'claim' }])
    w.db.prepare("UPDATE claims SET assigned_to = 'suzy' WHERE assigned_to = 'mallory'").run()
    w.db.prepare("UPDATE claims SET winner_name = 'Someone Else' WHERE winner_name IS NOT NULL").run()
    expect(w.audit.checkRecords().findings).toMatchObject([{ kind: 'claim' }])
  })
})
