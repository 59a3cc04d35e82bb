import type { LocationQuery, LocationQueryRaw } from 'vue-router'
import { isIsoDay } from '../../../../electron/contract/dates'
import type { LiabilityReport } from '../../../../electron/contract/liability-types'

/** The liability screen's filters, kept in the address (#/liability?emission=2&asOf=2026-03-31&demo=1), as the dashboard's. */
export interface LiabilityQuery {
  emission: number | null
  /** The day the figures are of (at its end, UTC); null: now. */
  asOf: string | null
  includeDemo: boolean
}

const text = (v: LocationQuery[string]) => (Array.isArray(v) ? v[0] : v) ?? null

/** The filters an address holds; what is not a filter (an emission 0, a day that does not exist) is left out. */
export function readLiabilityQuery(q: LocationQuery): LiabilityQuery {
  const e = Number(text(q.emission))
  const day = text(q.asOf)
  return {
    emission: Number.isInteger(e) && e >= 1 && e <= 9999 ? e : null,
    asOf: day !== null && isIsoDay(day) ? day : null,
    includeDemo: text(q.demo) === '1',
  }
}

export function writeLiabilityQuery(f: LiabilityQuery): LocationQueryRaw {
  const q: LocationQueryRaw = {}
  if (f.emission !== null) q.emission = String(f.emission)
  if (f.asOf) q.asOf = f.asOf
  if (f.includeDemo) q.demo = '1'
  return q
}

/** The arguments of reports:liability (and of its CSV export) for these filters. */
export function liabilityArgs(f: LiabilityQuery): { includeDemo: boolean; emission?: number; asOf?: string } {
  return {
    includeDemo: f.includeDemo,
    ...(f.emission !== null && { emission: f.emission }),
    ...(f.asOf && { asOf: f.asOf }),
  }
}

/** Whether a report answers these filters (the figures shown are those asked for). */
export function reportUnder(r: Pick<LiabilityReport, 'emission' | 'day' | 'includeDemo'>, f: LiabilityQuery): boolean {
  return r.emission === f.emission && r.day === f.asOf && r.includeDemo === f.includeDemo
}

/** Whether any filter is set (the reset button is then offered). */
export const isFiltered = (f: LiabilityQuery): boolean => f.emission !== null || f.asOf !== null || f.includeDemo
