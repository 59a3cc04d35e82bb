/**
 * The one rule for text that the ledger stores or logs (issue 29, item 1): names, player ids,
 * reasons, references, codes, filters, a feed's player and sale ids. Refused, with the character
 * and its place named:
 * - half of a UTF-16 surrogate pair (U+D800–U+DFFF alone): no storage keeps it as typed (SQLite
 *   writes invalid UTF-8, PostgreSQL refuses it or turns it into U+FFFD), so what is stored would
 *   no longer be what was sealed;
 * - control characters: C0 (U+0000–U+001F; a multi-line text keeps line feed and tab), DEL, C1
 *   (U+0080–U+009F), and the line and paragraph separators U+2028, U+2029: they break logs,
 *   terminals, exports, and NUL breaks PostgreSQL's text;
 * - invisible characters (zero-width spaces and joiners, word joiner, byte order mark, soft
 *   hyphen, fillers…): "admin\u200b" shows as "admin";
 * - bidirectional formatting characters (embeddings and overrides U+202A–U+202E, isolates
 *   U+2066–U+2069, marks U+200E, U+200F, U+061C): a text then shows in another order than stored.
 * Names and free text are kept in Unicode's composed form (NFC): the contract composes them, the
 * sales feed must send them composed (a player id is the platform's, not ours to rewrite).
 * Pure TypeScript (the renderer's bundle takes it too).
 */

/** What kind of character a text may not hold (or, `not-nfc`, that it is not composed). */
export const TEXT_PROBLEM_KINDS = ['surrogate', 'control', 'invisible', 'bidi', 'not-nfc'] as const
export type TextProblemKind = (typeof TEXT_PROBLEM_KINDS)[number]

export interface TextProblem {
  /** the character as U+XXXX */
  char: string
  /** its place, 1 for the first character (UTF-16 units, as JavaScript counts them) */
  position: number
  kind: TextProblemKind
}

export interface TextRule {
  /** a multi-line free text (a reason): line feed and tab allowed */
  multiline?: boolean
  /** refuse a text that is not in composed form (NFC), rather than composing it */
  composed?: boolean
}

const INVISIBLE = new Set([
  0x00ad, 0x034f, 0x115f, 0x1160, 0x17b4, 0x17b5, 0x180e, 0x200b, 0x200c, 0x200d, 0x2060, 0x2061, 0x2062, 0x2063,
  0x2064, 0x3164, 0xfeff, 0xffa0,
])
const BIDI = new Set([0x061c, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069])

/** The kind of the UTF-16 unit `c` when a text may not hold it (surrogates apart), or null. */
export function forbiddenKind(c: number, multiline = false): Exclude<TextProblemKind, 'surrogate' | 'not-nfc'> | null {
  if (c < 0x20) return multiline && (c === 0x0a || c === 0x09) ? null : 'control'
  if (c < 0x7f) return null
  if (c <= 0x9f || c === 0x2028 || c === 0x2029) return 'control'
  if (INVISIBLE.has(c) || (c >= 0x180b && c <= 0x180f)) return 'invisible'
  return BIDI.has(c) ? 'bidi' : null
}

/** U+XXXX, as the character's name is written. */
export const codePoint = (c: number): string =>
  `U+${c
    .toString(16)
    .toUpperCase()
    .padStart(c > 0xffff ? 5 : 4, '0')}`

const isHigh = (c: number) => c >= 0xd800 && c <= 0xdbff
const isLow = (c: number) => c >= 0xdc00 && c <= 0xdfff

/** The first character of `text` that the rule refuses, or null when it has none. */
export function textProblem(text: string, rule: TextRule = {}): TextProblem | null {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (isHigh(c) && isLow(text.charCodeAt(i + 1))) {
      i++
      continue
    }
    if (isHigh(c) || isLow(c)) return { char: codePoint(c), position: i + 1, kind: 'surrogate' }
    const kind = forbiddenKind(c, rule.multiline)
    if (kind) return { char: codePoint(c), position: i + 1, kind }
  }
  return rule.composed ? compositionProblem(text) : null
}

/** Where a text free of refused characters stops being in composed form (NFC), or null when it is. */
function compositionProblem(text: string): TextProblem | null {
  const nfc = text.normalize('NFC')
  if (nfc === text) return null
  let i = 0
  while (i < text.length && text.charCodeAt(i) === nfc.charCodeAt(i)) i++
  return { char: codePoint(text.codePointAt(i)!), position: i + 1, kind: 'not-nfc' }
}

const KIND_TEXT: Record<TextProblemKind, string> = {
  surrogate: 'half of a UTF-16 surrogate pair, which no ledger stores as it is',
  control: 'a control character',
  invisible: 'an invisible character',
  bidi: 'a bidirectional formatting character',
  'not-nfc': '',
}

/** The English sentence of textProblem's answer (`what`: a player id, a name…). */
export function describeTextProblem(p: TextProblem, what = 'a text'): string {
  if (p.kind === 'not-nfc')
    return `it is not in Unicode's composed form (NFC) from character ${p.position} (${p.char}) on: ${what} is sent composed`
  return `it holds ${p.char} at character ${p.position}, ${KIND_TEXT[p.kind]}: ${what} may hold no control, invisible or bidirectional formatting character, nor half of a surrogate pair`
}

/** A feed's player id: the rule, composed form required (the platform's id is not rewritten). */
export const playerIdProblem = (text: string): TextProblem | null => textProblem(text, { composed: true })

/** The English sentence of playerIdProblem's answer. */
export const describePlayerIdProblem = (p: TextProblem): string => describeTextProblem(p, 'a player id')

/** The first character of `s` that no ledger stores as it is (a lone surrogate, NUL), or null. */
export function firstUnstorable(s: string): TextProblem | null {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (isHigh(c) && isLow(s.charCodeAt(i + 1))) i++
    else if (isHigh(c) || isLow(c)) return { char: codePoint(c), position: i + 1, kind: 'surrogate' }
    else if (c === 0) return { char: 'U+0000', position: i + 1, kind: 'control' }
  }
  return null
}
