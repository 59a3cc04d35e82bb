/**
 * Serials `EEEE-BBB-UUUUUUU-K`: emission (1–9999), block (1–999), unit index (0–blockSize-1),
 * and a Damm check digit over the 14 digits, which catches every single-digit error and every
 * swap of two adjacent digits.
 */

export interface UnitId {
  emission: number
  block: number
  unit: number
}

export type SerialErrorCode =
  'SERIAL_EMPTY' | 'SERIAL_CHARACTER' | 'SERIAL_LENGTH' | 'SERIAL_FORMAT' | 'SERIAL_CHECK_DIGIT' | 'SERIAL_RANGE'

export class SerialError extends Error {
  constructor(
    readonly code: SerialErrorCode,
    message: string,
    readonly params: Record<string, string | number> = {},
  ) {
    super(message)
    this.name = 'SerialError'
  }
}

export const MAX_EMISSION = 9999
export const MAX_BLOCK = 999
const DEFAULT_BLOCK_SIZE = 8_016_000

// Damm's totally anti-symmetric quasigroup of order 10.
const DAMM = [
  [0, 3, 1, 7, 5, 9, 8, 6, 4, 2],
  [7, 0, 9, 2, 1, 5, 4, 8, 6, 3],
  [4, 2, 0, 6, 8, 7, 1, 3, 5, 9],
  [1, 7, 5, 0, 9, 8, 3, 4, 2, 6],
  [6, 1, 2, 3, 0, 4, 5, 9, 7, 8],
  [3, 6, 7, 4, 2, 0, 9, 5, 8, 1],
  [5, 8, 6, 9, 7, 2, 0, 1, 3, 4],
  [8, 9, 4, 5, 3, 6, 2, 0, 1, 7],
  [9, 4, 3, 8, 6, 1, 7, 2, 0, 5],
  [2, 5, 8, 1, 4, 3, 6, 7, 9, 0],
]

/** The Damm check digit of a string of decimal digits. */
export function dammCheckDigit(digits: string): number {
  let interim = 0
  for (let i = 0; i < digits.length; i++) {
    const d = digits.charCodeAt(i) - 48
    if (d < 0 || d > 9) throw new SerialError('SERIAL_CHARACTER', `"${digits[i]}" is not a digit`, { char: digits[i] })
    interim = DAMM[interim][d]
  }
  return interim
}

const pad = (n: number, width: number) => String(n).padStart(width, '0')

function checkRange(id: UnitId, blockSize: number): void {
  if (!Number.isInteger(id.emission) || id.emission < 1 || id.emission > MAX_EMISSION) {
    throw new SerialError('SERIAL_RANGE', `emission ${id.emission} is out of range (1–${MAX_EMISSION})`, {
      field: 'emission',
      value: id.emission,
    })
  }
  if (!Number.isInteger(id.block) || id.block < 1 || id.block > MAX_BLOCK) {
    throw new SerialError('SERIAL_RANGE', `block ${id.block} is out of range (1–${MAX_BLOCK})`, {
      field: 'block',
      value: id.block,
    })
  }
  if (!Number.isInteger(id.unit) || id.unit < 0 || id.unit >= blockSize) {
    throw new SerialError('SERIAL_RANGE', `unit ${id.unit} is out of range (0–${blockSize - 1})`, {
      field: 'unit',
      value: id.unit,
    })
  }
}

export function formatSerial(id: UnitId, blockSize = DEFAULT_BLOCK_SIZE): string {
  checkRange(id, blockSize)
  const body = pad(id.emission, 4) + pad(id.block, 3) + pad(id.unit, 7)
  return `${body.slice(0, 4)}-${body.slice(4, 7)}-${body.slice(7)}-${dammCheckDigit(body)}`
}

/**
 * Reads a serial as typed by a person: spaces are ignored, dashes are optional but, when given,
 * must stand where the format puts them. Throws a SerialError saying what is wrong.
 */
export function parseSerial(input: string, blockSize = DEFAULT_BLOCK_SIZE): UnitId {
  const canonical = typeof input === 'string' ? parseCanonical(input) : null
  if (canonical) {
    checkRange(canonical, blockSize)
    return canonical
  }
  const text = String(input ?? '').replace(/\s+/g, '')
  if (text === '') throw new SerialError('SERIAL_EMPTY', 'no serial given (expected EEEE-BBB-UUUUUUU-K)')
  for (let i = 0; i < text.length; i++) {
    const c = text[i]
    if (c !== '-' && (c < '0' || c > '9')) {
      throw new SerialError(
        'SERIAL_CHARACTER',
        `"${c}" at position ${i + 1} is not a digit (expected EEEE-BBB-UUUUUUU-K)`,
        { char: c, position: i + 1 },
      )
    }
  }
  const digits = text.replace(/-/g, '')
  if (digits.length !== 15) {
    throw new SerialError(
      'SERIAL_LENGTH',
      `a serial has 15 digits (EEEE-BBB-UUUUUUU-K), this one has ${digits.length}`,
      { length: digits.length },
    )
  }
  if (text.includes('-') && !/^\d{4}-\d{3}-\d{7}-\d$/.test(text)) {
    throw new SerialError('SERIAL_FORMAT', 'the dashes are misplaced (expected EEEE-BBB-UUUUUUU-K)')
  }
  if (dammCheckDigit(digits) !== 0) {
    throw new SerialError(
      'SERIAL_CHECK_DIGIT',
      'the check digit does not match: a digit was mistyped or two digits were swapped',
    )
  }
  const id = {
    emission: Number(digits.slice(0, 4)),
    block: Number(digits.slice(4, 7)),
    unit: Number(digits.slice(7, 14)),
  }
  checkRange(id, blockSize)
  return id
}

/**
 * A serial written exactly as formatSerial writes it, with a good check digit: its unit, read in
 * one pass (a feed carries hundreds of thousands); null for anything else, which parseSerial
 * then reads and explains the long way.
 */
function parseCanonical(s: string): UnitId | null {
  if (s.length !== 18) return null
  const codes = new Array<number>(18)
  for (let i = 0; i < 18; i++) codes[i] = s.charCodeAt(i)
  return canonicalAt(codes, 0)
}

/** parseCanonical on 18 character codes (or ASCII bytes) from `from`. */
function canonicalAt(codes: ArrayLike<number>, from: number): UnitId | null {
  let interim = 0
  let emission = 0
  let block = 0
  let unit = 0
  for (let i = 0; i < 18; i++) {
    const c = codes[from + i]
    if (i === 4 || i === 8 || i === 16) {
      if (c !== 45) return null
      continue
    }
    const d = c - 48
    if (d < 0 || d > 9) return null
    interim = DAMM[interim][d]
    if (i < 4) emission = emission * 10 + d
    else if (i < 8) block = block * 10 + d
    else if (i < 16) unit = unit * 10 + d
  }
  return interim === 0 ? { emission, block, unit } : null
}

/**
 * The unit of a serial written as bytes (a sales feed's, read in place) from `from` to `to`, when
 * parseSerial would read it in one pass and accept it; null otherwise (then decode it and ask
 * parseSerial, which says why).
 */
export function canonicalSerialAt(
  bytes: ArrayLike<number>,
  from: number,
  to: number,
  blockSize = DEFAULT_BLOCK_SIZE,
): UnitId | null {
  if (to - from !== 18) return null
  const id = canonicalAt(bytes, from)
  return id && id.emission >= 1 && id.block >= 1 && id.unit < blockSize ? id : null
}

/** Same as parseSerial, as a result instead of an exception (for typing-as-you-go checks). */
export function checkSerial(
  input: string,
  blockSize = DEFAULT_BLOCK_SIZE,
):
  | { ok: true; id: UnitId; serial: string }
  | { ok: false; code: SerialErrorCode; message: string; params: Record<string, string | number> } {
  try {
    const id = parseSerial(input, blockSize)
    return { ok: true, id, serial: formatSerial(id, blockSize) }
  } catch (e) {
    if (e instanceof SerialError) return { ok: false, code: e.code, message: e.message, params: e.params }
    throw e
  }
}
