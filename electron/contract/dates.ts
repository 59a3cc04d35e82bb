/**
 * The one reader of calendar dates and ISO 8601 date-times for the whole app: the contract's
 * `isoDay` schema, emissions' first sale day (the app's emissions:create and the command line's
 * `--starts`), the audit log's filter days and a sales feed's `soldAt` all read their dates here,
 * so a date that does not exist (2026-02-30, 2025-02-29, 2026-04-31) is refused everywhere alike.
 * JavaScript's Date.parse rolls such a date over into the next month instead (2026-02-30 becomes
 * 2 March), which is why a shape check alone is not enough.
 *
 * No library: the rule is the Gregorian calendar's month lengths, a few lines that the tests
 * check against Date.UTC on every day of 400 years; the value of a date that exists is
 * Date.parse's, exactly as before. Pure TypeScript (the renderer's bundle takes it too).
 */

/** YYYY-MM-DD, the shape of a calendar day. */
export const ISO_DAY_SHAPE = /^\d{4}-\d{2}-\d{2}$/

/**
 * An ISO 8601 date-time with a zone, as the sales feed writes its times: a bare date or a local
 * time would be ambiguous. Groups: year, month, day, hour, minute, second, zone hours, zone minutes.
 */
const ISO_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-](\d{2}):(\d{2}))$/

/** Whether `year` is a leap year of the Gregorian calendar. */
export const isLeapYear = (year: number): boolean => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0

/** The days of `month` (1–12) in `year`; 0 for a month that does not exist. */
export function daysInMonth(year: number, month: number): number {
  if (month < 1 || month > 12) return 0
  if (month === 2) return isLeapYear(year) ? 29 : 28
  // 31 for January, March, May, July, August, October, December; 30 for the others
  return 30 + ((month + (month >> 3)) & 1)
}

/** Whether year-month-day is a day of the calendar (month 1–12, day 1 to the month's length). */
export const isRealDay = (year: number, month: number, day: number): boolean =>
  day >= 1 && day <= daysInMonth(year, month)

/** A calendar day written YYYY-MM-DD: its midnight UTC in milliseconds, or NaN when it is not written so or does not exist. */
export function isoDayMillis(text: string): number {
  if (typeof text !== 'string' || !ISO_DAY_SHAPE.test(text)) return NaN
  if (!isRealDay(Number(text.slice(0, 4)), Number(text.slice(5, 7)), Number(text.slice(8, 10)))) return NaN
  // a date-only ISO form is read as UTC
  return Date.parse(text)
}

/** Whether `text` is a calendar day written YYYY-MM-DD that exists. */
export const isIsoDay = (text: string): boolean => !Number.isNaN(isoDayMillis(text))

/** Why `text` is not a calendar day: 'shape' (not YYYY-MM-DD), 'nonexistent' (2026-02-30), or null when it is one. */
export function isoDayProblem(text: string): 'shape' | 'nonexistent' | null {
  if (typeof text !== 'string' || !ISO_DAY_SHAPE.test(text)) return 'shape'
  return isIsoDay(text) ? null : 'nonexistent'
}

/**
 * An ISO 8601 date-time with a zone (`2025-03-01T12:30:00Z`, `…T12:30+01:00`, up to 9 digits
 * of fraction) in milliseconds, or NaN when it is not written so or names a day or a time that
 * does not exist: 2026-02-30, hour 24, minute or second 60, a zone beyond ±23:59.
 */
export function isoDateTimeMillis(text: string): number {
  if (typeof text !== 'string') return NaN
  const m = ISO_DATE_TIME.exec(text)
  if (m === null) return NaN
  if (!isRealDay(Number(m[1]), Number(m[2]), Number(m[3]))) return NaN
  if (Number(m[4]) > 23 || Number(m[5]) > 59 || (m[6] !== undefined && Number(m[6]) > 59)) return NaN
  if (m[7] !== undefined && (Number(m[7]) > 23 || Number(m[8]) > 59)) return NaN
  return Date.parse(text)
}

/** Whether `text` has the shape of an ISO 8601 date-time with a zone, whether or not its day and time exist. */
export const isoDateTimeShaped = (text: string): boolean => typeof text === 'string' && ISO_DATE_TIME.test(text)

/**
 * Why `from`…`to` is not a range of days (either may be absent): the reason in English, or null.
 * Days compare as text in YYYY-MM-DD; each is checked on its own by isoDayProblem first.
 */
export function dayRangeProblem(from: string | undefined | null, to: string | undefined | null): string | null {
  if (!from || !to || from <= to) return null
  return `the range starts on ${from}, after its end on ${to}: give a first day on or before the last`
}
