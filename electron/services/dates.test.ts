import { isUtf8 } from 'node:buffer'
import { describe, expect, it } from 'vitest'
import { daysInMonth, isIsoDay, isoDateTimeMillis, isoDayMillis, isoDayProblem } from '../contract/dates'
import { firstNonUtf8, utf8Stop } from '../contract/utf8'
import { isoMillisAt, toMillis } from './common'

const pad = (n: number, w = 2) => String(n).padStart(w, '0')

describe('the one date reader', () => {
  it("knows every month's length, as the Gregorian calendar (Date.UTC) has it, over 400 years", () => {
    for (let year = 1900; year < 2300; year++) {
      for (let month = 1; month <= 12; month++) {
        const expected = new Date(Date.UTC(year, month, 0)).getUTCDate()
        expect(daysInMonth(year, month)).toBe(expected)
      }
    }
    expect(daysInMonth(2026, 0)).toBe(0)
    expect(daysInMonth(2026, 13)).toBe(0)
  })

  it('reads a day that exists as Date.parse does, and refuses one that does not (which Date.parse rolls over)', () => {
    for (let month = 1; month <= 12; month++) {
      for (let day = 1; day <= 31; day++) {
        for (const year of [2024, 2025, 2100, 2000]) {
          const text = `${year}-${pad(month)}-${pad(day)}`
          const exists = day <= daysInMonth(year, month)
          expect(isoDayMillis(text), text).toBe(exists ? Date.UTC(year, month - 1, day) : NaN)
          expect(isIsoDay(text)).toBe(exists)
          expect(isoDayProblem(text)).toBe(exists ? null : 'nonexistent')
        }
      }
    }
    expect(Date.parse('2026-02-30')).not.toBeNaN()
    for (const text of [
      '2026-2-3',
      '2026-02-3',
      '20260203',
      '2026-02-03T00:00:00Z',
      ' 2026-02-03',
      '2026-02-03 ',
      '',
      'yesterday',
    ]) {
      expect(isoDayMillis(text), text).toBeNaN()
      expect(isoDayProblem(text)).toBe('shape')
    }
    for (const text of ['2026-00-10', '2026-13-01', '2026-02-00', '2026-04-31', '2025-02-29', '1900-02-29'])
      expect(isoDayProblem(text), text).toBe('nonexistent')
    expect(isoDayProblem('2000-02-29')).toBeNull()
  })

  it('reads a date-time with a zone as Date.parse does, and refuses a day, an hour, a minute, a second or a zone that does not exist', () => {
    for (const text of [
      '2025-03-01T12:30:00Z',
      '2025-03-01T12:30:00.123Z',
      '2025-03-01T12:30Z',
      '2025-03-01T23:59:59.999999999Z',
      '2025-03-01T12:30:00+01:00',
      '2025-03-01T00:00:00-23:59',
      '2024-02-29T00:00:00Z',
    ]) {
      expect(isoDateTimeMillis(text), text).toBe(Date.parse(text))
      expect(toMillis(text)).toBe(Date.parse(text))
    }
    for (const text of [
      '2026-02-30T10:00:00Z',
      '2025-02-29T10:00:00Z',
      '2025-04-31T00:00:00Z',
      '2025-03-01T24:00:00Z',
      '2025-03-01T12:60:00Z',
      '2025-03-01T12:00:60Z',
      '2025-03-01T12:00:00+24:00',
      '2025-03-01T12:00:00+01:60',
      '2025-03-01T12:00:00',
      '2025-03-01 12:00:00Z',
      '2025-03-01',
    ]) {
      expect(isoDateTimeMillis(text), text).toBeNaN()
      expect(toMillis(text), text).toBeNaN()
    }
  })

  it("reads a feed's times from its bytes as from its text, days that do not exist included", () => {
    const bytes = (s: string) => Buffer.from(`"${s}"`, 'latin1')
    for (let month = 1; month <= 12; month++) {
      for (let day = 1; day <= 31; day++) {
        for (const year of [2025, 2028]) {
          for (const time of ['T00:00:00Z', 'T23:59:59.999Z']) {
            const text = `${year}-${pad(month)}-${pad(day)}${time}`
            const at = isoMillisAt(bytes(text), 1, text.length + 1)
            expect(at, text).toBe(toMillis(text))
            expect(Number.isNaN(at), text).toBe(day > daysInMonth(year, month))
          }
        }
      }
    }
  })
})

describe('where a file stops being UTF-8', () => {
  it('is where node finds it is not, on random damage', () => {
    let seed = 7
    const rnd = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32
    const text = Buffer.from('{"player":"Zoé Ωμέγα 李 😀"}\n'.repeat(4))
    for (let k = 0; k < 5000; k++) {
      const b = Buffer.from(text)
      for (let j = 0; j < 1 + Math.floor(rnd() * 3); j++) b[Math.floor(rnd() * b.length)] = Math.floor(rnd() * 256)
      const stop = firstNonUtf8(b)
      expect(stop < 0).toBe(isUtf8(b))
      // the bytes before it are UTF-8, and the sequence it starts is not
      if (stop >= 0) {
        expect(isUtf8(b.subarray(0, stop))).toBe(true)
        expect(isUtf8(b.subarray(0, Math.min(b.length, stop + 4)))).toBe(false)
      }
    }
  })

  it('names the line and the byte in it, counting lines by their line feeds and line 1 after a byte order mark', () => {
    expect(utf8Stop(Buffer.from('ok\n'))).toBeNull()
    expect(utf8Stop(Buffer.from([0x61, 0x0a, 0x62, 0x63, 0xff]))).toEqual({ offset: 4, line: 2, byte: 3 })
    expect(utf8Stop(Buffer.from([0xef, 0xbb, 0xbf, 0x61, 0xc3]))).toEqual({ offset: 4, line: 1, byte: 2 })
    expect(utf8Stop(Buffer.from([0x0d, 0x0a, 0xe2, 0x82]))).toEqual({ offset: 2, line: 2, byte: 1 })
  })
})
