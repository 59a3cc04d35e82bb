/**
 * What a text typed in the header's search box may be: a ticket's serial, an
 * emission's number or code, a player's id, a claim's payment reference. Several readings may
 * hold at once (a code that is also the start of player ids): each is looked up, and the screen
 * lists what was found. No lookup here: only the reading of the text.
 */
import { serialFeedback } from '../serialFeedback'

/** A payment reference as claims:pay takes it (contract): 3 to 64 characters. */
export const REFERENCE_LENGTH = { min: 3, max: 64 } as const
/** A player id as players:search takes it (contract): at most 64 characters. */
export const PLAYER_MAX_LENGTH = 64
/** An emission code as emissions:create takes it: at most 32 characters. */
export const CODE_MAX_LENGTH = 32

export interface SerialProblem {
  key: string
  params: Record<string, string | number>
}

export interface SearchText {
  /** The text as typed, trimmed. */
  text: string
  /** A well-formed serial (its check digit right), written as the ledger writes it. */
  serial: string | null
  /** What is wrong with a text that can only be a serial mistyped (said when nothing else matches). */
  serialProblem: SerialProblem | null
  /** An emission's number (1 to 9999), written with or without leading zeros. */
  emissionNumber: number | null
  /** The text as an emission code, compared ignoring case; null when too long to be one. */
  code: string | null
  /** The text as the start of player ids (players:search); null when too long to be one. */
  player: string | null
  /** The text as a payment reference, matched exactly; null when too short or too long. */
  reference: string | null
}

const digitCount = (s: string) => s.replace(/\D/g, '').length

/**
 * Digits, dashes and spaces only, and either 14 digits or more or a serial's first dashes
 * (0001-001-…): typed as a serial, so a bad one is explained rather than only "not found".
 */
export function looksLikeSerial(text: string): boolean {
  return /^[\d\s-]+$/.test(text) && (digitCount(text) >= 14 || /^\d{4}-\d{3}-/.test(text))
}

function serialReading(text: string): Pick<SearchText, 'serial' | 'serialProblem'> {
  const f = serialFeedback(text)
  if (f.state === 'ok') return { serial: f.serial, serialProblem: null }
  if (!looksLikeSerial(text)) return { serial: null, serialProblem: null }
  return { serial: null, serialProblem: { key: f.key, params: f.params } }
}

/** "12", "0012": emission 12; nothing else is read as a number (a serial has dashes or 15 digits). */
export function emissionNumberOf(text: string): number | null {
  if (!/^\d{1,4}$/.test(text)) return null
  const n = Number(text)
  return n >= 1 && n <= 9999 ? n : null
}

const within = (text: string, min: number, max: number) => (text.length >= min && text.length <= max ? text : null)

/** Every reading of the text; an empty text has none. */
export function readSearchText(input: string): SearchText {
  const text = input.trim()
  if (!text)
    return {
      text,
      serial: null,
      serialProblem: null,
      emissionNumber: null,
      code: null,
      player: null,
      reference: null,
    }
  return {
    text,
    ...serialReading(text),
    emissionNumber: emissionNumberOf(text),
    code: within(text, 1, CODE_MAX_LENGTH),
    player: within(text, 1, PLAYER_MAX_LENGTH),
    reference: within(text, REFERENCE_LENGTH.min, REFERENCE_LENGTH.max),
  }
}
