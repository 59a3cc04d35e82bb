/**
 * Every CSV file the app writes (the audit log, the depletion and dashboard reports, and any to
 * come) is written by toCsv, so that all of them quote alike and none can carry a formula.
 *
 * Quoting is csv-stringify's (RFC 4180: a cell with a comma, a quote or a line break is quoted,
 * its quotes doubled). Formulas (OWASP, "CSV injection"): a text cell that starts with `=`, `+`,
 * `-`, `@`, a tab or a carriage return (or the full-width forms of the first four, which some
 * spreadsheets read alike) is written with a single quote `'` before it, so a spreadsheet shows
 * it as text instead of running it: csv-stringify's `escape_formulas`. That covers whatever came
 * from outside: user names typed at sign-in, a feed's player ids, audit details, alerts.
 *
 * Numbers: a cell that is a number (counts, amounts in cents, a delta that may be negative) is
 * written as the number it is, `-12` included, never prefixed: a number written by JavaScript
 * (digits, a sign, a point, an exponent) is never a formula, and a spreadsheet must still read
 * it as a number. So a cell is neutralised by what it is, not by its first character: text is
 * neutralised, numbers are not. Callers pass numbers as numbers (not as their text).
 */
import { stringify } from 'csv-stringify/sync'

export type CsvCell = string | number | null | undefined

/** The CSV text of `rows` under a header line of `columns`, each line ended by a line feed (a cell holding a line break or a carriage return is quoted). */
export function toCsv(columns: readonly string[], rows: readonly (readonly CsvCell[])[]): string {
  return stringify(rows as CsvCell[][], { header: true, columns: [...columns], escape_formulas: true, quote_record_delimiter: true })
}
