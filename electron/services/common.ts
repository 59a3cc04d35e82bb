/** What every service is given and shares: the caller's identity, the clock, small helpers. */
import type { Role } from '../contract/define'

/** Who does an action: a signed-in user, or the operating-system user of a CLI command. */
export interface Actor {
  name: string
  role: Role
}

export type Clock = () => Date

export const systemClock: Clock = () => new Date()

export const iso = (d: Date): string => d.toISOString()

/** ISO text or milliseconds to milliseconds, or NaN when it is not a time. */
export function toMillis(t: string | number | Date): number {
  if (typeof t === 'number') return Number.isFinite(t) ? t : NaN
  if (t instanceof Date) return t.getTime()
  // Only full ISO 8601 date-times with a zone: a bare date or local time would be ambiguous.
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/.test(t)) return NaN
  return Date.parse(t)
}
