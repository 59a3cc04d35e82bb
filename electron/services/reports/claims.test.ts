/**
 * The dashboard's claims: per status with amounts, and the prizes won but not yet paid, of the
 * dashboard's emissions (the same emission and demonstration filters as its other figures), as
 * the claims table says.
 */
import { describe, expect, it } from 'vitest'
import { CLAIM_STATUSES, type ClaimStatus } from '../../contract/claims-types'
import { STAFF, useClaimsWorlds, type ClaimsWorld } from '../../../test/support/claims-world'
import { createAlertsService } from '../alerts'
import { createReports } from './service'

const world = useClaimsWorlds('reports-claims')
const { support: suzy, manager: max, admin: ada, auditor: aude, operator: otto } = STAFF

function reportsOf(w: ClaimsWorld) {
  const alerts = createAlertsService({ db: w.db, clock: w.clock, audit: w.audit, catalog: w.catalog })
  return createReports({ db: w.db, clock: w.clock, catalog: w.catalog, alerts })
}

/** Claims per status of these emissions, counted with SQL of the test's own. */
function countedBySql(
  w: ClaimsWorld,
  emissions: number[],
): Record<ClaimStatus, { count: number; amountCents: number }> {
  const out = Object.fromEntries(CLAIM_STATUSES.map((s) => [s, { count: 0, amountCents: 0 }])) as Record<
    ClaimStatus,
    { count: number; amountCents: number }
  >
  const rows = w.db
    .prepare(
      `SELECT status, count(*) AS n, coalesce(sum(prize_cents), 0) AS cents FROM claims WHERE emission IN (${emissions.join(',')}) GROUP BY status`,
    )
    .all() as { status: ClaimStatus; n: number; cents: number }[]
  for (const r of rows) out[r.status] = { count: r.n, amountCents: r.cents }
  return out
}

async function twoEmissions() {
  const w = await world()
  w.sell(1500, ['alice', 'bob'])
  const [a, b, c, d] = w.claims.all({})
  w.claims.verify(suzy, a.serial, { document: 'passport', reference: 'P-0001' })
  w.claims.approve(max, a.serial)
  w.claims.pay(ada, a.serial, 'VIR-1')
  w.claims.verify(suzy, b.serial, { document: 'id-card', reference: 'I-0002' })
  w.claims.verify(suzy, c.serial, { document: 'id-card', reference: 'I-0003' })
  w.claims.approve(max, c.serial)
  w.claims.reject(aude, d.serial, 'stolen ticket')
  // a second demonstration emission, with claims of its own
  const e2 = w.emissions.create(otto, { blocks: 1, demo: true, claimThresholdCents: 10_000 }).emission
  for (const step of ['generate', 'verify'] as const) await w.jobs.wait(w.emissions[step](otto, e2).id)
  w.emissions.open(otto, e2)
  const r = w.sales.sellBatch(
    Array.from({ length: 800 }, (_, i) => ({ emission: e2, player: 'carol', soldAt: w.clock().getTime() + i })),
  )
  if (!r.ok) throw new Error('sale refused')
  return { w, e1: w.emission, e2 }
}

describe("the dashboard's claims", () => {
  it('counts claims per status with their amounts, and the prizes won but not yet paid, as the claims table says', async () => {
    const { w, e1, e2 } = await twoEmissions()
    const d = reportsOf(w).dashboard({ includeDemo: true })
    const sql = countedBySql(w, [e1, e2])
    expect(d.claims.byStatus.map((t) => t.status)).toEqual([
      'pending',
      'verified',
      'approved',
      'paid',
      'rejected',
      'expired',
    ])
    for (const t of d.claims.byStatus) expect({ count: t.count, amountCents: t.amountCents }).toEqual(sql[t.status])
    expect(sql.paid.count).toBe(1)
    expect(sql.verified.count).toBe(1)
    expect(sql.approved.count).toBe(1)
    expect(sql.rejected.count).toBe(1)
    expect(d.claims.unpaidCents).toBe(sql.pending.amountCents + sql.verified.amountCents + sql.approved.amountCents)
    expect(d.claims.unpaidCents).toBeGreaterThan(0)
  })

  it("counts only the chosen emission's claims, and no demonstration emission's unless asked", async () => {
    const { w, e1, e2 } = await twoEmissions()
    const reports = reportsOf(w)
    const one = reports.dashboard({ emission: e2 })
    const sql2 = countedBySql(w, [e2])
    expect(sql2.pending.count).toBeGreaterThan(0)
    expect(one.claims.byStatus.find((t) => t.status === 'pending')).toEqual({ status: 'pending', ...sql2.pending })
    expect(one.claims.byStatus.find((t) => t.status === 'paid')!.count).toBe(0)
    expect(one.claims.unpaidCents).toBe(sql2.pending.amountCents)
    expect(reports.dashboard({ emission: e1 }).claims.byStatus.find((t) => t.status === 'paid')!.count).toBe(1)
    // both emissions are demonstrations: the real figures have no claim
    const real = reports.dashboard({})
    expect(real.claims.unpaidCents).toBe(0)
    expect(real.claims.byStatus.every((t) => t.count === 0 && t.amountCents === 0)).toBe(true)
  })
})

describe("the certificate's claim threshold", () => {
  it("prints the emission's threshold as it was created", async () => {
    const w = await world({ thresholdCents: 5_000 })
    expect(w.emissions.certificate(w.emission).claimThresholdCents).toBe(5_000)
  })
})
