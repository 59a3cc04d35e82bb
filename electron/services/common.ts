/** What every service is given and shares: the caller's identity, the clock, small helpers. */
import { statSync } from 'node:fs'
import { isoDateTimeMillis, isoDayMillis, isRealDay } from '../contract/dates'
import type { Role } from '../contract/define'
import type { ChannelName } from '../contract'
import type { HandlerContext, Handlers } from '../contract/dispatch'
import { AppError, because } from '../contract/errors'

/** Who does an action: a signed-in user, or the operating-system user of a CLI command. */
export interface Actor {
  name: string
  role: Role
}

export type Clock = () => Date

export const systemClock: Clock = () => new Date()

export const iso = (d: Date): string => d.toISOString()

/** "1 block", "3 blocks": a count and its noun, in English (the log's and the command line's words). */
export const counted = (n: number, noun: string, written: (n: number) => string = String): string =>
  `${written(n)} ${n === 1 ? noun : `${noun}s`}`

/** "block 2", "blocks 2, 3": a noun before the list it names, in the singular for one. */
export const naming = (noun: string, list: readonly (string | number)[]): string =>
  `${list.length === 1 ? noun : `${noun}s`} ${list.join(', ')}`

/**
 * How far ahead of this machine's clock a sale's time may be: the sales platform's clock and
 * this one may differ a little (NTP keeps them within seconds; five minutes is the usual
 * allowance, Kerberos's among others). A sale later than that is in the future, and refused.
 */
export const SALE_CLOCK_SKEW_MS = 5 * 60_000

/**
 * ISO text or milliseconds to milliseconds, or NaN when it is not a time. Only full ISO 8601
 * date-times with a zone (a bare date or a local time would be ambiguous), whose day and time
 * exist: read by the app's one date reader (contract/dates.ts).
 */
export function toMillis(t: string | number | Date): number {
  if (typeof t === 'number') return Number.isFinite(t) ? t : NaN
  if (t instanceof Date) return t.getTime()
  return isoDateTimeMillis(t)
}

/**
 * The earliest time a sale of this emission may have: its first sale day's midnight UTC, or,
 * when it has none, the moment it was created.
 */
export function saleFloorMs(e: { starts_on: string | null; created_at: string }): number {
  return e.starts_on !== null ? isoDayMillis(e.starts_on) : Date.parse(e.created_at)
}

/**
 * toMillis of a date-time written as ASCII bytes (a sales feed's, read in place) from `from` to
 * `to`. The usual forms, `YYYY-MM-DDTHH:MM:SSZ` and `YYYY-MM-DDTHH:MM:SS.mmmZ` (toISOString's),
 * are read from the digits; any other is decoded and read by toMillis. Both give the same.
 */
export function isoMillisAt(bytes: Buffer, from: number, to: number): number {
  const n = to - from
  if ((n === 20 || n === 24) && bytes[to - 1] === 0x5a) {
    const year = digitsAt(bytes, from, 4)
    const month = digitsAt(bytes, from + 5, 2)
    const day = digitsAt(bytes, from + 8, 2)
    const hour = digitsAt(bytes, from + 11, 2)
    const minute = digitsAt(bytes, from + 14, 2)
    const second = digitsAt(bytes, from + 17, 2)
    const ms = n === 24 ? digitsAt(bytes, from + 20, 3) : 0
    const marks =
      bytes[from + 4] === 0x2d &&
      bytes[from + 7] === 0x2d &&
      bytes[from + 10] === 0x54 &&
      bytes[from + 13] === 0x3a &&
      bytes[from + 16] === 0x3a &&
      (n === 20 || bytes[from + 19] === 0x2e)
    // within these ranges Date.parse reads the fields as Date.UTC does
    if (
      marks &&
      year >= 1000 &&
      hour >= 0 &&
      hour <= 23 &&
      minute >= 0 &&
      minute <= 59 &&
      second >= 0 &&
      second <= 59 &&
      ms >= 0
    ) {
      // a day that does not exist (2026-02-30) is no time, as for toMillis (Date.UTC would roll it over)
      return isRealDay(year, month, day) ? Date.UTC(year, month - 1, day, hour, minute, second, ms) : NaN
    }
  }
  return toMillis(bytes.toString('latin1', from, to))
}

/** The number written in `width` decimal digits at bytes[at], or -1. */
function digitsAt(bytes: Uint8Array, at: number, width: number): number {
  let v = 0
  for (let k = at; k < at + width; k++) {
    const c = bytes[k] - 48
    if (c < 0 || c > 9) return -1
    v = v * 10 + c
  }
  return v
}

/** Whether a process of this machine is running (EPERM: it exists but belongs to someone else). */
export function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** The contract's handlers of the channels under these prefixes (`'claims'` → 'claims:list', …): one domain's group. */
export type HandlersOf<P extends string> = Pick<Handlers, Extract<ChannelName, `${P}:${string}`>>

/** The signed-in caller of a handler, as the services name who acts. */
export function actorOf(ctx: HandlerContext): Actor {
  if (!ctx.caller)
    throw new AppError('NOT_SIGNED_IN', 'your session has ended: sign in again', because('SESSION_ENDED'))
  return { name: ctx.caller.name, role: ctx.caller.role }
}

/** Whether something is at `path` (a failure other than its absence, a denied folder, is thrown). */
export const pathExists = (path: string) => statSync(path, { throwIfNoEntry: false }) !== undefined
