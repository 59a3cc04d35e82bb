/**
 * Every CSV file the app writes (the audit log, the depletion and dashboard reports, and any to
 * come) is written here, so that all of them quote alike and none can carry a formula.
 *
 * Two forms (docs/ui.md):
 * - office: for a spreadsheet in the interface's language. In French `;` between cells and a
 *   decimal comma (English: `,` and a point), a UTF-8 byte-order mark (Excel reads the file as
 *   UTF-8 only with it), euros as plain numbers with two decimals and no thousands separator
 *   (1234,50: Excel-FR reads it as a number), shares in percent (71,99975), days and times as
 *   dd/mm/yyyy [hh:mm:ss] in local time, headers in words (csv-labels.ts).
 * - machine: for programs. `,` between cells, no byte-order mark, cents, shares as fractions,
 *   ISO 8601 days and times as the ledger holds them, the columns' English ids as headers.
 * Both start with one line beginning with `#`: the software and its version, when the figures
 * were read, the filters, and "no activity" when no record matched. Then the header line, then
 * one line per record.
 *
 * Quoting is csv-stringify's (RFC 4180: a cell with the separator, a quote or a line break is
 * quoted, its quotes doubled). Formulas (OWASP, "CSV injection"): a text cell that starts with
 * `=`, `+`, `-`, `@`, a tab or a carriage return (or the full-width forms of the first four,
 * which some spreadsheets read alike) is written with a single quote `'` before it, so a
 * spreadsheet shows it as text instead of running it: csv-stringify's `escape_formulas`. That
 * covers whatever came from outside: user names typed at sign-in, a feed's player ids, audit
 * details, alerts.
 *
 * Numbers: a cell that is a number (counts, amounts, a delta that may be negative) is written as
 * the number it is, `-12` or `-12,50` included, never prefixed: the writer formats it itself, so
 * it is never a formula, and a spreadsheet must still read it as a number. So a cell is
 * neutralised by what it is, not by its first character: text is neutralised, numbers are not.
 * Callers pass numbers as numbers (not as their text).
 */
import { stringify, type CastingContext } from 'csv-stringify/sync'
import { CSV_WORDS, type CsvColumnId, type CsvFilterId, type CsvWords } from './csv-labels'
import { SOFTWARE } from './version'

export type CsvCell = string | number | boolean | null | undefined
export type CsvForm = 'office' | 'machine'
export type CsvLocale = 'fr' | 'en'
/**
 * What a cell holds: text, a count, an amount in cents, a share as a fraction (0.72),
 * an ISO time, a calendar day YYYY-MM-DD, a yes or no.
 */
export type CsvKind = 'text' | 'int' | 'cents' | 'share' | 'time' | 'day' | 'yes-no'

export interface CsvColumn {
  id: CsvColumnId
  kind: CsvKind
}
export interface CsvFilter {
  id: CsvFilterId
  kind: CsvKind
  /** null or undefined: not filtered on */
  value: CsvCell
}
/** What the first line says: when the figures were read (ISO time) and the filters they were read under. */
export interface CsvAbout {
  asOf: string
  filters: CsvFilter[]
}
export interface CsvStyle {
  form: CsvForm
  locale: CsvLocale
  /** The zone of the office form's times; the machine's own by default. */
  timeZone?: string
}
export interface CsvTable {
  columns: readonly CsvColumn[]
  rows: readonly (readonly CsvCell[])[]
  about: CsvAbout
}

/** The CSV text of `rows` under a header line of `columns`, each line ended by a line feed (a cell holding a line break or a carriage return is quoted). */
export function toCsv(columns: readonly string[], rows: readonly (readonly CsvCell[])[]): string {
  return stringify(rows as CsvCell[][], {
    header: true,
    columns: [...columns],
    escape_formulas: true,
    quote_record_delimiter: true,
  })
}

/** A table in one of the two forms, with its first line about the figures. */
export function writeCsv(table: CsvTable, style: CsvStyle): string {
  const office = style.form === 'office'
  const words = CSV_WORDS[style.locale]
  const delimiter = office && style.locale === 'fr' ? ';' : ','
  const kinds = table.columns.map((c) => c.kind)
  const cell = (kind: CsvKind, v: CsvCell) => (office ? officeCell(kind, v, style, words) : machineCell(kind, v))
  const cast = {
    number: (v: number, ctx: CastingContext) => cell(kinds[ctx.index], v),
    boolean: (v: boolean, ctx: CastingContext) => cell(kinds[ctx.index], v),
    string: (v: string, ctx: CastingContext) => (ctx.header ? v : cell(kinds[ctx.index], v)),
  }
  const about = aboutLine(table, style, words)
  const headers = table.columns.map((c) => (office ? words.columns[c.id] : c.id))
  const options = { delimiter, escape_formulas: true, quote_record_delimiter: true }
  const body = stringify([...table.rows] as CsvCell[][], { ...options, header: true, columns: headers, cast })
  return (office ? '\ufeff' : '') + stringify([about], options) + body
}

/** The first line: `# software version`, the as-of time, each filter, and "no activity" when there is no record. */
function aboutLine(table: CsvTable, style: CsvStyle, words: CsvWords): string[] {
  const office = style.form === 'office'
  // one line whatever the values hold, so that a reader skipping `#` lines skips all of it
  const flat = (s: string) => s.replace(/[\r\n]+/g, ' ')
  const pair = (label: string, id: string, value: string) =>
    flat(office ? `${label}${words.colon}${value}` : `${id}=${value}`)
  const show = (kind: CsvKind, v: CsvCell) =>
    v === null || v === undefined || v === ''
      ? office
        ? '—'
        : ''
      : office
        ? officeCell(kind, v, style, words)
        : machineCell(kind, v)
  const zone = style.timeZone ?? Intl.DateTimeFormat().resolvedOptions().timeZone
  const cells = [
    office
      ? `# ${words.software}${words.colon}${SOFTWARE.title} ${SOFTWARE.version}`
      : `# software=${SOFTWARE.name} ${SOFTWARE.version}`,
    pair(
      words.asOf,
      'as_of',
      office ? `${officeCell('time', table.about.asOf, style, words)} (${zone})` : table.about.asOf,
    ),
    ...table.about.filters.map((f) => pair(words.filters[f.id], f.id, show(f.kind, f.value))),
  ]
  if (table.rows.length === 0) cells.push(office ? words.noActivity : 'no_activity')
  return cells
}

function machineCell(kind: CsvKind, v: CsvCell): string {
  if (v === null || v === undefined) return ''
  if (kind === 'yes-no') return v ? 'yes' : 'no'
  return String(v)
}

function officeCell(kind: CsvKind, v: CsvCell, style: CsvStyle, words: CsvWords): string {
  if (v === null || v === undefined) return ''
  const comma = style.locale === 'fr'
  switch (kind) {
    case 'cents':
      return typeof v === 'number' ? decimalMark(euros(v), comma) : String(v)
    case 'share':
      return typeof v === 'number' ? plainNumber(v * 100, style.locale) : String(v)
    case 'time':
      return typeof v === 'string' ? localTime(v, style.timeZone) : String(v)
    case 'day':
      return typeof v === 'string' ? dayText(v) : String(v)
    case 'yes-no':
      return v ? words.yes : words.no
    default:
      return String(v)
  }
}

/** Whole cents as euros with two decimals, no thousands separator, by integer arithmetic: 123450 → "1234.50", -5 → "-0.05". */
export function euros(cents: number): string {
  const sign = cents < 0 ? '-' : ''
  const abs = Math.abs(Math.round(cents))
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`
}

const decimalMark = (text: string, comma: boolean) => (comma ? text.replace('.', ',') : text)

const plainFormats = new Map<CsvLocale, Intl.NumberFormat>()
/** Up to 6 decimals, no grouping: 71,99975 / 71.99975. */
function plainNumber(n: number, locale: CsvLocale): string {
  let f = plainFormats.get(locale)
  if (!f)
    plainFormats.set(
      locale,
      (f = new Intl.NumberFormat(locale === 'fr' ? 'fr-FR' : 'en-GB', {
        useGrouping: false,
        maximumFractionDigits: 6,
      })),
    )
  // a minus sign, not U+2212, so that a spreadsheet reads the number
  return f.format(n).replace('\u2212', '-')
}

/** An ISO time as dd/mm/yyyy hh:mm:ss in `timeZone`: what Excel reads as a date and time in French and British settings. */
export function localTime(isoTime: string, timeZone?: string): string {
  const d = new Date(isoTime)
  if (Number.isNaN(d.getTime())) return isoTime
  const parts = new Intl.DateTimeFormat('en-GB', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(d)
  const p = (t: Intl.DateTimeFormatPartTypes) => parts.find((x) => x.type === t)?.value ?? ''
  return `${p('day')}/${p('month')}/${p('year')} ${p('hour')}:${p('minute')}:${p('second')}`
}

/** A calendar day YYYY-MM-DD as dd/mm/yyyy, read as written (no time-zone shift). */
export function dayText(day: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day)
  return m ? `${m[3]}/${m[2]}/${m[1]}` : day
}
