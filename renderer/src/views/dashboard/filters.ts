import type { LocationQuery, LocationQueryRaw } from 'vue-router'
import { dayRangeProblem, isIsoDay } from '../../../../electron/contract/dates'

/** The dashboard's filters, kept in the address (#/dashboard?emission=2&from=…&to=…&demo=1) so that a reading can be found again. */
export interface DashboardQuery {
  emission: number | null
  from: string | null
  to: string | null
  includeDemo: boolean
}

const text = (v: LocationQuery[string]) => (Array.isArray(v) ? v[0] : v) ?? null

/** The filters an address holds; what is not a filter (an emission 0, a day that does not exist, a range backwards) is left out. */
export function readQuery(q: LocationQuery): DashboardQuery {
  const e = Number(text(q.emission))
  const day = (v: string | null) => (v !== null && isIsoDay(v) ? v : null)
  let from = day(text(q.from))
  let to = day(text(q.to))
  if (dayRangeProblem(from, to)) from = to = null
  return {
    emission: Number.isInteger(e) && e >= 1 && e <= 9999 ? e : null,
    from,
    to,
    includeDemo: text(q.demo) === '1',
  }
}

export function writeQuery(f: DashboardQuery): LocationQueryRaw {
  const q: LocationQueryRaw = {}
  if (f.emission !== null) q.emission = String(f.emission)
  if (f.from) q.from = f.from
  if (f.to) q.to = f.to
  if (f.includeDemo) q.demo = '1'
  return q
}

/** The arguments of reports:dashboard (and of its exports) for these filters. */
export function dashboardArgs(f: DashboardQuery): {
  includeDemo: boolean
  emission?: number
  from?: string
  to?: string
} {
  return {
    includeDemo: f.includeDemo,
    ...(f.emission !== null && { emission: f.emission }),
    ...(f.from && { from: f.from }),
    ...(f.to && { to: f.to }),
  }
}

/** Whether a reading (its `filters`) was made under these filters: the figures shown answer the filters asked. */
export function readUnder(read: DashboardQuery, f: DashboardQuery): boolean {
  return read.emission === f.emission && read.from === f.from && read.to === f.to && read.includeDemo === f.includeDemo
}
