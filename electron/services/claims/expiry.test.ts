/**
 * Claim deadlines: after its emission's close plus its claim days, an open claim is expired by
 * the pass, audited and sealed, never paid; a settled claim is left as it was; claims nearing the
 * deadline are listed with their notice (30, 7, 1 day).
 */
import { describe, expect, it } from 'vitest'
import { STAFF, useClaimsWorlds, type ClaimsWorld } from '../../../test/support/claims-world'
import { refusalData as refusal, brokenBy } from '../../../test/support/refusal'

const world = useClaimsWorlds('expiry')
const { support: suzy, manager: max, admin: ada, operator: otto } = STAFF
const DAY = 86_400_000

/** A world with claims in every status but expired, then its emission closed. */
async function closedWorld(claimDays?: number): Promise<{ w: ClaimsWorld; serials: string[] }> {
  const w = await world({ claimDays })
  w.sell(1500, ['alice', 'bob', 'carol'])
  const serials = w.claims.all({}).map((c) => c.serial)
  expect(serials.length).toBeGreaterThanOrEqual(5)
  const [, verified, approved, paid, rejected] = serials
  for (const s of [verified, approved, paid]) w.claims.verify(suzy, s, { document: 'passport', reference: '18AB12345' })
  for (const s of [approved, paid]) w.claims.approve(max, s)
  w.claims.pay(ada, paid, 'VIR-2026-1')
  w.claims.reject(max, rejected, 'forged ticket')
  w.emissions.close(otto, w.emission)
  return { w, serials }
}

const statuses = (w: ClaimsWorld) => Object.fromEntries(w.claims.all({}).map((c) => [c.serial, c.status]))

describe('claim deadlines', () => {
  it('is 30 days after the close by default, given at creation, and refused out of range', async () => {
    const { w } = await closedWorld()
    const e = w.emissions.get(w.emission)
    expect(e.claimDays).toBe(30)
    expect(Date.parse(e.claimDeadline!) - Date.parse(e.closedAt!)).toBe(30 * DAY)
    expect(w.emissions.certificate(w.emission).claimDays).toBe(30)
    for (const days of [0, 3651, 1.5])
      expect(refusal(() => w.emissions.create(otto, { blocks: 1, claimDays: days }))).toMatchObject({
        code: 'BAD_ARGUMENTS',
        reason: { key: 'CLAIM_DAYS_RANGE' },
      })
    expect(w.emissions.create(otto, { blocks: 1, claimDays: 90 }).claimDays).toBe(90)
  })

  it('expires the open claims once the deadline has passed, each audited, and leaves settled ones', async () => {
    const { w, serials } = await closedWorld(10)
    const before = statuses(w)
    expect(w.claims.expire(ada)).toMatchObject({ claims: 0, emissions: [] })
    w.advance(10 * DAY)
    const open = serials.filter((s) => ['pending', 'verified', 'approved'].includes(before[s]))
    const r = w.claims.expire(ada)
    expect(r.claims).toBe(open.length)
    expect(r.emissions[0]).toMatchObject({ emission: w.emission, claims: open.length })
    const after = statuses(w)
    for (const s of serials) expect(after[s]).toBe(open.includes(s) ? 'expired' : before[s])
    const expired = w.claims.get(open[0]).claim
    expect(expired.expired).toMatchObject({ by: 'ada' })
    const entries = w.db.prepare("SELECT object, actor FROM audit WHERE action = 'claim.expire'").all()
    expect(entries).toHaveLength(open.length)
    expect(w.audit.verify().ok).toBe(true)
    // each expired claim sealed to its entry: a row put back to pending by SQL is named
    expect(w.audit.checkRecords().findings).toEqual([])
    // a second pass finds nothing more
    expect(w.claims.expire(ada).claims).toBe(0)
  })

  it('takes no step on a claim past its deadline, before or after the pass', async () => {
    const { w, serials } = await closedWorld(10)
    const approved = serials[2]
    w.advance(10 * DAY)
    expect(refusal(() => w.claims.pay(ada, approved, 'VIR-LATE'))).toMatchObject({
      code: 'ILLEGAL_STATE',
      reason: { key: 'CLAIM_EXPIRED' },
    })
    w.claims.expire(ada)
    for (const step of [
      () => w.claims.pay(ada, approved, 'VIR-LATE'),
      () => w.claims.reject(max, approved, 'too late anyway'),
      () => w.claims.verify(suzy, serials[0], { document: 'passport', reference: '18AB12345' }),
    ])
      expect(refusal(step)).toMatchObject({ code: 'ILLEGAL_STATE', reason: { key: 'CLAIM_EXPIRED' } })
  })

  it('keeps an expired claim final in the ledger itself', async () => {
    const { w, serials } = await closedWorld(1)
    w.advance(DAY)
    w.claims.expire(ada)
    const s = serials[0]
    const key = w.db.prepare("SELECT unit_key FROM claims WHERE status = 'expired' LIMIT 1").pluck().get()
    expect(brokenBy(() => w.db.prepare("UPDATE claims SET status = 'pending' WHERE unit_key = ?").run(key))).toBe(
      'trigger',
    )
    expect(w.claims.get(s).claim.status).toBe('expired')
    // the emission's claim days are sealed with it: lengthened by SQL, the check names the row
    expect(w.audit.checkRecords().findings).toEqual([])
    w.db.prepare('UPDATE emissions SET claim_days = 400 WHERE emission = ?').run(w.emission)
    expect(w.audit.checkRecords().findings).toMatchObject([{ kind: 'emission', key: String(w.emission) }])
  })

  it('lists open claims nearing the deadline with the notice they reached', async () => {
    const { w } = await closedWorld(40)
    expect(w.claims.nearingDeadline()).toEqual([])
    w.advance(11 * DAY)
    const at30 = w.claims.nearingDeadline()
    expect(at30.length).toBeGreaterThan(0)
    expect(at30.every((n) => n.notice === 30 && n.daysLeft <= 30 && n.claim.status !== 'paid')).toBe(true)
    w.advance(24 * DAY)
    expect(w.claims.nearingDeadline().every((n) => n.notice === 7)).toBe(true)
    w.advance(4.5 * DAY)
    expect(w.claims.nearingDeadline().every((n) => n.notice === 1 && n.daysLeft === 1)).toBe(true)
    w.advance(DAY)
    expect(w.claims.nearingDeadline()).toEqual([])
  })
})
