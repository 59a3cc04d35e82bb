/**
 * Claim deadlines (README.md, "Deadlines"): an emission's claims are made and paid within its
 * `claim_days` after its close. The expiry pass marks every claim still open at the deadline
 * `expired`, each with its own audit entry (who ran the pass, when, the deadline); an expired
 * claim is final (the ledger's trigger) and no step is taken on it (steps.ts `refuseExpired`).
 * The pass runs at the app's start, daily while it runs, and from `carats claims expire`.
 * Claims nearing their deadline are listed for managers, at 30, 7 and 1 day before.
 */
import {
  claimDeadline,
  OPEN_CLAIM_STATUSES,
  type ClaimDeadlineNotice,
  type ExpiryResult,
} from '../../contract/claims-types'
import type { Db } from '../../ledger/db'
import { lockEmission } from '../../ledger/row-locks'
import type { Actor } from '../common'
import { iso } from '../common'
import type { ClaimRow, ClaimsContext } from './context'
import { SELECT, serialOf, toClaim } from './rows'

const DAY_MS = 86_400_000
/** How many days before its deadline an open claim is listed, and the notices' steps. */
export const DEADLINE_NOTICES = [30, 7, 1] as const

interface Closed {
  emission: number
  code: string
  deadline: string
}

const OPEN_SQL = `c.status IN (${OPEN_CLAIM_STATUSES.map((s) => `'${s}'`).join(', ')})`

/** The closed emissions with their deadlines: those passed at `now`, or those within `days` of it. */
function closedEmissions(db: Db): Closed[] {
  const rows = db
    .prepare("SELECT emission, code, closed_at, claim_days FROM emissions WHERE status = 'closed' ORDER BY emission")
    .all() as { emission: number; code: string; closed_at: string | null; claim_days: number }[]
  return rows
    .map((r) => ({ emission: r.emission, code: r.code, deadline: claimDeadline(r.closed_at, r.claim_days) }))
    .filter((r): r is Closed => r.deadline !== null)
}

/** One emission's open claims marked expired, each audited, in one transaction. */
function expireEmission(ctx: ClaimsContext, actor: Actor, e: Closed): ExpiryResult['emissions'][number] {
  const { db, audit } = ctx
  return db
    .transaction(() => {
      lockEmission(db, e.emission)
      const open = db
        .prepare(`${SELECT} WHERE c.emission = ? AND ${OPEN_SQL} ORDER BY c.unit_key`)
        .all(e.emission) as ClaimRow[]
      const at = iso(ctx.clock())
      const update = db.prepare(
        "UPDATE claims SET status = 'expired', expired_by = ?, expired_at = ? WHERE unit_key = ? AND status = ?",
      )
      for (const r of open) {
        update.run(actor.name, at, r.unit_key, r.status)
        audit.record(actor.name, 'claim.expire', `unit:${serialOf(ctx, r.unit_key)}`, {
          prizeCents: r.prize_cents,
          player: r.player,
          from: r.status,
          deadline: e.deadline,
        })
      }
      const cents = open.reduce((n, r) => n + r.prize_cents, 0)
      return { emission: e.emission, code: e.code, deadline: e.deadline, claims: open.length, amountCents: cents }
    })
    .immediate()
}

/** Every claim still open past its emission's deadline, expired now; emissions with none are left out. */
export function expireClaims(ctx: ClaimsContext, actor: Actor): ExpiryResult {
  const now = ctx.clock().getTime()
  const due = closedEmissions(ctx.db).filter((e) => Date.parse(e.deadline) <= now)
  const done = due.map((e) => expireEmission(ctx, actor, e)).filter((e) => e.claims > 0)
  return {
    at: iso(ctx.clock()),
    emissions: done,
    claims: done.reduce((n, e) => n + e.claims, 0),
    amountCents: done.reduce((n, e) => n + e.amountCents, 0),
  }
}

/** The notice a claim is under: the smallest of 30, 7 and 1 days that its days left reach. */
function noticeOf(daysLeft: number): (typeof DEADLINE_NOTICES)[number] {
  return [...DEADLINE_NOTICES].reverse().find((d) => daysLeft <= d) ?? DEADLINE_NOTICES[0]
}

/** Open claims whose deadline falls within 30 days, the nearest first: what managers chase. */
export function nearingDeadline(ctx: ClaimsContext): ClaimDeadlineNotice[] {
  const now = ctx.clock().getTime()
  const horizon = now + DEADLINE_NOTICES[0] * DAY_MS
  const soon = closedEmissions(ctx.db).filter((e) => {
    const d = Date.parse(e.deadline)
    return d > now && d <= horizon
  })
  return soon
    .flatMap((e) => {
      const rows = ctx.db
        .prepare(`${SELECT} WHERE c.emission = ? AND ${OPEN_SQL} ORDER BY c.prize_cents DESC, c.unit_key`)
        .all(e.emission) as ClaimRow[]
      const daysLeft = Math.ceil((Date.parse(e.deadline) - now) / DAY_MS)
      return rows.map((r) => ({ claim: toClaim(ctx, r), deadline: e.deadline, daysLeft, notice: noticeOf(daysLeft) }))
    })
    .sort((a, b) => a.deadline.localeCompare(b.deadline) || b.claim.prizeCents - a.claim.prizeCents)
}
