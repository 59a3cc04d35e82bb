/**
 * The types the claims' parts share (README.md beside this file says what each part does).
 */
import type { ClaimStatus, IdentityDocument, PaymentMethod } from '../../contract/claims-types'
import type { Db } from '../../ledger/db'
import type { AuditService } from '../audit'
import type { Catalog } from '../catalog'
import type { Clock } from '../common'
import type { PlayersService } from '../players'
import type { ClaimFigures } from './figures'
import type { RelatedPartiesService } from './related-parties'

type Prepared = ReturnType<Db['prepare']>

/** A claim's row as read with its player (claims joined to players, rows.ts SELECT). */
export interface ClaimRow {
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
  expired_by: string | null
  expired_at: string | null
  winner_name: string | null
  winner_birth_date: string | null
  payment_method: PaymentMethod | null
  assigned_to: string | null
  assigned_at: string | null
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

/** What the claims' functions share: the services they lean on and the statements prepared once. */
export interface ClaimsContext extends ClaimsDeps {
  statements: {
    /** a claim with its player and whether they are a related party, by unit */
    byKey: Prepared
    /** a sale's prize, by unit */
    saleOf: Prepared
    /** the claim a payment reference already pays */
    paidWith: Prepared
  }
}
