/**
 * The liability report: for every block, credited + paid + outstanding + expired + void + unsold
 * = the prize table, now and as of a past day; a counter or a claim that no longer agrees shows
 * as a gap; demonstration emissions only when asked for.
 */
import { describe, expect, it } from 'vitest'
import { createReports } from './service'
import { createAlertsService } from '../alerts'
import { STAFF, useClaimsWorlds, type ClaimsWorld } from '../../../test/support/claims-world'
import type { LiabilityFigures } from '../../contract'

const world = useClaimsWorlds('liability')
const { support: suzy, manager: max, admin: ada, operator: otto } = STAFF
const DAY = 86_400_000

function reportsOf(w: ClaimsWorld) {
  const alerts = createAlertsService({ db: w.db, clock: w.clock, audit: w.audit, catalog: w.catalog })
  return createReports({ db: w.db, clock: w.clock, catalog: w.catalog, alerts })
}

/** The small game's prize table, a block: what each block's parts must add up to. */
const tableOf = (w: ClaimsWorld) =>
  w.catalog.definition(w.emission).tiers.reduce((n, t) => n + t.amountCents * t.count, 0)

const sumOfParts = (f: LiabilityFigures) =>
  f.creditedCents + f.paidCents + f.outstandingCents + f.expiredCents + f.voidCents + f.unsoldCents

/** Claims in every state: paid, rejected, approved, pending; a day passes between the steps. */
async function worldWithSteps() {
  const w = await world({ claimDays: 5 })
  w.sell(2500, ['alice', 'bob', 'carol'])
  const [paid, rejected, approved] = w.claims.all({}).map((c) => c.serial)
  w.advance(DAY)
  for (const s of [paid, approved]) {
    w.claims.verify(suzy, s, { document: 'passport', reference: '18AB12345' })
    w.claims.approve(max, s)
  }
  w.advance(DAY)
  w.claims.pay(ada, paid, 'VIR-2026-7')
  w.claims.reject(max, rejected, 'forged ticket')
  return { w, paid, rejected, approved, reports: reportsOf(w) }
}

describe('the liability report', () => {
  it('adds up to the prize table for every block, each part from its own records', async () => {
    const { w, reports } = await worldWithSteps()
    const r = reports.liability({ emission: w.emission })
    expect(r.balanced).toBe(true)
    const [e] = r.emissions
    expect(e.blocks.map((b) => b.block)).toEqual([1, 2])
    for (const b of e.blocks) {
      expect(b.figures.tableCents).toBe(tableOf(w))
      expect(sumOfParts(b.figures)).toBe(tableOf(w))
      expect(b.figures.gapCents).toBe(0)
    }
    const claims = w.claims.all({})
    const cents = (s: string) => claims.filter((c) => c.status === s).reduce((n, c) => n + c.prizeCents, 0)
    expect(e.figures).toMatchObject({
      paidCents: cents('paid'),
      voidCents: cents('rejected'),
      outstandingCents: cents('pending') + cents('verified') + cents('approved'),
      expiredCents: 0,
      claims: { paid: 1, void: 1, outstanding: claims.length - 2, expired: 0 },
    })
    const sold = w.db.prepare('SELECT sum(prize_cents) FROM sales').pluck().get() as number
    expect(e.figures.wonCents).toBe(sold)
    expect(e.figures.creditedCents).toBe(sold - claims.reduce((n, c) => n + c.prizeCents, 0))
    expect(r.total).toEqual(e.figures)
  })

  it('still adds up once open claims expire, and shows them expired', async () => {
    const { w, reports } = await worldWithSteps()
    w.emissions.close(otto, w.emission)
    w.advance(6 * DAY)
    const done = w.claims.expire(ada)
    const r = reports.liability({ emission: w.emission })
    expect(r.balanced).toBe(true)
    expect(r.emissions[0].figures).toMatchObject({
      expiredCents: done.amountCents,
      outstandingCents: 0,
      claims: { expired: done.claims },
    })
    expect(r.emissions[0].claimDeadline).not.toBeNull()
  })

  it('shows the open claims of an emission closed 31 days ago expired, at the default deadline, and still adds up', async () => {
    const w = await world()
    w.sell(2500, ['alice', 'bob'])
    w.emissions.close(otto, w.emission)
    const reports = reportsOf(w)
    const open = reports.liability({ emission: w.emission }).total
    w.advance(31 * DAY)
    w.claims.expire(ada)
    const r = reports.liability({ emission: w.emission })
    expect(r.balanced).toBe(true)
    expect(r.total).toMatchObject({ outstandingCents: 0, expiredCents: open.outstandingCents })
    expect(r.total.claims.expired).toBe(open.claims.outstanding)
    expect(sumOfParts(r.total)).toBe(r.total.tableCents)
  })

  it('gives the figures at the end of a past day from the recorded times', async () => {
    const { w, reports, paid } = await worldWithSteps()
    const day = (ms: number) => new Date(ms).toISOString().slice(0, 10)
    const saleDay = day(Date.parse(w.claims.get(paid).claim.soldAt))
    const before = reports.liability({ emission: w.emission, asOf: day(Date.parse(saleDay) - DAY) })
    expect(before.emissions).toEqual([])
    const first = reports.liability({ emission: w.emission, asOf: saleDay })
    expect(first.balanced).toBe(true)
    expect(first.emissions[0].figures).toMatchObject({ paidCents: 0, voidCents: 0 })
    const now = reports.liability({ emission: w.emission })
    expect(first.emissions[0].figures.outstandingCents).toBe(
      now.emissions[0].figures.outstandingCents +
        now.emissions[0].figures.paidCents +
        now.emissions[0].figures.voidCents,
    )
    const later = reports.liability({ emission: w.emission, asOf: day(w.clock().getTime()) })
    expect(later.emissions[0].figures).toEqual(now.emissions[0].figures)
  })

  it('names a gap when a counter no longer agrees with the claims', async () => {
    const { w, reports } = await worldWithSteps()
    const threshold = w.catalog.emission(w.emission).claim_threshold_cents
    const tier = w.catalog.definition(w.emission).tiers.findIndex((t) => t.amountCents >= threshold)
    w.db
      .prepare('UPDATE block_tiers SET sold = sold + 1 WHERE emission = ? AND block = 1 AND tier = ?')
      .run(w.emission, tier)
    const r = reports.liability({ emission: w.emission })
    expect(r.balanced).toBe(false)
    const t = r.emissions[0].blocks[0].tiers[tier]
    expect(t.figures.gapCents).toBe(-t.amountCents)
  })

  it('leaves demonstration emissions out unless asked for, and writes its CSV', async () => {
    const { w, reports } = await worldWithSteps()
    expect(reports.liability({}).emissions).toEqual([])
    expect(reports.liability({ includeDemo: true }).emissions.map((e) => e.demo)).toEqual([true])
    const csv = reports.liabilityCsv({ emission: w.emission, form: 'machine' }).content.split('\n')
    const lines = csv.filter((l) => l.trim() !== '')
    const header = lines[1].split(',')
    expect(header.slice(-8)).toEqual([
      'credited_cents',
      'paid_cents',
      'outstanding_cents',
      'expired_cents',
      'void_cents',
      'unsold_cents',
      'table_cents',
      'gap_cents',
    ])
    const tiers = w.catalog.definition(w.emission).tiers.length
    // per block its tiers and its own row, then the emission's row and the total
    expect(lines.length - 2).toBe(2 * (tiers + 1) + 2)
    expect(lines.at(-1)!.split(',').at(-1)).toBe('0')
  })
})
