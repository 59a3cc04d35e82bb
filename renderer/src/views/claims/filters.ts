import type { LocationQuery, LocationQueryRaw } from 'vue-router'
import { CLAIM_STATUSES, type ClaimStatus } from '../../../../electron/contract/claims-types'

/** The claims list's filters, kept in the address (#/claims?status=pending&emission=1&player=p-17), as the dashboard's. */
export interface ClaimsQuery {
  status: ClaimStatus | null
  emission: number | null
  player: string | null
}

const text = (v: LocationQuery[string]) => ((Array.isArray(v) ? v[0] : v) ?? '').trim() || null

/** The filters an address holds; what is not a filter (an unknown status, emission 0) is left out. */
export function readClaimsQuery(q: LocationQuery): ClaimsQuery {
  const s = text(q.status)
  const e = Number(text(q.emission))
  const player = text(q.player)
  return {
    status: s !== null && (CLAIM_STATUSES as readonly string[]).includes(s) ? (s as ClaimStatus) : null,
    emission: Number.isInteger(e) && e >= 1 && e <= 9999 ? e : null,
    player: player !== null && player.length <= 64 ? player : null,
  }
}

export function writeClaimsQuery(f: ClaimsQuery): LocationQueryRaw {
  const q: LocationQueryRaw = {}
  if (f.status) q.status = f.status
  if (f.emission !== null) q.emission = String(f.emission)
  if (f.player) q.player = f.player
  return q
}

/** The arguments of claims:list (and of claims:csv) for these filters. */
export function claimsArgs(f: ClaimsQuery): { status?: ClaimStatus; emission?: number; player?: string } {
  return {
    ...(f.status && { status: f.status }),
    ...(f.emission !== null && { emission: f.emission }),
    ...(f.player && { player: f.player }),
  }
}

export const isFiltered = (f: ClaimsQuery) => f.status !== null || f.emission !== null || f.player !== null
