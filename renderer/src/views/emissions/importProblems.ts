import type { ImportLineError, ImportProblem } from '../../../../electron/contract'
import { blockNo, emissionNo } from '../../format'
import { serialFeedback } from '../../components/serialFeedback'

type Translate = (key: string, params?: Record<string, unknown>) => string
type Params = Record<string, string | number>

/** The formats a reason's values are written in, in the user's language (useFormat's). */
export interface ProblemFormat {
  money: (cents: number) => string
  int: (n: number) => string
  dateTime: (iso: string) => string
  day: (day: string) => string
}

const P = 'emissions.importModal.problems'
const FIELDS = 'emissions.importModal.fields'
/** Counts, written as numbers in the user's language. */
const COUNTS = ['size', 'blocks', 'max', 'cells', 'count', 'first', 'skewMinutes']
/** Times the importer read (the line's own, valid) or the ledger's: written in the user's language. */
const TIMES = ['now', 'createdAt']
/** The sale time, when the line's time is valid and only its moment is wrong. */
const TIMELY = new Set(['SOLD_AT_FUTURE', 'SOLD_AT_EARLY', 'SOLD_AT_BEFORE_CREATION'])

/** A field of the line (`stakeCents`, `play.mode`) in words ("la mise"), or its name quoted. */
function fieldWords(field: string, t: Translate, te: (key: string) => boolean): string {
  const key = `${FIELDS}.${field.replace(/\./g, '_')}`
  return te(key) ? t(key) : t(`${FIELDS}.named`, { field })
}

/** A serial that is not one, said as the ticket inspector says it while it is typed. */
function serialDetail(serial: string, t: Translate): string {
  const f = serialFeedback(serial)
  const params: Params = { ...f.params }
  // a part out of range as the serial writes it (bloc 000, de 001 à 999), its name in words
  const pad = params.field === 'block' ? blockNo : params.field === 'emission' ? emissionNo : null
  if (pad)
    for (const k of ['value', 'min', 'max']) if (typeof params[k] === 'number') params[k] = pad(params[k] as number)
  if (typeof params.field === 'string') params.field = t(`serial.field.${params.field}`)
  return t(f.key, params)
}

/** The reason's values as the sentence says them: money, numbers, times, states, fields and zones in words. */
function sayParams(p: ImportProblem, t: Translate, te: (key: string) => boolean, fmt: ProblemFormat): Params {
  const params: Params = { ...p.params }
  const num = (k: string, say: (n: number) => string) =>
    typeof params[k] === 'number' && (params[k] = say(params[k] as number))
  num('expectedCents', fmt.money)
  num('gotCents', fmt.money)
  for (const k of COUNTS) num(k, fmt.int)
  // emissions and blocks as the screens number them ("émission 0007", "bloc 012")
  num('emission', emissionNo)
  num('block', blockNo)
  for (const k of TIMES) if (typeof params[k] === 'string') params[k] = fmt.dateTime(params[k] as string)
  if (typeof params.startsOn === 'string') params.startsOn = fmt.day(params.startsOn)
  if (TIMELY.has(p.code) && typeof params.soldAt === 'string') params.soldAt = fmt.dateTime(params.soldAt)
  // an emission's or a block's state, in words (a play's status is the feed's own value, quoted)
  if ((p.code === 'NOT_OPEN' || p.code === 'BLOCK_NOT_SELLING') && typeof params.status === 'string')
    params.status = t(`status.${params.status}`).toLowerCase()
  if (typeof params.zone === 'string' && (params.zone === 'winning' || params.zone === 'yours'))
    params.zone = t(`emissions.importModal.zones.${params.zone}`)
  if (typeof params.field === 'string') {
    params.name = params.field
    params.field = fieldWords(params.field, t, te)
  }
  if (typeof params.expected === 'string') params.expected = t(`emissions.importModal.kinds.${params.expected}`)
  if (typeof params.values === 'string') params.values = params.values.split('|').join(t('emissions.importModal.or'))
  if (p.code === 'RECORDED_OTHER' && typeof params.fields === 'string') {
    const recordedFor = params.recordedFor
    params.fields = params.fields
      .split(',')
      .map((f) =>
        f === 'serial' && recordedFor
          ? t(`${FIELDS}.serialRecordedFor`, { serial: recordedFor })
          : fieldWords(f, t, te),
      )
      .join(', ')
  }
  if (p.code === 'SERIAL') params.detail = serialDetail(String(params.serial), t)
  // a refused character's kind (contract/text.ts), in words
  if (typeof params.problem === 'string') params.problem = t(`reasons.textProblems.${params.problem}`)
  return params
}

/** One reason a feed line was refused, in the user's language. */
export function describeProblem(
  p: ImportProblem,
  t: Translate,
  te: (key: string) => boolean,
  fmt: ProblemFormat,
): string {
  const params = sayParams(p, t, te, fmt)
  // where JSON.parse gave up, when it said: the column, rather than its English sentence
  if (p.code === 'JSON' && typeof p.params.column === 'number')
    return t(`${P}.${p.params.end ? 'JSON_END' : 'JSON_AT'}`, params)
  return t(`${P}.${p.code}`, params)
}

/** A refused line's reasons, in the user's language (its English reason when it came without them). */
export function describeLine(
  l: ImportLineError,
  t: Translate,
  te: (key: string) => boolean,
  fmt: ProblemFormat,
): string {
  if (!l.problems?.length) return l.reason
  return l.problems.map((p) => describeProblem(p, t, te, fmt)).join(t('emissions.importModal.reasonSeparator'))
}

/**
 * A chosen feed's SHA-256, in hexadecimal, sent with it: the host leases the import by it while the
 * bytes arrive, and refuses bytes that do not have it. Undefined where the page may not hash (Web
 * Crypto only runs in a secure context); the feed is then sent without it.
 */
export async function feedSha256(bytes: Uint8Array<ArrayBuffer>): Promise<string | undefined> {
  if (!globalThis.crypto?.subtle) return undefined
  const digest = new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', bytes))
  return Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('')
}

/** The lines of a chosen feed that are not empty, counted on its bytes (no decoding of a large file). */
export function countFeedLines(bytes: Uint8Array): number {
  let n = 0
  for (let start = 0; start <= bytes.length;) {
    let end = bytes.indexOf(0x0a, start)
    if (end < 0) end = bytes.length
    let last = end
    if (last > start && bytes[last - 1] === 0x0d) last--
    if (last > start) n++
    start = end + 1
  }
  return n
}
