/**
 * A refused import's reasons as its history row keeps them: grouped by kind
 * (contract/import-reasons.ts, at most MAX_REASON_GROUPS groups of MAX_REASON_LINES line numbers
 * each, text values cut to MAX_REASON_TEXT), in the audit entry of the refusal
 * (sales.import-rejected), read back for the history and written as a CSV file.
 */
import { AppError } from '../../contract/errors'
import { groupReasons } from '../../contract/import-reasons'
import {
  IMPORT_PROBLEM_CODES,
  type CsvFile,
  type ImportLineError,
  type ImportProblemCode,
  type ImportReasonGroup,
  type ImportReasons,
  type ImportRecord,
} from '../../contract/types'
import { iso, type Clock } from '../common'
import { writeCsv, type CsvCell, type CsvColumn, type CsvStyle } from '../csv'
import type { Problem } from './problems'
import { REASON_CSV_WORDS, REASON_LABELS } from './reason-labels'

/** A refusal's bad lines and their reasons (every one, not only those listed in the error), grouped. */
export const reasonsOf = (problems: Map<number, Problem[]>): ImportReasons => groupReasons(problems.entries())

const CODES = new Set<string>(IMPORT_PROBLEM_CODES)
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null
const isCount = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0

/** A group as the entry holds it, or null when the entry was damaged (the ledger's check reports the damage). */
function groupOf(v: unknown): ImportReasonGroup | null {
  if (!isObject(v) || typeof v.code !== 'string' || !CODES.has(v.code) || !isObject(v.params)) return null
  if (!isCount(v.occurrences) || !isCount(v.lineCount) || !Array.isArray(v.lines) || !v.lines.every(isCount))
    return null
  const params = Object.fromEntries(
    Object.entries(v.params).filter((e): e is [string, string | number] => ['string', 'number'].includes(typeof e[1])),
  )
  const text = typeof v.text === 'string' ? v.text : v.code
  const code = v.code as ImportProblemCode
  return { code, params, text, occurrences: v.occurrences, lineCount: v.lineCount, lines: v.lines }
}

/** The first bad line of an entry written before the reasons were kept, as the reasons it had. */
function firstLineReasons(first: unknown): ImportReasons | null {
  if (!isObject(first) || !isCount(first.line) || !Array.isArray(first.problems)) return null
  const line = first as unknown as ImportLineError
  return { ...groupReasons([[line.line, line.problems.filter((p) => CODES.has(p?.code))]]), complete: false }
}

/** The reasons a refusal's audit details keep (null: the file itself was refused, no line was judged). */
export function keptReasons(details: Record<string, unknown>): ImportReasons | null {
  const r = details.reasons
  if (!isObject(r) || !Array.isArray(r.groups)) return firstLineReasons(details.first)
  const groups = r.groups.map(groupOf).filter((g): g is ImportReasonGroup => g !== null)
  const count = (v: unknown) => (isCount(v) ? v : 0)
  return { groups, groupsLeft: count(r.groupsLeft), reasonsLeft: count(r.reasonsLeft), complete: true }
}

const COLUMNS: CsvColumn[] = [
  { id: 'problem', kind: 'text' },
  { id: 'field', kind: 'text' },
  { id: 'occurrences', kind: 'int' },
  { id: 'line_count', kind: 'int' },
  { id: 'first_lines', kind: 'text' },
  { id: 'detail', kind: 'text' },
]

/** A group as a row: its kind in words (office) or its code (machine), the field it is about, its counts, its first lines, its first occurrence in English. */
function rowOf(g: ImportReasonGroup, style: CsvStyle): CsvCell[] {
  const office = style.form === 'office'
  const field = typeof g.params.field === 'string' ? g.params.field : null
  const lines = g.lines.join(office ? ', ' : ' ') + (g.lineCount > g.lines.length ? (office ? ', …' : ' …') : '')
  return [office ? REASON_LABELS[style.locale][g.code] : g.code, field, g.occurrences, g.lineCount, lines, g.text]
}

/** The rows of a refusal's reasons, and one for the groups not kept. */
function rowsOf(r: ImportReasons, style: CsvStyle): CsvCell[][] {
  const rows = r.groups.map((g) => rowOf(g, style))
  if (r.groupsLeft > 0) {
    const office = style.form === 'office'
    const others = office ? REASON_CSV_WORDS[style.locale].others(r.groupsLeft) : 'OTHER'
    rows.push([others, null, r.reasonsLeft, null, null, office ? null : `${r.groupsLeft} kinds not kept`])
  }
  return rows
}

/** A refused import's reasons as a CSV file (csv.ts's two forms); the first line names the import and its file. */
export function reasonsCsv(record: ImportRecord, clock: Clock, style: CsvStyle): CsvFile {
  if (!record.reasons)
    throw new AppError(
      'NOT_FOUND',
      `import ${record.seq} has no line reasons: ${record.result === 'refused' ? 'its file was refused as a whole' : 'it was not refused'}`,
    )
  const about = {
    asOf: iso(clock()),
    filters: [
      { id: 'import' as const, kind: 'int' as const, value: record.seq },
      { id: 'file' as const, kind: 'text' as const, value: record.fileName },
    ],
  }
  const content = writeCsv({ columns: COLUMNS, rows: rowsOf(record.reasons, style), about }, style)
  return { fileName: `import-${record.seq}-${style.locale === 'fr' ? 'refus' : 'reasons'}.csv`, content }
}
