/**
 * Claims counted per status, with their amounts: the one SQL the claims list's counts, the
 * dashboard's claims and the command line share (desk.ts, reports/dashboard.ts). On the claims
 * table alone, whose rows are the few prizes at or above a threshold, on its indexes.
 */
import { CLAIM_STATUSES, type ClaimsDashboard, type ClaimStatus, type ClaimTotal } from '../../contract/claims-types'
import type { Db } from '../../ledger/db'

/** The statuses whose prize is won and not yet paid. */
const UNPAID: readonly ClaimStatus[] = ['pending', 'verified', 'approved']

/** One entry per status (all five, zeros included) of the claims `c` under `where` (`WHERE …` or ''). */
export function claimTotalsWhere(db: Db, where: { sql: string; params: unknown[] }): ClaimTotal[] {
  const rows = db
    .prepare(`SELECT c.status, count(*) AS n, sum(c.prize_cents) AS cents FROM claims c ${where.sql} GROUP BY c.status`)
    .all(...where.params) as { status: ClaimStatus; n: number; cents: number }[]
  return CLAIM_STATUSES.map((status) => {
    const r = rows.find((x) => x.status === status)
    return { status, count: r?.n ?? 0, amountCents: r?.cents ?? 0 }
  })
}

/** Claims per status of these emissions (null: all). */
export function claimTotalsOf(db: Db, emissions: readonly number[] | null): ClaimTotal[] {
  if (emissions === null) return claimTotalsWhere(db, { sql: '', params: [] })
  if (emissions.length === 0) return claimTotalsWhere(db, { sql: 'WHERE 1 = 0', params: [] })
  return claimTotalsWhere(db, {
    sql: `WHERE c.emission IN (${emissions.map(() => '?').join(', ')})`,
    params: [...emissions],
  })
}

/** The dashboard's claims: per status, and the prizes won and not yet paid (pending, verified, approved). */
export function claimsDashboard(totals: ClaimTotal[]): ClaimsDashboard {
  return {
    byStatus: totals,
    unpaidCents: totals.filter((t) => UNPAID.includes(t.status)).reduce((n, t) => n + t.amountCents, 0),
  }
}
