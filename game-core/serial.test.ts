import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  MAX_BLOCK,
  MAX_EMISSION,
  SerialError,
  checkSerial,
  dammCheckDigit,
  formatSerial,
  parseSerial,
  type SerialErrorCode,
  type UnitId,
} from './serial'

const BLOCK_SIZE = 8_016_000

/** A seeded generator for test inputs (mulberry32); outcomes never come from here. */
function seeded(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const withDashes = (d: string) => `${d.slice(0, 4)}-${d.slice(4, 7)}-${d.slice(7, 14)}-${d.slice(14)}`
const digitsOf = (serial: string) => serial.replace(/-/g, '')
/** A body of 14 digits completed with its own check digit: a "well-formed" serial, in range or not. */
const complete = (body: string) => withDashes(body + dammCheckDigit(body))

function errorOf(input: string, blockSize = BLOCK_SIZE): SerialError {
  try {
    parseSerial(input, blockSize)
  } catch (e) {
    expect(e).toBeInstanceOf(SerialError)
    return e as SerialError
  }
  throw new Error(`"${input}" was accepted`)
}

function expectCode(input: string, code: SerialErrorCode, blockSize = BLOCK_SIZE): SerialError {
  const e = errorOf(input, blockSize)
  expect(e.code, `${JSON.stringify(input)}: ${e.message}`).toBe(code)
  return e
}

/** Edge serials (every combination of field extremes) and 2,000 random ones. */
function sampleIds(): UnitId[] {
  const ids: UnitId[] = []
  for (const emission of [1, 2, 10, 999, 1000, 9998, MAX_EMISSION])
    for (const block of [1, 9, 10, 100, MAX_BLOCK])
      for (const unit of [0, 1, 9, 1_000_000, 7_999_999, BLOCK_SIZE - 1]) ids.push({ emission, block, unit })
  const rnd = seeded(20130516)
  for (let i = 0; i < 2000; i++) {
    ids.push({
      emission: 1 + Math.floor(rnd() * MAX_EMISSION),
      block: 1 + Math.floor(rnd() * MAX_BLOCK),
      unit: Math.floor(rnd() * BLOCK_SIZE),
    })
  }
  return ids
}

describe('Damm check digit', () => {
  it('matches the published example (572 → 4) and makes the whole serial check to 0', () => {
    expect(dammCheckDigit('572')).toBe(4)
    expect(dammCheckDigit('5724')).toBe(0)
    const s = formatSerial({ emission: 12, block: 34, unit: 567_890 })
    expect(dammCheckDigit(digitsOf(s))).toBe(0)
  })

  it('rejects a non-digit', () => {
    expect(() => dammCheckDigit('12a4')).toThrow(SerialError)
  })
})

describe('formatSerial / parseSerial', () => {
  it('has the shape EEEE-BBB-UUUUUUU-K, zero-padded', () => {
    const s = formatSerial({ emission: 1, block: 1, unit: 0 })
    expect(s).toMatch(/^0001-001-0000000-\d$/)
    expect(s).toBe(`0001-001-0000000-${dammCheckDigit('00010010000000')}`)
    expect(formatSerial({ emission: 9999, block: 999, unit: 8_015_999 })).toMatch(/^9999-999-8015999-\d$/)
    expect(formatSerial({ emission: 42, block: 7, unit: 12_345 })).toMatch(/^0042-007-0012345-\d$/)
  })

  it('round-trips every edge serial and 2,000 random ones', () => {
    for (const id of sampleIds()) {
      const s = formatSerial(id)
      expect(s).toMatch(/^\d{4}-\d{3}-\d{7}-\d$/)
      expect(parseSerial(s)).toEqual(id)
      expect(parseSerial(digitsOf(s))).toEqual(id) // dashes are optional
    }
  })

  it('takes the block size into account', () => {
    expect(formatSerial({ emission: 1, block: 1, unit: 9_999 }, 10_000)).toMatch(/^0001-001-0009999-\d$/)
    expect(() => formatSerial({ emission: 1, block: 1, unit: 10_000 }, 10_000)).toThrow(
      /unit 10000 is out of range \(0–9999\)/,
    )
    const s = formatSerial({ emission: 1, block: 1, unit: 10_000 })
    expect(expectCode(s, 'SERIAL_RANGE', 10_000).params).toEqual({ field: 'unit', value: 10_000 })
  })

  it('refuses to format an identity out of range', () => {
    const bad: [UnitId, RegExp][] = [
      [{ emission: 0, block: 1, unit: 0 }, /emission 0 is out of range \(1–9999\)/],
      [{ emission: 10_000, block: 1, unit: 0 }, /emission 10000 is out of range/],
      [{ emission: 1, block: 0, unit: 0 }, /block 0 is out of range \(1–999\)/],
      [{ emission: 1, block: 1000, unit: 0 }, /block 1000 is out of range/],
      [{ emission: 1, block: 1, unit: -1 }, /unit -1 is out of range/],
      [{ emission: 1, block: 1, unit: BLOCK_SIZE }, /unit 8016000 is out of range \(0–8015999\)/],
      [{ emission: 1.5, block: 1, unit: 0 }, /emission 1.5 is out of range/],
      [{ emission: 1, block: 1, unit: 2.5 }, /unit 2.5 is out of range/],
    ]
    for (const [id, message] of bad) {
      let caught: unknown
      try {
        formatSerial(id)
      } catch (e) {
        caught = e
      }
      expect(caught).toBeInstanceOf(SerialError)
      expect((caught as SerialError).code).toBe('SERIAL_RANGE')
      expect((caught as SerialError).message).toMatch(message)
    }
  })
})

describe('typing errors are caught, never taken for another serial', () => {
  const ids = sampleIds()
  // Hundreds of thousands of rejected serials: stack traces would dominate the run time.
  let stackTraceLimit = Error.stackTraceLimit
  beforeAll(() => {
    stackTraceLimit = Error.stackTraceLimit
    Error.stackTraceLimit = 0
  })
  afterAll(() => {
    Error.stackTraceLimit = stackTraceLimit
  })

  it('every single-digit substitution, at each of the 15 digits, is a wrong check digit (with and without dashes)', () => {
    let tried = 0
    for (const id of ids) {
      const d = digitsOf(formatSerial(id))
      for (let pos = 0; pos < 15; pos++) {
        for (let v = 0; v <= 9; v++) {
          if (String(v) === d[pos]) continue
          const typo = d.slice(0, pos) + v + d.slice(pos + 1)
          // The check digit is tested before the ranges: a typo is reported as a typo.
          const r = checkSerial(withDashes(typo))
          if (r.ok || r.code !== 'SERIAL_CHECK_DIGIT')
            throw new Error(`${withDashes(typo)} (typo of ${withDashes(d)}) gave ${JSON.stringify(r)}`)
          const r2 = checkSerial(typo)
          if (r2.ok || r2.code !== 'SERIAL_CHECK_DIGIT') throw new Error(`${typo} gave ${JSON.stringify(r2)}`)
          tried++
        }
      }
    }
    expect(tried).toBe(ids.length * 15 * 9)
  })

  it('every swap of two adjacent different digits, across the dashes and the check digit too, is a wrong check digit', () => {
    let tried = 0
    for (const id of ids) {
      const d = digitsOf(formatSerial(id))
      for (let pos = 0; pos < 14; pos++) {
        if (d[pos] === d[pos + 1]) continue
        const swapped = d.slice(0, pos) + d[pos + 1] + d[pos] + d.slice(pos + 2)
        for (const typed of [withDashes(swapped), swapped]) {
          const r = checkSerial(typed)
          if (r.ok || r.code !== 'SERIAL_CHECK_DIGIT')
            throw new Error(`${typed} (swap in ${withDashes(d)}) gave ${JSON.stringify(r)}`)
        }
        tried++
      }
    }
    expect(tried).toBeGreaterThan(ids.length * 10)
  })

  it('all 10 × 10 substitutions and swaps of a whole digit pair are caught on a fixed serial (exhaustive check of the table)', () => {
    // For every (a, b) pair at every adjacent position: substitution a→b and the swap ab→ba.
    const base = digitsOf(formatSerial({ emission: 1234, block: 567, unit: 1_234_567 })).slice(0, 14)
    let swaps = 0
    for (let pos = 0; pos < 14; pos++) {
      for (let a = 0; a <= 9; a++)
        for (let b = 0; b <= 9; b++) {
          // positions pos and pos+1 hold a and b; at pos 13 the second one is the check digit itself
          const body = pos < 13 ? base.slice(0, pos) + a + b + base.slice(pos + 2) : base.slice(0, 13) + a
          const good = body + dammCheckDigit(body)
          if (pos === 13 && good[14] !== String(b)) continue
          if (a === b) continue
          expect(dammCheckDigit(good)).toBe(0)
          const swapped = good.slice(0, pos) + good[pos + 1] + good[pos] + good.slice(pos + 2)
          expect(dammCheckDigit(swapped), `${good} → ${swapped}`).not.toBe(0)
          for (let v = 0; v <= 9; v++) {
            if (String(v) === good[pos]) continue
            expect(dammCheckDigit(good.slice(0, pos) + v + good.slice(pos + 1))).not.toBe(0)
          }
          swaps++
        }
    }
    expect(swaps).toBeGreaterThan(13 * 90)
  })

  it('a dash swapped with a digit is a misplaced dash', () => {
    const s = formatSerial({ emission: 1, block: 1, unit: 0 })
    for (const dash of [4, 8, 16]) {
      const chars = s.split('')
      ;[chars[dash - 1], chars[dash]] = [chars[dash], chars[dash - 1]]
      expectCode(chars.join(''), 'SERIAL_FORMAT')
    }
  })
})

describe('clear errors for what support staff may type', () => {
  const good = formatSerial({ emission: 1, block: 2, unit: 345 })

  it('empty input', () => {
    for (const input of ['', '   ', '\t\n'])
      expect(expectCode(input, 'SERIAL_EMPTY').message).toMatch(/no serial given \(expected EEEE-BBB-UUUUUUU-K\)/)
    expect(expectCode(undefined as unknown as string, 'SERIAL_EMPTY')).toBeTruthy()
  })

  it('a letter, with its position', () => {
    const e = expectCode('0001-00A-0000345-1', 'SERIAL_CHARACTER')
    expect(e.message).toMatch(/"A" at position 8 is not a digit/)
    expect(e.params).toEqual({ char: 'A', position: 8 })
    // the letter O for a zero, a slash, a dot
    expectCode(good.replace('0', 'O'), 'SERIAL_CHARACTER')
    expectCode(good.replace('-', '/'), 'SERIAL_CHARACTER')
    expectCode(good.replace('-', '.'), 'SERIAL_CHARACTER')
  })

  it('a wrong length says how many digits it has', () => {
    const d = digitsOf(good)
    const short = expectCode(d.slice(0, 14), 'SERIAL_LENGTH')
    expect(short.message).toMatch(/a serial has 15 digits \(EEEE-BBB-UUUUUUU-K\), this one has 14/)
    expect(short.params).toEqual({ length: 14 })
    expect(expectCode(d + '0', 'SERIAL_LENGTH').params).toEqual({ length: 16 })
    expect(expectCode(good.slice(0, -2), 'SERIAL_LENGTH').params).toEqual({ length: 14 }) // check digit forgotten
    expect(expectCode('-', 'SERIAL_LENGTH').params).toEqual({ length: 0 })
  })

  it('misplaced dashes', () => {
    const d = digitsOf(good)
    for (const typed of [
      `${d.slice(0, 3)}-${d.slice(3, 7)}-${d.slice(7, 14)}-${d[14]}`,
      `${d.slice(0, 4)}--${d.slice(4, 7)}-${d.slice(7, 14)}-${d[14]}`,
      `${d.slice(0, 4)}-${d.slice(4, 14)}${d[14]}`,
      `-${d}`,
      `${d}-`,
    ]) {
      expect(expectCode(typed, 'SERIAL_FORMAT').message).toMatch(
        /the dashes are misplaced \(expected EEEE-BBB-UUUUUUU-K\)/,
      )
    }
  })

  it('a wrong check digit is an error, not a lookup', () => {
    const wrong = good.slice(0, -1) + ((Number(good.slice(-1)) + 1) % 10)
    const e = expectCode(wrong, 'SERIAL_CHECK_DIGIT')
    expect(e.message).toMatch(/check digit does not match/)
  })

  it('emission 0, block 0 and units past the block are out of range, naming the field', () => {
    const e0 = expectCode(complete('0000' + '001' + '0000000'), 'SERIAL_RANGE')
    expect(e0.params).toEqual({ field: 'emission', value: 0 })
    expect(e0.message).toMatch(/emission 0 is out of range \(1–9999\)/)
    const b0 = expectCode(complete('0001' + '000' + '0000000'), 'SERIAL_RANGE')
    expect(b0.params).toEqual({ field: 'block', value: 0 })
    expect(b0.message).toMatch(/block 0 is out of range \(1–999\)/)
    for (const unit of [8_016_000, 8_016_001, 9_999_999]) {
      const u = expectCode(complete('0001' + '001' + String(unit)), 'SERIAL_RANGE')
      expect(u.params).toEqual({ field: 'unit', value: unit })
      expect(u.message).toMatch(new RegExp(`unit ${unit} is out of range \\(0–8015999\\)`))
    }
    // the last unit of a block is in range
    expect(parseSerial(complete('0001' + '001' + '8015999'))).toEqual({ emission: 1, block: 1, unit: 8_015_999 })
  })

  it('tolerates spaces anywhere', () => {
    const id = { emission: 1, block: 2, unit: 345 }
    const d = digitsOf(good)
    for (const typed of [
      ` ${good} `,
      `${d.slice(0, 4)} ${d.slice(4, 7)} ${d.slice(7, 14)} ${d[14]}`,
      `${d.slice(0, 4)} - ${d.slice(4, 7)} - ${d.slice(7, 14)} - ${d[14]}`,
      `\t${good}\n`,
      d.split('').join(' '),
    ]) {
      expect(parseSerial(typed)).toEqual(id)
    }
  })
})

describe('checkSerial', () => {
  it('gives the identity and the canonical serial when it is good', () => {
    const s = formatSerial({ emission: 77, block: 3, unit: 4_000_000 })
    const typed = ` ${digitsOf(s).slice(0, 7)} ${digitsOf(s).slice(7)} `
    expect(checkSerial(typed)).toEqual({ ok: true, id: { emission: 77, block: 3, unit: 4_000_000 }, serial: s })
  })

  it('gives code, message and params when it is not', () => {
    expect(checkSerial('0001-00A-0000345-1')).toEqual({
      ok: false,
      code: 'SERIAL_CHARACTER',
      message: expect.stringMatching(/"A" at position 8 is not a digit/),
      params: { char: 'A', position: 8 },
    })
    const r = checkSerial('')
    expect(r.ok).toBe(false)
    if (!r.ok) {
      expect(r.code).toBe('SERIAL_EMPTY')
      expect(r.params).toEqual({})
    }
  })
})

describe('a serial written as formatSerial writes it (the quick path) reads as the same serial typed otherwise', () => {
  const outcome = (s: string) => {
    try {
      return { id: parseSerial(s) }
    } catch (e) {
      return { code: (e as SerialError).code }
    }
  }
  it('gives the same unit or the same error, for good serials and every one-character change', () => {
    const chars = '0123456789- x'
    for (let k = 0; k < 300; k++) {
      const s = formatSerial({
        emission: 1 + ((k * 37) % MAX_EMISSION),
        block: 1 + ((k * 11) % MAX_BLOCK),
        unit: (k * 26_717) % 8_016_000,
      })
      // the same digits without dashes, or spaced, take the long way
      expect(outcome(s)).toEqual(outcome(s.replace(/-/g, '')))
      const at = k % 18
      const changed = s.slice(0, at) + chars[k % chars.length] + s.slice(at + 1)
      expect(outcome(changed)).toEqual(outcome(` ${changed} `))
    }
  })
})

describe('the serial as DERIVATION.md writes it', () => {
  it('gives the Damm table the code uses, and its example', () => {
    const text = readFileSync(join(__dirname, 'DERIVATION.md'), 'utf8')
    const rows = [...text.matchAll(/^k = (\d): +((?:\d ){9}\d)$/gm)].map((m) => m[2].trim().split(' ').map(Number))
    expect(rows).toHaveLength(10)
    // row 0 is a permutation: T[k][d] is the check digit of the two digits a, d with T[0][a] = k
    for (let k = 0; k < 10; k++)
      for (let d = 0; d < 10; d++) expect(dammCheckDigit(`${rows[0].indexOf(k)}${d}`), `T[${k}][${d}]`).toBe(rows[k][d])
    expect(text).toContain('`0001-001-0000000-7`')
    expect(formatSerial({ emission: 1, block: 1, unit: 0 })).toBe('0001-001-0000000-7')
  })
})
