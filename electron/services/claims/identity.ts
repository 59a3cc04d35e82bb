/**
 * The winner's identity whole (README.md, "The winner's identity"): the screens, the files and the
 * log show it masked (initials, year of birth, the document's last four characters); an auditor
 * sees it whole by giving a reason, and the look is logged (`claim.identity-view`), as an unsold
 * ticket's inspection is.
 */
import { AppError, because } from '../../contract/errors'
import type { WinnerIdentity } from '../../contract/claims-types'
import type { Actor } from '../common'
import type { ClaimsContext } from './context'
import { claimRow, serialOf } from './rows'

export function lookAtIdentity(ctx: ClaimsContext, actor: Actor, serial: string, reason: string): WinnerIdentity {
  const why = reason.trim()
  if (why.length < 3)
    throw new AppError('REASON_REQUIRED', 'give a reason of at least 3 characters to see a winner’s identity', {
      field: 'reason',
    })
  return ctx.db.transaction(() => {
    const r = claimRow(ctx, serial)
    const s = serialOf(ctx, r.unit_key)
    if (r.verified_by === null)
      throw new AppError(
        'ILLEGAL_STATE',
        `the claim on ${s} is ${r.status}: no identity was recorded (support records it when checking the document)`,
        because('CLAIM_STEP', { serial: s, status: r.status, step: 'identity' }),
      )
    ctx.audit.record(actor.name, 'claim.identity-view', `unit:${s}`, { reason: why })
    return {
      serial: s,
      name: r.winner_name,
      birthDate: r.winner_birth_date,
      document: r.document!,
      reference: r.document_ref!,
    }
  })()
}
