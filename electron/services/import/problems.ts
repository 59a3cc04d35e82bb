/**
 * A feed line's shape (the zod schema of the careful import) and the reasons to refuse a line:
 * each a stable code with its values, which the screens say in the user's language
 * (renderer/src/views/emissions/importProblems.ts), and its English sentence, which the command
 * line and the audit log keep. Every code is in contract/types.ts IMPORT_PROBLEM_CODES.
 */
import { z } from 'zod'
import type { ImportProblem, ImportProblemCode } from '../../contract/types'

const MAX_TEXT = 64
export const MAX_EVENTS = 64
export const EVENT_KEYS = new Set(['t', 'zone', 'cell', 'gesture'])

const text = (what: string) =>
  z
    .string()
    .min(1, `${what} is empty`)
    .max(MAX_TEXT, `${what} is longer than ${MAX_TEXT} characters`)
    .refine((s) => s.trim() === s, `${what} has spaces around it`)

/** One line's shape. The events are checked by the game's own rules (validatePlay), with their fields. */
export const feedLineSchema = z
  .object({
    saleId: text('saleId'),
    serial: z.string().max(40, 'serial is too long'),
    player: text('player'),
    soldAt: z.string().max(40, 'soldAt is too long'),
    stakeCents: z.number().int('stakeCents must be a whole number of cents'),
    play: z
      .object({
        mode: z.enum(['play', 'auto']),
        status: z.enum(['complete', 'interrupted']),
        events: z.array(z.unknown()).max(MAX_EVENTS, `a play has at most ${MAX_EVENTS} events`),
      })
      .strict()
      .nullable(),
  })
  .strict()

export type FeedLineData = z.infer<typeof feedLineSchema>

/** One reason to refuse a line: its code and values (for the screens), and its English sentence. */
export type Problem = ImportProblem & { text: string }
export const problem = (code: ImportProblemCode, params: ImportProblem['params'], text: string): Problem => ({
  code,
  params,
  text,
})

function valueAt(root: unknown, path: readonly PropertyKey[]): { present: boolean; value: unknown } {
  let v: unknown = root
  for (const k of path) {
    if (v === null || typeof v !== 'object' || !Object.hasOwn(v, k)) return { present: false, value: undefined }
    v = (v as Record<PropertyKey, unknown>)[k]
  }
  return { present: true, value: v }
}

/** The value as the line wrote it, short enough for a sentence. */
function shown(value: unknown): string {
  const s = value === undefined ? 'nothing' : (JSON.stringify(value) ?? String(value))
  return s.length > 40 ? `${s.slice(0, 39)}…` : s
}

const KIND_TEXT: Record<string, string> = { object: 'an object', array: 'a list', objectOrNull: 'an object or null' }

function typeProblem(path: string, expected: string, value: unknown): Problem {
  // a whole number asked for, another number given: the stake's own reason
  if (expected === 'int' && typeof value === 'number')
    return problem(
      'STAKE_NOT_WHOLE',
      { got: shown(value) },
      `stakeCents must be a whole number of cents, not ${shown(value)}`,
    )
  const kind = expected === 'int' ? 'number' : expected === 'object' && path === 'play' ? 'objectOrNull' : expected
  const field = path || 'line'
  return problem(
    'FIELD_TYPE',
    { field, expected: kind, got: shown(value) },
    `${path || 'the line'} must be ${KIND_TEXT[kind] ?? `a ${kind}`}, not ${shown(value)}`,
  )
}

/** What the schema refused, as one of the import's reasons. */
export function describeZodIssue(issue: z.core.$ZodIssue, root: unknown): Problem {
  const path = issue.path.map(String).join('.')
  if (issue.code === 'unrecognized_keys') {
    const where = path ? ` in ${path}` : ''
    const fields = issue.keys.map((k) => `"${k}"`).join(', ')
    return problem(
      'FIELD_UNKNOWN',
      { fields, where: path },
      `unknown field${issue.keys.length > 1 ? 's' : ''} ${fields}${where}`,
    )
  }
  const at = valueAt(root, issue.path)
  if (issue.code === 'invalid_type' && !at.present)
    return problem('FIELD_MISSING', { field: path }, `missing field "${path}"`)
  if (issue.code === 'invalid_type') return typeProblem(path, issue.expected, at.value)
  if (issue.code === 'invalid_value' && path) {
    const values = issue.values.map((v) => JSON.stringify(v))
    return problem(
      'FIELD_VALUE',
      { field: path, values: values.join('|'), got: shown(at.value) },
      `${path} must be ${values.join(' or ')}, not ${shown(at.value)}`,
    )
  }
  if (issue.code === 'too_small' && issue.origin === 'string')
    return problem('TEXT_EMPTY', { field: path }, issue.message)
  if (issue.code === 'too_big' && issue.origin === 'string')
    return problem('TEXT_TOO_LONG', { field: path, max: Number(issue.maximum) }, issue.message)
  if (issue.code === 'too_big' && issue.origin === 'array')
    return problem('EVENTS_TOO_MANY', { max: Number(issue.maximum) }, issue.message)
  if (issue.code === 'custom' && issue.message.endsWith('has spaces around it'))
    return problem('TEXT_SPACES', { field: path }, issue.message)
  const detail = path && !issue.message.startsWith(path) ? `${path}: ${issue.message}` : issue.message
  return problem('SHAPE', { field: path || 'line', detail }, detail)
}

/**
 * A line that JSON.parse refused: its sentence, and where it gave up as a column of the line
 * when its message says (`column`; `end` when the line stops before its JSON does), so that the
 * screens can say it in the user's language.
 */
export function jsonProblem(e: unknown, line: string): Problem {
  const detail = e instanceof Error ? e.message : String(e)
  const params: ImportProblem['params'] = { detail }
  const at = /at position (\d+)/.exec(detail)
  const position = at ? Number(at[1]) : /end of JSON input/.test(detail) ? line.length : -1
  if (position >= 0) params.column = Math.min(position, line.length) + 1
  if (position >= line.length) params.end = 1
  return problem('JSON', params, `not valid JSON (${detail})`)
}

/** The events' own fields: validatePlay judges their values, this the keys it does not look at. */
export function eventFieldProblems(events: unknown[]): Problem[] {
  const out: Problem[] = []
  events.forEach((e, i) => {
    if (e === null || typeof e !== 'object' || Array.isArray(e)) return
    const keys = Object.keys(e)
    const extra = keys.filter((k) => !EVENT_KEYS.has(k))
    const missing = [...EVENT_KEYS].filter((k) => !(k in e))
    const list = (ks: string[]) => ks.map((k) => `"${k}"`).join(', ')
    if (extra.length)
      out.push(
        problem(
          'EVENT_FIELDS_UNKNOWN',
          { event: i + 1, fields: list(extra) },
          `event ${i + 1}: unknown field${extra.length > 1 ? 's' : ''} ${list(extra)}`,
        ),
      )
    if (missing.length)
      out.push(
        problem(
          'EVENT_FIELDS_MISSING',
          { event: i + 1, fields: list(missing) },
          `event ${i + 1}: missing field${missing.length > 1 ? 's' : ''} ${list(missing)}`,
        ),
      )
  })
  return out
}

/** Whether every event has exactly the four usual keys (then the play's rules alone judge it). */
export function fastEventKeys(events: unknown[]): boolean {
  for (const e of events) {
    if (e === null || typeof e !== 'object') return false
    let n = 0
    for (const k in e) {
      if (!EVENT_KEYS.has(k)) return false
      n++
    }
    if (n !== 4) return false
  }
  return true
}

/** A sale recorded before whose content differs from the line's: the fields that differ, by name. */
export const RECORDED_FIELDS = ['serial', 'player', 'soldAt', 'stakeCents', 'play'] as const
export type RecordedField = (typeof RECORDED_FIELDS)[number]

export function recordedOtherProblem(saleId: string, fields: RecordedField[], recordedFor: string | null): Problem {
  const words = fields.map((f) => (f === 'serial' && recordedFor ? `serial (recorded for ${recordedFor})` : f))
  const params: ImportProblem['params'] = { saleId, fields: fields.join(',') }
  if (recordedFor) params.recordedFor = recordedFor
  return problem(
    'RECORDED_OTHER',
    params,
    `saleId ${saleId} is already recorded with other content (${words.join(', ')} differ)`,
  )
}
