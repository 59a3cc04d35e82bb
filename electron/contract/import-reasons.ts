/**
 * A refused feed's reasons, grouped by kind of problem: the reasons that say the same thing (one
 * message template: the same code, about the same field, emission or kind of value) make one
 * group, with how often it was given, on how many lines, and the first few of those lines. A file
 * whose plays break one rule on every event, or a platform that sends every line with the same
 * fault, then reads as one group instead of thousands of near-identical sentences.
 *
 * Pure TypeScript: the importer groups a refusal's reasons with it before the history keeps them
 * (services/import/history.ts), and the import screen groups one line's reasons the same way.
 */
import type { ImportProblem, ImportReasonGroup, ImportReasons } from './types'

/** The groups a history row keeps: beyond them, only how many groups and reasons were left out. */
export const MAX_REASON_GROUPS = 20
/** The line numbers a group keeps (its first ones, in file order). */
export const MAX_REASON_LINES = 10
/** A text value of a reason kept at most this long (the file's own values may be long). */
export const MAX_REASON_TEXT = 200

/**
 * The values that make a reason's template: the field it is about, the kind or values expected,
 * the emission, the expected stake, the kind of refused character, whether JSON ended early.
 * Every other value (the line's own value, an event's number, a serial, a time) varies from one
 * occurrence to the next and is shown from the group's first occurrence.
 */
const TEMPLATE_PARAMS = [
  'field',
  'fields',
  'where',
  'expected',
  'values',
  'emission',
  'expectedCents',
  'problem',
  'end',
]

/** The key of a reason's template: its code and the values that shape its sentence. */
export function reasonTemplate(p: ImportProblem): string {
  const shape = TEMPLATE_PARAMS.filter((k) => p.params[k] !== undefined).map((k) => `${k}=${String(p.params[k])}`)
  // JSON.parse's sentence with a column reads as its own template, without one as another
  if (p.code === 'JSON') shape.push(p.params.column === undefined ? 'raw' : 'column')
  return [p.code, ...shape].join('|')
}

const cut = (v: string | number) =>
  typeof v === 'string' && v.length > MAX_REASON_TEXT ? `${v.slice(0, MAX_REASON_TEXT - 1)}…` : v

function keptParams(params: Record<string, string | number>): Record<string, string | number> {
  return Object.fromEntries(Object.entries(params).map(([k, v]) => [k, cut(v)]))
}

/** A reason of a line, with its English sentence when it has one. */
export type LineReason = ImportProblem & { text?: string }

/** A group being made: the group, and the last line counted in it (lines come in order). */
interface Making {
  group: ImportReasonGroup
  lastLine: number
}

function startGroup(p: LineReason): Making {
  const text = String(cut(p.text ?? p.code))
  return {
    group: { code: p.code, params: keptParams(p.params), text, occurrences: 0, lineCount: 0, lines: [] },
    lastLine: -1,
  }
}

function count(m: Making, line: number): void {
  m.group.occurrences++
  if (m.lastLine === line) return
  m.lastLine = line
  m.group.lineCount++
  if (m.group.lines.length < MAX_REASON_LINES) m.group.lines.push(line)
}

/**
 * A refusal's reasons grouped by template, the groups in the order of their first line; `lines`:
 * each bad line's number and reasons, in any order (sorted here). At most MAX_REASON_GROUPS are
 * kept; the others are counted.
 */
export function groupReasons(lines: Iterable<readonly [number, readonly LineReason[]]>): ImportReasons {
  const byTemplate = new Map<string, Making>()
  const sorted = [...lines].sort((a, b) => a[0] - b[0])
  for (const [line, reasons] of sorted)
    for (const p of reasons) {
      const key = reasonTemplate(p)
      let m = byTemplate.get(key)
      if (!m) byTemplate.set(key, (m = startGroup(p)))
      count(m, line)
    }
  const all = [...byTemplate.values()].map((m) => m.group)
  const left = all.slice(MAX_REASON_GROUPS)
  return {
    groups: all.slice(0, MAX_REASON_GROUPS),
    groupsLeft: left.length,
    reasonsLeft: left.reduce((n, g) => n + g.occurrences, 0),
    complete: true,
  }
}
