import { describe, expect, it } from 'vitest'
import { createAppI18n } from '../../i18n'
import { chanceText, expectedText, oneInText, rawProbability } from './probability'

const say = (p: number, locale: 'fr' | 'en') =>
  chanceText(p, locale, createAppI18n(locale).global.t).replace(/[\u00a0\u202f]/g, ' ')

describe('a probability in words', () => {
  it('says one chance in so many, in words from a million', () => {
    expect(say(3.2e-9, 'fr')).toBe('1 chance sur 310 millions')
    expect(say(3.2e-9, 'en')).toBe('1 in 310 million')
    expect(say(1e-9, 'fr')).toBe('1 chance sur 1 milliard')
    expect(say(1 / 1.5e9, 'en')).toBe('1 in 1.5 billion')
    expect(say(1 / 3.1e12, 'en')).toBe('1 in 3.1 trillion')
  })

  it('groups smaller numbers to two significant digits', () => {
    expect(say(1 / 12_345, 'fr')).toBe('1 chance sur 12 000')
    expect(say(1 / 1_234, 'en')).toBe('1 in 1,200')
    expect(say(0.04, 'fr')).toBe('1 chance sur 25')
    expect(say(1 / 999_999, 'en')).toBe('1 in 1,000,000')
  })

  it('writes a power of ten beyond a thousand million million', () => {
    expect(say(1 / 3.14e15, 'fr')).toBe('1 chance sur 3,1 × 10¹⁵')
    expect(say(1e-40, 'en')).toBe('1 in 1 × 10⁴⁰')
    expect(oneInText(9.97e20, 'en')).toBe('1 × 10²¹')
  })

  it('says a percentage from one chance in ten, and nil for a probability too small for a number', () => {
    expect(say(0.39, 'fr')).toBe('39 %')
    expect(say(1, 'en')).toBe('100%')
    expect(say(0, 'fr')).toMatch(/nulle/)
    expect(say(0, 'en')).toMatch(/nil/)
  })

  it('keeps the raw value for a tooltip', () => {
    expect(rawProbability(3.2e-9)).toBe('P = 3.20e-9')
    expect(rawProbability(0)).toBe('P = 0')
  })
})

describe('expected claims', () => {
  it('keep two significant digits below one, one decimal above', () => {
    expect(expectedText(0.04, 'fr')).toBe('0,04')
    expect(expectedText(0.0123, 'en')).toBe('0.012')
    expect(expectedText(4.2e-6, 'fr')).toBe('0,0000042')
    expect(expectedText(12.345, 'en')).toBe('12.3')
    expect(expectedText(0, 'en')).toBe('0')
  })
})
