import { describe, expect, it } from 'vitest'
import { dammCheckDigit, formatSerial } from '../../../../game-core/serial'
import { emissionNumberOf, looksLikeSerial, readSearchText } from './searchText'

const serial = formatSerial({ emission: 1, block: 1, unit: 4242 })
const badCheck = serial.slice(0, -1) + String((Number(serial.slice(-1)) + 1) % 10)

describe('reading the search text', () => {
  it('reads a well-formed serial, with or without dashes and spaces, as the ledger writes it', () => {
    expect(readSearchText(`  ${serial} `)).toMatchObject({ text: serial, serial, serialProblem: null })
    expect(readSearchText(serial.replace(/-/g, '')).serial).toBe(serial)
    expect(readSearchText(serial.replace(/-/g, ' ')).serial).toBe(serial)
    // still a text for the other lookups: a player id or a reference could be written so
    expect(readSearchText(serial)).toMatchObject({ player: serial, reference: serial, emissionNumber: null })
  })

  it('explains a serial mistyped instead of taking it for one', () => {
    expect(readSearchText(badCheck)).toMatchObject({
      serial: null,
      serialProblem: { key: 'serial.SERIAL_CHECK_DIGIT' },
    })
    expect(readSearchText('0001-001-00042').serialProblem).toMatchObject({
      key: 'serial.SERIAL_LENGTH_SHORT',
      params: { length: 12 },
    })
    const blockZero = `0001-000-0004242-${dammCheckDigit('00010000004242')}`
    expect(readSearchText(blockZero).serialProblem).toMatchObject({
      key: 'serial.SERIAL_RANGE',
      params: { field: 'block' },
    })
  })

  it('says nothing of serials for texts that are not one', () => {
    for (const text of ['P0001234', 'VIR-2026-0001', '12', '123456', 'E2E-CLAIMS', '2026-0001'])
      expect(readSearchText(text)).toMatchObject({ serial: null, serialProblem: null })
    expect(looksLikeSerial('12345678901234')).toBe(true)
    expect(looksLikeSerial('1234567890123')).toBe(false)
    expect(looksLikeSerial('0001-002-')).toBe(true)
    expect(looksLikeSerial('VIR-0001-002-0000001-1')).toBe(false)
  })

  it('reads an emission number from 1 to 9999, leading zeros or not', () => {
    expect(emissionNumberOf('12')).toBe(12)
    expect(emissionNumberOf('0012')).toBe(12)
    expect(emissionNumberOf('9999')).toBe(9999)
    for (const text of ['0', '0000', '10000', '12a', '-1', '1.5', 'E12', ''])
      expect(emissionNumberOf(text), text).toBeNull()
    expect(readSearchText(' 7 ')).toMatchObject({ emissionNumber: 7, code: '7', player: '7', reference: null })
  })

  it('reads the text as a code, a player id and a reference within the lengths the contract takes', () => {
    expect(readSearchText('ab')).toMatchObject({ code: 'ab', player: 'ab', reference: null })
    expect(readSearchText('abc')).toMatchObject({ code: 'abc', player: 'abc', reference: 'abc' })
    const long = 'x'.repeat(40)
    expect(readSearchText(long)).toMatchObject({ code: null, player: long, reference: long })
    expect(readSearchText('y'.repeat(65))).toMatchObject({ code: null, player: null, reference: null })
  })

  it('reads nothing in an empty text', () => {
    expect(readSearchText('   ')).toEqual({
      text: '',
      serial: null,
      serialProblem: null,
      emissionNumber: null,
      code: null,
      player: null,
      reference: null,
    })
  })
})
