import type { ClaimsDashboard, ClaimTotal } from '../../../../electron/contract/claims-types'
import type { Dashboard } from '../../../../electron/contract'

/**
 * The prizes the lottery owes, in two parts: those won at or above a claim threshold and not yet
 * paid (their claims pending, verified or approved), and those still in the units not yet sold
 * of open emissions.
 */
export function liabilitySplit(d: Pick<Dashboard, 'claims' | 'remainingLiabilityCents'>): {
  wonUnpaidCents: number
  unsoldCents: number
  totalCents: number
} {
  const wonUnpaidCents = d.claims.unpaidCents
  return {
    wonUnpaidCents,
    unsoldCents: d.remainingLiabilityCents,
    totalCents: wonUnpaidCents + d.remainingLiabilityCents,
  }
}

/** The claims table's rows (every status, zeros included) and its total line; null when there is no claim. */
export function claimsTable(
  c: ClaimsDashboard,
): { rows: ClaimTotal[]; total: { count: number; amountCents: number } } | null {
  const total = c.byStatus.reduce(
    (s, t) => ({ count: s.count + t.count, amountCents: s.amountCents + t.amountCents }),
    { count: 0, amountCents: 0 },
  )
  return total.count === 0 ? null : { rows: c.byStatus, total }
}
