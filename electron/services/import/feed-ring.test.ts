import { describe, expect, it } from 'vitest'
import { canonicalSerialAt, formatSerial, parseSerial } from '../../../game-core/serial'
import { isoMillisAt, toMillis } from '../common'
import { ByteTexts } from './feed-ring'

const bytes = (s: string) => Buffer.from(s, 'latin1')

describe("the feed reader's own readings, as the importer's careful ones", () => {
  it('numbers texts in order of first sight by their bytes, past many times its first room', () => {
    const words = Array.from({ length: 20_000 }, (_, i) => `F-${i % 15_000}`)
    const feed = bytes(words.join(' '))
    const texts = new ByteTexts(feed, 16)
    const seen = new Map<string, number>()
    let at = 0
    for (const w of words) {
      const n = texts.find(at, at + w.length)
      const first = seen.get(w)
      if (first === undefined) {
        expect(n).toBe(-1 - seen.size)
        seen.set(w, seen.size)
      } else expect(n).toBe(first)
      at += w.length + 1
    }
    expect(texts.size).toBe(15_000)
  })

  it('reads a date-time as toMillis does, every day of every month, and defers to it for any other form', () => {
    const check = (s: string) => expect(isoMillisAt(bytes(`"${s}"`), 1, s.length + 1), s).toBe(toMillis(s))
    for (let month = 1; month <= 12; month++) {
      for (let day = 1; day <= 31; day++) {
        const date = `2024-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`
        check(`${date}T23:59:59.999Z`)
        check(`${date}T00:00:00Z`)
      }
    }
    for (const s of [
      '2025-02-29T12:00:00Z',
      '2025-01-01T24:00:00Z',
      '2025-01-01T23:59:60Z',
      '2025-01-01T10:00:00.1234Z',
      '2025-01-01T10:00:00.5Z',
      '2025-01-01T10:00Z',
      '2025-01-01T10:00:00+02:00',
      '0099-01-01T00:00:00Z',
      '2025-13-01T00:00:00Z',
      '2025-00-10T00:00:00Z',
      '2025-01-32T00:00:00Z',
      '2025-01-01 10:00:00Z',
      '2025-01-01T10:00:00',
      'x025-01-01T10:00:00Z',
    ])
      check(s)
  })

  it('reads a serial written as formatSerial writes it as parseSerial does, and leaves any other to parseSerial', () => {
    for (const serial of [
      formatSerial({ emission: 12, block: 3, unit: 4_567 }),
      formatSerial({ emission: 9_999, block: 999, unit: 8_015_999 }),
    ]) {
      expect(canonicalSerialAt(bytes(serial), 0, 18)).toEqual(parseSerial(serial))
    }
    const serial = formatSerial({ emission: 12, block: 3, unit: 4_567 })
    const swapped = serial.slice(0, 13) + serial[14] + serial[13] + serial.slice(15)
    for (const other of [
      swapped,
      serial.replace(/-/g, ' '),
      `${serial} `,
      serial.replace(/-/g, ''),
      '0000-001-0000001-0',
    ])
      expect(canonicalSerialAt(bytes(other), 0, other.length), other).toBeNull()
    // the block's size bounds the unit, as for parseSerial
    expect(
      canonicalSerialAt(bytes(formatSerial({ emission: 1, block: 1, unit: 9_999 }, 10_000)), 0, 18, 10_000),
    ).toEqual({ emission: 1, block: 1, unit: 9_999 })
    expect(canonicalSerialAt(bytes(formatSerial({ emission: 1, block: 1, unit: 10_000 })), 0, 18, 10_000)).toBeNull()
  })
})
