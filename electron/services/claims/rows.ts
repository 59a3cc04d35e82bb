/**
 * A claim's row as the claims' functions read it (desk.ts, steps.ts): the statements they
 * share, the row made a Claim, a serial's claim or why it has none.
 */
import { AppError, because } from '../../contract/errors'
import { isOpen, type Claim } from '../../contract/claims-types'
import { formatSerial } from '../../../game-core/serial'
import type { Db } from '../../ledger/db'
import type { ClaimRow, ClaimsContext, ClaimsDeps } from './context'
import { splitUnitKey, unitKey } from '../../ledger/unit-key'
import { RELATED_SQL } from './related-parties'
import { parseSerialOrThrow } from '../sales'

export const SELECT = `SELECT c.*, p.name AS player, ${RELATED_SQL} AS related FROM claims c JOIN players p ON p.id = c.player_id`

/** What the audit log keeps of an identity document's number: enough to tell two apart, not to copy one. */
export const maskedReference = (reference: string) => `…${reference.slice(-4)}`

/** The claims a payment reference paid, by the unique index claims_payment_ref (a reference pays one claim). */
export const PAID_WITH_SQL = 'SELECT unit_key FROM claims WHERE payment_ref = ?'

export function prepareClaimStatements(db: Db): ClaimsContext['statements'] {
  return {
    byKey: db.prepare(`${SELECT} WHERE c.unit_key = ?`),
    saleOf: db.prepare('SELECT prize_cents FROM sales WHERE unit_key = ?').pluck(),
    paidWith: db.prepare(PAID_WITH_SQL).pluck(),
  }
}

export function buildClaimsContext(deps: ClaimsDeps): ClaimsContext {
  return { ...deps, statements: prepareClaimStatements(deps.db) }
}

export function serialOf({ catalog }: ClaimsContext, key: number): string {
  const id = splitUnitKey(key)
  return formatSerial(id, catalog.definition(id.emission).blockSize)
}

/** A name as the screens and files show it: its words' initials ("Jeanne Dupont" → "J. D."). */
export const initialsOf = (name: string) =>
  name
    .split(/[\s-]+/u)
    .filter(Boolean)
    .map((w) => `${[...w][0].toUpperCase()}.`)
    .join(' ')

const DAY_MS = 86_400_000

export function toClaim(ctx: ClaimsContext, r: ClaimRow): Claim {
  const related = r.related === 1 || r.signed_off_by !== null
  const open = isOpen(r.status)
  return {
    serial: serialOf(ctx, r.unit_key),
    emission: r.emission,
    demo: ctx.catalog.facts(r.emission).demo === 1,
    prizeCents: r.prize_cents,
    player: r.player,
    soldAt: new Date(r.sold_at).toISOString(),
    status: r.status,
    related,
    needsSignOff: r.related === 1 && r.signed_off_by === null && open,
    verified:
      r.verified_by === null
        ? null
        : { by: r.verified_by, at: r.verified_at!, document: r.document!, reference: maskedReference(r.document_ref!) },
    winner:
      r.winner_name === null
        ? null
        : { initials: initialsOf(r.winner_name), birthYear: r.winner_birth_date?.slice(0, 4) ?? null },
    assigned: r.assigned_to === null ? null : { to: r.assigned_to, at: r.assigned_at! },
    daysPending: open ? Math.max(0, Math.floor((ctx.clock().getTime() - r.sold_at) / DAY_MS)) : null,
    approved: r.approved_by === null ? null : { by: r.approved_by, at: r.approved_at! },
    signedOff: r.signed_off_by === null ? null : { by: r.signed_off_by, at: r.signed_off_at! },
    paid:
      r.paid_by === null
        ? null
        : { by: r.paid_by, at: r.paid_at!, reference: r.payment_ref!, method: r.payment_method },
    rejected:
      r.rejected_by === null
        ? null
        : { by: r.rejected_by, at: r.rejected_at!, reason: r.reject_reason!, from: r.rejected_from! },
    expired: r.expired_by === null ? null : { by: r.expired_by, at: r.expired_at! },
  }
}

/** The unit's claim, or why it has none. */
export function claimRow({ catalog, statements: { byKey, saleOf } }: ClaimsContext, serial: string): ClaimRow {
  const id = parseSerialOrThrow(serial)
  const emission = catalog.emission(id.emission)
  catalog.block(id.emission, id.block)
  const key = unitKey(id.emission, id.block, id.unit)
  const row = byKey.get(key) as ClaimRow | undefined
  if (row) return row
  const prize = saleOf.get(key) as number | undefined
  const thresholdCents = emission.claim_threshold_cents
  const why = prize === undefined ? 'unsold' : prize === 0 ? 'losing' : 'below'
  const text = {
    unsold: `unit ${serial} is not sold: only a sold unit's prize is claimed`,
    losing: `unit ${serial} did not win: there is no prize to claim`,
    below: `unit ${serial} won ${(prize ?? 0) / 100} €, below emission ${id.emission}'s claim threshold of ${thresholdCents / 100} €: it was credited to the player's account with the sale`,
  }[why]
  throw new AppError('NOT_FOUND', text, {
    field: 'serial',
    ...because('CLAIM_NONE', { serial, why, prizeCents: why === 'below' ? prize! : 0, thresholdCents }),
  })
}
