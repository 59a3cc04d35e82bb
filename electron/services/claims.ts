/**
 * Prize claims (docs/claims.md). A sold unit whose prize reaches its emission's threshold has a
 * claim from its sale (claim-writer.ts). It moves pending → verified (support records the
 * identity check) → approved (a manager, never the person who verified) → paid (a payment
 * reference, by a manager or an admin), or is rejected with a reason before it is paid. Each
 * step is taken once, in its own transaction that re-reads the claim, and is audited. A related
 * party's claim is paid only after an auditor's sign-off, and nobody acts on the claims of an
 * account the register links to them.
 */
import { AppError, because } from '../contract/errors'
import { type Claim, type ClaimDetail, type ClaimsPage, type ClaimStatus, type ClaimTotal, type IdentityDocument, type WinnerFigures } from '../contract/claims-types'
import { formatSerial } from '../../game-core/serial'
import type { Db } from '../ledger/db'
import { splitUnitKey, unitKey } from '../ledger/migrations'
import type { AuditService } from './audit'
import type { Catalog } from './catalog'
import type { ClaimFigures } from './claim-figures'
import { iso, type Actor, type Clock } from './common'
import type { PlayersService } from './players'
import { RELATED_SQL, type RelatedPartiesService } from './related-parties'
import { parseSerialOrThrow } from './tickets'
import { claimsCsv, type ClaimsCsvFilters } from './claims-csv'
import { claimTotalsOf, claimTotalsWhere } from './claim-totals'
import type { CsvStyle } from './csv'
import type { CsvFile } from '../contract/types'

interface ClaimRow {
  unit_key: number
  emission: number
  player_id: number
  player: string
  related: number
  sold_at: number
  prize_cents: number
  status: ClaimStatus
  document: IdentityDocument | null
  document_ref: string | null
  verified_by: string | null
  verified_at: string | null
  approved_by: string | null
  approved_at: string | null
  signed_off_by: string | null
  signed_off_at: string | null
  paid_by: string | null
  paid_at: string | null
  payment_ref: string | null
  rejected_by: string | null
  rejected_at: string | null
  rejected_from: 'pending' | 'verified' | 'approved' | null
  reject_reason: string | null
}

export interface ClaimsQuery {
  status?: ClaimStatus
  emission?: number
  player?: string
  order?: 'asc' | 'desc'
  page?: number
  pageSize?: number
}

export type ClaimStep = 'verify' | 'approve' | 'signOff' | 'pay' | 'reject'

export interface ClaimsService {
  list(q: ClaimsQuery): ClaimsPage
  /** Every claim under the filters, oldest sale first (the command line, exports). */
  all(q: Omit<ClaimsQuery, 'page' | 'pageSize'>): Claim[]
  /** Claims per status (all five) of these emissions (null: all). */
  totals(emissions: number[] | null): ClaimTotal[]
  get(serial: string): ClaimDetail
  /** Every claim under the filters as a CSV file (claims-csv.ts), office or machine form. */
  csv(args: ClaimsCsvFilters & Partial<CsvStyle>): CsvFile
  /** One player's figures (flagged or not), or every flagged claimant's, least probable first. */
  flags(player?: string): WinnerFigures[]
  verify(actor: Actor, serial: string, identity: { document: IdentityDocument; reference: string }): Claim
  approve(actor: Actor, serial: string): Claim
  signOff(actor: Actor, serial: string): Claim
  pay(actor: Actor, serial: string, reference: string): Claim
  reject(actor: Actor, serial: string, reason: string): Claim
}

export interface ClaimsDeps {
  db: Db
  clock: Clock
  catalog: Catalog
  audit: AuditService
  players: PlayersService
  parties: RelatedPartiesService
  figures: ClaimFigures
}

const SELECT = `SELECT c.*, p.name AS player, ${RELATED_SQL} AS related FROM claims c JOIN players p ON p.id = c.player_id`
/** How far along each status is; a step leads to the status one further. */
const RANK: Record<Exclude<ClaimStatus, 'rejected'>, number> = { pending: 0, verified: 1, approved: 2, paid: 3 }
const STEP_TO: Record<'verify' | 'approve' | 'pay', ClaimStatus> = { verify: 'verified', approve: 'approved', pay: 'paid' }
const sameName = (a: string | null, b: string) => a !== null && a.toLowerCase() === b.toLowerCase()
/** What the audit log keeps of an identity document's number: enough to tell two apart, not to copy one. */
export const maskedReference = (reference: string) => `…${reference.slice(-4)}`

export function createClaimsService(deps: ClaimsDeps): ClaimsService {
  const { db, clock, catalog, audit, players, parties, figures } = deps
  const byKey = db.prepare(`${SELECT} WHERE c.unit_key = ?`)
  const saleOf = db.prepare('SELECT prize_cents FROM sales WHERE unit_key = ?').pluck()
  const paidWith = db.prepare('SELECT unit_key FROM claims WHERE payment_ref = ?').pluck()

  function toClaim(r: ClaimRow): Claim {
    const related = r.related === 1 || r.signed_off_by !== null
    const open = r.status !== 'paid' && r.status !== 'rejected'
    return {
      serial: serialOf(r.unit_key),
      emission: r.emission,
      prizeCents: r.prize_cents,
      player: r.player,
      soldAt: new Date(r.sold_at).toISOString(),
      status: r.status,
      related,
      needsSignOff: r.related === 1 && r.signed_off_by === null && open,
      verified: r.verified_by === null ? null : { by: r.verified_by, at: r.verified_at!, document: r.document!, reference: r.document_ref! },
      approved: r.approved_by === null ? null : { by: r.approved_by, at: r.approved_at! },
      signedOff: r.signed_off_by === null ? null : { by: r.signed_off_by, at: r.signed_off_at! },
      paid: r.paid_by === null ? null : { by: r.paid_by, at: r.paid_at!, reference: r.payment_ref! },
      rejected: r.rejected_by === null ? null : { by: r.rejected_by, at: r.rejected_at!, reason: r.reject_reason!, from: r.rejected_from! },
    }
  }

  function serialOf(key: number): string {
    const id = splitUnitKey(key)
    return formatSerial(id, catalog.definition(id.emission).blockSize)
  }

  /** The unit's claim, or why it has none. */
  function claimRow(serial: string): ClaimRow {
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
    throw new AppError('NOT_FOUND', text, { field: 'serial', ...because('CLAIM_NONE', { serial, why, prizeCents: why === 'below' ? prize! : 0, thresholdCents }) })
  }

  /** Refuses a step the claim's status does not allow: done already (CONFLICT), too early or final (ILLEGAL_STATE). */
  function refuseUnlessNext(r: ClaimRow, step: 'verify' | 'approve' | 'pay'): void {
    const serial = serialOf(r.unit_key)
    const reason = because('CLAIM_STEP', { serial, status: r.status, step })
    if (r.status === 'rejected') throw new AppError('ILLEGAL_STATE', `the claim on ${serial} was rejected by ${r.rejected_by} (${r.reject_reason}): a rejection is final`, reason)
    const target = RANK[STEP_TO[step] as keyof typeof RANK]
    const at = RANK[r.status]
    if (at >= target) throw new AppError('CONFLICT', `the claim on ${serial} is ${r.status} already: each step is taken once`, reason)
    if (at < target - 1) {
      const before = { verify: '', approve: 'its winner’s identity is verified', pay: 'it is approved' }[step]
      throw new AppError('ILLEGAL_STATE', `the claim on ${serial} is ${r.status}: it is ${STEP_TO[step]} only once ${before}`, reason)
    }
  }

  /** Nobody acts on the claims of an account the register links to them. */
  function refuseConflict(actor: Actor, r: ClaimRow): void {
    const link = parties.of(r.player).find((p) => sameName(p.linkedTo, actor.name))
    if (link) {
      const serial = serialOf(r.unit_key)
      throw new AppError('FORBIDDEN', `the register links ${r.player} to ${actor.name} (entry ${link.id}): another person must handle the claim on ${serial}`, because('CLAIM_CONFLICT', { serial, name: actor.name, player: r.player }))
    }
  }

  function refuseSamePerson(actor: Actor, r: ClaimRow, step: ClaimStep, earlier: 'verify' | 'approve', by: string | null): void {
    if (!sameName(by, actor.name)) return
    const serial = serialOf(r.unit_key)
    throw new AppError('FORBIDDEN', `${actor.name} took the claim's ${earlier} step on ${serial}: the ${step} step must be another person's`, because('CLAIM_SAME_PERSON', { serial, name: actor.name, step, earlier }))
  }

  /**
   * One step: the claim re-read inside an IMMEDIATE transaction, checked, written only from the
   * status it was read in (a concurrent writer makes it fail, not apply twice), audited.
   */
  function step(actor: Actor, serial: string, check: (r: ClaimRow) => void, set: string, params: unknown[], action: Parameters<AuditService['record']>[1], details: (r: ClaimRow) => Record<string, unknown>): Claim {
    const key = db.transaction(() => {
      const r = claimRow(serial)
      refuseConflict(actor, r)
      check(r)
      const changed = db.prepare(`UPDATE claims SET ${set} WHERE unit_key = ? AND status = ?`).run(...params, r.unit_key, r.status).changes
      if (changed !== 1) throw new AppError('CONFLICT', `the claim on ${serial} changed while this step was written: read it again`)
      audit.record(actor.name, action, `unit:${serialOf(r.unit_key)}`, { prizeCents: r.prize_cents, player: r.player, from: r.status, ...details(r) })
      return r.unit_key
    }).immediate()
    return toClaim(byKey.get(key) as ClaimRow)
  }

  /** The WHERE of a list: each filter on its own index (claims_by_status, _by_emission, _by_player). */
  function where(q: Omit<ClaimsQuery, 'page' | 'pageSize' | 'order'>, withStatus: boolean): { sql: string; params: unknown[] } {
    const terms: string[] = []
    const params: unknown[] = []
    if (withStatus && q.status !== undefined) terms.push('c.status = ?') && params.push(q.status)
    if (q.emission !== undefined) terms.push('c.emission = ?') && params.push(q.emission)
    if (q.player !== undefined) terms.push('c.player_id = ?') && params.push(players.account(q.player).id)
    return { sql: terms.length ? `WHERE ${terms.join(' AND ')}` : '', params }
  }

  const totalsWhere = (w: { sql: string; params: unknown[] }) => claimTotalsWhere(db, w)

  const service: ClaimsService = {
    list({ page = 1, pageSize = 50, order = 'desc', ...q }) {
      const w = where(q, true)
      const dir = order === 'asc' ? 'ASC' : 'DESC'
      const rows = db.prepare(`${SELECT} ${w.sql} ORDER BY c.sold_at ${dir}, c.unit_key ${dir} LIMIT ? OFFSET ?`).all(...w.params, pageSize, (page - 1) * pageSize) as ClaimRow[]
      const totals = totalsWhere(where(q, false))
      const total = q.status === undefined ? totals.reduce((n, t) => n + t.count, 0) : totals.find((t) => t.status === q.status)!.count
      return { total, page, pageSize, items: rows.map(toClaim), totals }
    },

    all({ order = 'asc', ...q }) {
      const w = where(q, true)
      const dir = order === 'asc' ? 'ASC' : 'DESC'
      return (db.prepare(`${SELECT} ${w.sql} ORDER BY c.sold_at ${dir}, c.unit_key ${dir}`).all(...w.params) as ClaimRow[]).map(toClaim)
    },

    totals: (emissions) => claimTotalsOf(db, emissions),

    csv({ form = 'machine', locale = 'fr', timeZone, ...filters }) {
      const asOf = iso(clock())
      return claimsCsv(service.all(filters), filters, asOf, { form, locale, timeZone }, maskedReference)
    },

    get(serial) {
      const r = claimRow(serial)
      return { claim: toClaim(r), parties: parties.of(r.player), figures: figures.of(r.player_id) }
    },

    flags: (player) => (player === undefined ? figures.flagged() : [figures.of(players.account(player).id)]),

    verify(actor, serial, { document, reference }) {
      return step(actor, serial, (r) => refuseUnlessNext(r, 'verify'), "status = 'verified', document = ?, document_ref = ?, verified_by = ?, verified_at = ?",
        [document, reference, actor.name, iso(clock())], 'claim.verify', () => ({ document, reference: maskedReference(reference) }))
    },

    approve(actor, serial) {
      return step(actor, serial, (r) => {
        refuseUnlessNext(r, 'approve')
        refuseSamePerson(actor, r, 'approve', 'verify', r.verified_by)
      }, "status = 'approved', approved_by = ?, approved_at = ?", [actor.name, iso(clock())], 'claim.approve', (r) => ({ verifiedBy: r.verified_by }))
    },

    signOff(actor, serial) {
      return step(actor, serial, (r) => {
        const s = serialOf(r.unit_key)
        if (r.related !== 1) throw new AppError('ILLEGAL_STATE', `${r.player} is not in the register of related parties: the claim on ${s} needs no sign-off`, because('CLAIM_NOT_RELATED', { serial: s, player: r.player }))
        if (r.signed_off_by !== null) throw new AppError('CONFLICT', `the claim on ${s} was signed off by ${r.signed_off_by} already`, because('CLAIM_STEP', { serial: s, status: r.status, step: 'signOff' }))
        if (r.status !== 'verified' && r.status !== 'approved') {
          throw new AppError('ILLEGAL_STATE', `the claim on ${s} is ${r.status}: an auditor signs off a claim once its winner's identity is verified, before it is paid`, because('CLAIM_STEP', { serial: s, status: r.status, step: 'signOff' }))
        }
        refuseSamePerson(actor, r, 'signOff', 'verify', r.verified_by)
        refuseSamePerson(actor, r, 'signOff', 'approve', r.approved_by)
      }, 'signed_off_by = ?, signed_off_at = ?', [actor.name, iso(clock())], 'claim.sign-off', () => ({}))
    },

    pay(actor, serial, reference) {
      return step(actor, serial, (r) => {
        refuseUnlessNext(r, 'pay')
        const s = serialOf(r.unit_key)
        if (r.related === 1 && r.signed_off_by === null) {
          throw new AppError('ILLEGAL_STATE', `${r.player} is in the register of related parties: an auditor signs off the claim on ${s} before it is paid`, because('CLAIM_SIGN_OFF', { serial: s, player: r.player }))
        }
        const other = paidWith.get(reference) as number | undefined
        if (other !== undefined) {
          throw new AppError('CONFLICT', `payment reference ${reference} was recorded for the claim on ${serialOf(other)}: each payment has its own`, { field: 'reference', ...because('PAYMENT_REF_USED', { reference, serial: serialOf(other) }) })
        }
      }, "status = 'paid', payment_ref = ?, paid_by = ?, paid_at = ?", [reference, actor.name, iso(clock())], 'claim.pay', (r) => ({ reference, approvedBy: r.approved_by }))
    },

    reject(actor, serial, reason) {
      return step(actor, serial, (r) => {
        if (r.status === 'paid' || r.status === 'rejected') {
          const s = serialOf(r.unit_key)
          throw new AppError(r.status === 'paid' ? 'ILLEGAL_STATE' : 'CONFLICT', `the claim on ${s} is ${r.status}: ${r.status === 'paid' ? 'a paid claim cannot be rejected' : 'it was rejected already'}`, because('CLAIM_STEP', { serial: s, status: r.status, step: 'reject' }))
        }
      }, "rejected_from = status, status = 'rejected', rejected_by = ?, rejected_at = ?, reject_reason = ?", [actor.name, iso(clock()), reason], 'claim.reject', () => ({ reason }))
    },
  }
  return service
}
