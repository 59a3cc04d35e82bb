/**
 * Prize claims in the ledger: made with their sales, the workflow's steps each once and in
 * order, the second-person rule, related parties' sign-off, and what a tampered file meets.
 */
import { describe, expect, it } from 'vitest'
import type { Claim } from '../../contract/claims-types'
import { formatSerial } from '../../../game-core/serial'
import { splitUnitKey } from '../../ledger/unit-key'
import { CLAIMS_T0, STAFF, useClaimsWorlds, type ClaimsWorld } from '../../../test/support/claims-world'
import { refusalData as refusal, brokenBy } from '../../../test/support/refusal'

const world = useClaimsWorlds('claims')
const { support: suzy, manager: max, auditor: aude, admin: ada } = STAFF
const PLAYERS = ['alice', 'bob', 'carol']

const serialOfKey = (key: number) => formatSerial(splitUnitKey(key), 10_000)
/** The sold units as SQL sees them, by prize. */
function soldWhere(w: ClaimsWorld, sql: string): { serial: string; prize: number }[] {
  return (
    w.db.prepare(`SELECT unit_key, prize_cents FROM sales WHERE ${sql} ORDER BY unit_key`).all() as {
      unit_key: number
      prize_cents: number
    }[]
  ).map((r) => ({ serial: serialOfKey(r.unit_key), prize: r.prize_cents }))
}

async function worldWithClaims(): Promise<{ w: ClaimsWorld; claims: Claim[] }> {
  const w = await world()
  w.sell(1500, PLAYERS)
  const claims = w.claims.all({})
  expect(claims.length).toBeGreaterThan(2)
  return { w, claims }
}

function approved(w: ClaimsWorld, serial: string): Claim {
  w.claims.verify(suzy, serial, { document: 'passport', reference: '18AB12345' })
  return w.claims.approve(max, serial)
}

describe('claims are made with their sales', () => {
  it('gives every sold unit at or above the threshold a pending claim, and no other unit', async () => {
    const { w, claims } = await worldWithClaims()
    const due = soldWhere(w, 'prize_cents >= 10000')
    expect(claims.map((c) => c.serial)).toEqual(due.map((d) => d.serial))
    expect(claims.every((c) => c.status === 'pending' && c.prizeCents === 10_000 && PLAYERS.includes(c.player))).toBe(
      true,
    )
    const below = soldWhere(w, 'prize_cents BETWEEN 1 AND 9999')[0]
    expect(refusal(() => w.claims.get(below.serial))).toMatchObject({
      code: 'NOT_FOUND',
      reason: { key: 'CLAIM_NONE', params: { why: 'below', prizeCents: below.prize, thresholdCents: 10_000 } },
    })
    const losing = soldWhere(w, 'prize_cents = 0')[0]
    expect(refusal(() => w.claims.get(losing.serial))).toMatchObject({
      code: 'NOT_FOUND',
      reason: { key: 'CLAIM_NONE', params: { why: 'losing' } },
    })
    expect(
      refusal(() => w.claims.get(formatSerial({ emission: w.emission, block: 2, unit: 5 }, 10_000))),
    ).toMatchObject({ code: 'NOT_FOUND', reason: { params: { why: 'unsold' } } })
    expect(refusal(() => w.claims.get('0001-001-0000000-0'))).toMatchObject({ code: 'INVALID_SERIAL' })
    expect(
      refusal(() => w.claims.get(formatSerial({ emission: w.emission, block: 9, unit: 5 }, 10_000))),
    ).toMatchObject({ code: 'NOT_FOUND', reason: { key: 'BLOCK_NOT_FOUND' } })
  })

  it('writes no claim when the batch is refused', async () => {
    const w = await world()
    const at = (i: number) => CLAIMS_T0 + 60_000 + i
    const r = w.sales.sellBatch(
      [
        ...Array.from({ length: 400 }, (_, i) => ({ emission: w.emission, player: 'dora', soldAt: at(i) })),
        { emission: w.emission, player: ' bad ', soldAt: at(400) },
      ],
      { collectErrors: true },
    )
    expect(r.ok).toBe(false)
    expect(w.db.prepare('SELECT count(*) FROM claims').pluck().get()).toBe(0)
  })

  it('takes the threshold given at creation, checked against the prize table', async () => {
    const w = await world({ thresholdCents: 5_000 })
    expect(w.emissions.summary(w.emission).claimThresholdCents).toBe(5_000)
    w.sell(300, PLAYERS)
    expect(w.claims.all({}).length).toBe(soldWhere(w, 'prize_cents >= 5000').length)
    for (const cents of [10_100, 50, 12_345]) {
      expect(
        refusal(() => w.emissions.create(STAFF.operator, { blocks: 1, demo: true, claimThresholdCents: cents })),
      ).toMatchObject({ code: 'BAD_ARGUMENTS', reason: { key: 'CLAIM_THRESHOLD_RANGE' } })
    }
  })
})

describe('the workflow', () => {
  it('goes pending → verified → approved → paid, each step by whom and when, audited', async () => {
    const { w, claims } = await worldWithClaims()
    const serial = claims[0].serial
    const v = w.claims.verify(suzy, serial, { document: 'id-card', reference: 'X4RTBPFW46' })
    expect(v).toMatchObject({
      status: 'verified',
      // the document's number is shown masked: the whole of it is an auditor's logged look
      verified: { by: 'suzy', document: 'id-card', reference: '…FW46' },
      approved: null,
    })
    expect(w.claims.approve(max, serial)).toMatchObject({ status: 'approved', approved: { by: 'max' } })
    const paid = w.claims.pay(max, serial, 'VIR-2026-0001')
    expect(paid).toMatchObject({ status: 'paid', paid: { by: 'max', reference: 'VIR-2026-0001' }, needsSignOff: false })
    expect(Date.parse(paid.paid!.at)).toBeGreaterThan(Date.parse(paid.approved!.at))
    const log = w.audit
      .list({ page: 1, pageSize: 20 })
      .items.filter((a) => a.action.startsWith('claim.'))
      .reverse()
    expect(log.map((a) => [a.action, a.actor, a.object])).toEqual([
      ['claim.verify', 'suzy', `unit:${serial}`],
      ['claim.approve', 'max', `unit:${serial}`],
      ['claim.pay', 'max', `unit:${serial}`],
    ])
    // the document's number is not copied into the log
    expect(log[0].details).toContain('…FW46')
    expect(log[0].details).not.toContain('X4RTBPFW46')
  })

  it('takes each step once and in order', async () => {
    const { w, claims } = await worldWithClaims()
    const [a, b] = claims.map((c) => c.serial)
    expect(refusal(() => w.claims.approve(max, a))).toMatchObject({
      code: 'ILLEGAL_STATE',
      reason: { key: 'CLAIM_STEP', params: { status: 'pending', step: 'approve' } },
    })
    expect(refusal(() => w.claims.pay(max, a, 'VIR-1'))).toMatchObject({ code: 'ILLEGAL_STATE' })
    w.claims.verify(suzy, a, { document: 'passport', reference: '18AB12345' })
    expect(refusal(() => w.claims.verify(ada, a, { document: 'passport', reference: '18AB12345' }))).toMatchObject({
      code: 'CONFLICT',
    })
    expect(refusal(() => w.claims.pay(max, a, 'VIR-1'))).toMatchObject({
      code: 'ILLEGAL_STATE',
      reason: { params: { status: 'verified', step: 'pay' } },
    })
    w.claims.approve(max, a)
    expect(refusal(() => w.claims.approve({ name: 'mia', role: 'manager' }, a))).toMatchObject({ code: 'CONFLICT' })
    w.claims.pay(ada, a, 'VIR-1')
    expect(refusal(() => w.claims.pay(ada, a, 'VIR-2'))).toMatchObject({
      code: 'CONFLICT',
      reason: { params: { status: 'paid' } },
    })
    expect(refusal(() => w.claims.reject(max, a, 'changed my mind'))).toMatchObject({ code: 'ILLEGAL_STATE' })
    // a second claim paid with the same reference: refused, nothing written
    approved(w, b)
    expect(refusal(() => w.claims.pay(max, b, 'VIR-1'))).toMatchObject({
      code: 'CONFLICT',
      reason: { key: 'PAYMENT_REF_USED', params: { serial: a } },
    })
    expect(w.claims.get(b).claim.status).toBe('approved')
  })

  it('never lets the person who verified approve, whatever the case of their name', async () => {
    const { w, claims } = await worldWithClaims()
    const serial = claims[0].serial
    w.claims.verify({ name: 'Max', role: 'admin' }, serial, { document: 'passport', reference: '18AB12345' })
    expect(refusal(() => w.claims.approve(max, serial))).toMatchObject({
      code: 'FORBIDDEN',
      reason: { key: 'CLAIM_SAME_PERSON', params: { step: 'approve', earlier: 'verify' } },
    })
    expect(w.claims.approve({ name: 'mia', role: 'manager' }, serial).status).toBe('approved')
    // and the file itself refuses it
    const key = w.db.prepare("SELECT unit_key FROM claims WHERE status = 'pending' LIMIT 1").pluck().get()
    expect(
      brokenBy(() =>
        w.db
          .prepare(
            "UPDATE claims SET status = 'approved', document = 'passport', document_ref = 'x', verified_by = 'max', verified_at = 'now', approved_by = 'MAX', approved_at = 'now' WHERE unit_key = ?",
          )
          .run(key),
      ),
    ).toBe('check')
  })

  it('rejects with a reason at any step before paid, and a rejection is final', async () => {
    const { w, claims } = await worldWithClaims()
    const [a, b, c] = claims.map((x) => x.serial)
    expect(w.claims.reject(suzy, a, 'identity document is forged')).toMatchObject({
      status: 'rejected',
      rejected: { by: 'suzy', from: 'pending', reason: 'identity document is forged' },
    })
    w.claims.verify(suzy, b, { document: 'passport', reference: '18AB12345' })
    expect(w.claims.reject(max, b, 'claimant is not the account holder').rejected).toMatchObject({ from: 'verified' })
    approved(w, c)
    expect(w.claims.reject(aude, c, 'related to a retailer').rejected).toMatchObject({ from: 'approved', by: 'aude' })
    expect(refusal(() => w.claims.reject(max, a, 'twice'))).toMatchObject({ code: 'CONFLICT' })
    expect(refusal(() => w.claims.verify(suzy, a, { document: 'passport', reference: '18AB12345' }))).toMatchObject({
      code: 'ILLEGAL_STATE',
    })
    expect(refusal(() => w.claims.pay(max, c, 'VIR-9'))).toMatchObject({ code: 'ILLEGAL_STATE' })
  })
})

describe('related parties', () => {
  it('flag the claim, which is paid only after an auditor signs it off', async () => {
    const { w, claims } = await worldWithClaims()
    const claim = claims[0]
    const entry = w.parties.add(aude, {
      player: claim.player.toUpperCase(),
      relation: 'retailer',
      linkedTo: 'Tabac du Port',
      reason: 'the retailer’s own account',
    })
    expect(w.claims.get(claim.serial)).toMatchObject({
      claim: { related: true, needsSignOff: true },
      parties: [{ id: entry.id, linkedTo: 'Tabac du Port' }],
    })
    expect(refusal(() => w.claims.signOff(aude, claim.serial))).toMatchObject({
      code: 'ILLEGAL_STATE',
      reason: { params: { status: 'pending', step: 'signOff' } },
    })
    approved(w, claim.serial)
    expect(refusal(() => w.claims.pay(max, claim.serial, 'VIR-7'))).toMatchObject({
      code: 'ILLEGAL_STATE',
      reason: { key: 'CLAIM_SIGN_OFF' },
    })
    expect(w.claims.signOff(aude, claim.serial)).toMatchObject({ signedOff: { by: 'aude' }, needsSignOff: false })
    expect(refusal(() => w.claims.signOff({ name: 'ava', role: 'auditor' }, claim.serial))).toMatchObject({
      code: 'CONFLICT',
    })
    expect(w.claims.pay(max, claim.serial, 'VIR-7')).toMatchObject({ status: 'paid', related: true })
    const other = claims.find((c) => c.player !== claim.player)!
    approved(w, other.serial)
    expect(refusal(() => w.claims.signOff(aude, other.serial))).toMatchObject({
      code: 'ILLEGAL_STATE',
      reason: { key: 'CLAIM_NOT_RELATED' },
    })
  })

  it('keep the person an account is linked to away from its claims', async () => {
    const { w, claims } = await worldWithClaims()
    const claim = claims[0]
    w.parties.add(ada, { player: claim.player, relation: 'family', linkedTo: 'suzy', reason: 'her brother' })
    expect(
      refusal(() => w.claims.verify(suzy, claim.serial, { document: 'passport', reference: '18AB12345' })),
    ).toMatchObject({ code: 'FORBIDDEN', reason: { key: 'CLAIM_CONFLICT' } })
    expect(refusal(() => w.claims.reject(suzy, claim.serial, 'not me'))).toMatchObject({ code: 'FORBIDDEN' })
  })

  it('keep every entry: added once per link, removed once with a reason, never deleted', async () => {
    const w = await world()
    const e = w.parties.add(aude, {
      player: 'bob',
      relation: 'staff',
      linkedTo: 'Bob Martin',
      reason: 'employee, payroll 4411',
    })
    expect(
      refusal(() => w.parties.add(ada, { player: 'BOB', relation: 'staff', linkedTo: 'bob martin', reason: 'again' })),
    ).toMatchObject({ code: 'CONFLICT', reason: { key: 'PARTY_EXISTS' } })
    expect(w.parties.remove(ada, e.id, 'left the company').removed).toMatchObject({
      by: 'ada',
      reason: 'left the company',
    })
    expect(refusal(() => w.parties.remove(ada, e.id, 'again'))).toMatchObject({
      code: 'CONFLICT',
      reason: { key: 'PARTY_REMOVED' },
    })
    expect(refusal(() => w.parties.remove(ada, 99, 'none'))).toMatchObject({ code: 'NOT_FOUND' })
    expect(w.parties.list(false)).toEqual([])
    expect(w.parties.list(true)).toHaveLength(1)
    expect(() => w.db.prepare('DELETE FROM related_parties').run()).toThrow(/keeps every entry/)
    expect(() =>
      w.db.prepare('UPDATE related_parties SET removed_at = NULL, removed_by = NULL, removed_reason = NULL').run(),
    ).toThrow(/only removed, once/)
  })
})

describe('the list', () => {
  it('filters by status, emission and player (ignoring case), pages, and counts each status with its amount', async () => {
    const { w, claims } = await worldWithClaims()
    approved(w, claims[0].serial)
    w.claims.reject(suzy, claims[1].serial, 'no identity given')
    const all = w.claims.list({ pageSize: 2 })
    expect(all.total).toBe(claims.length)
    expect(all.items.map((c) => c.serial)).toEqual(
      claims
        .slice(-2)
        .reverse()
        .map((c) => c.serial),
    )
    expect(all.totals).toEqual([
      { status: 'pending', count: claims.length - 2, amountCents: (claims.length - 2) * 10_000 },
      { status: 'verified', count: 0, amountCents: 0 },
      { status: 'approved', count: 1, amountCents: 10_000 },
      { status: 'paid', count: 0, amountCents: 0 },
      { status: 'rejected', count: 1, amountCents: 10_000 },
      { status: 'expired', count: 0, amountCents: 0 },
    ])
    expect(w.claims.list({ status: 'approved' })).toMatchObject({ total: 1, items: [{ serial: claims[0].serial }] })
    const bob = claims.filter((c) => c.player === 'bob')
    expect(w.claims.list({ player: 'BOB', order: 'asc' }).items.map((c) => c.serial)).toEqual(bob.map((c) => c.serial))
    expect(w.claims.list({ emission: w.emission + 1 }).total).toBe(0)
    expect(refusal(() => w.claims.list({ player: 'nobody' }))).toMatchObject({
      code: 'NOT_FOUND',
      reason: { key: 'PLAYER_NOT_FOUND' },
    })
  })
})

describe('a tampered file', () => {
  it('cannot delete a claim, reopen a paid one, or change its prize', async () => {
    const { w, claims } = await worldWithClaims()
    const serial = claims[0].serial
    approved(w, serial)
    w.claims.pay(max, serial, 'VIR-1')
    expect(() => w.db.prepare('DELETE FROM claims').run()).toThrow(/cannot be deleted/)
    expect(() =>
      w.db
        .prepare(
          "UPDATE claims SET status = 'approved', paid_by = NULL, paid_at = NULL, payment_ref = NULL WHERE status = 'paid'",
        )
        .run(),
    ).toThrow(/final/)
    expect(() => w.db.prepare("UPDATE claims SET prize_cents = 1 WHERE status = 'pending'").run()).toThrow(
      /never change/,
    )
  })
})
