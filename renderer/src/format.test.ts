import { describe, expect, it } from 'vitest'
import {
  blockNo,
  emissionNo,
  formatClock,
  formatDay,
  formatInteger,
  formatMoney,
  formatOdds,
  formatPercent,
  percentDecimals,
  shortHash,
} from './format'

// Intl puts narrow no-break spaces in French numbers: compare with plain spaces.
const plain = (s: string) => s.replace(/[\u00a0\u202f]/g, ' ')

describe('format', () => {
  it('prints money French style by default, from cents', () => {
    expect(plain(formatMoney(50_000_000))).toBe('500 000 €')
    expect(plain(formatMoney(500))).toBe('5 €')
    expect(plain(formatMoney(1250))).toBe('12,50 €')
    expect(plain(formatMoney(2_885_750_000))).toBe('28 857 500 €')
  })
  it('prints money in English when asked', () => {
    expect(formatMoney(50_000_000, 'en')).toBe('€500,000')
    expect(formatMoney(1250, 'en')).toBe('€12.50')
  })
  it('prints counts, percentages and odds', () => {
    expect(plain(formatInteger(8_016_000))).toBe('8 016 000')
    expect(formatInteger(8_016_000, 'en')).toBe('8,016,000')
    expect(plain(formatPercent(0.7199975, 'fr', 5))).toBe('71,99975 %')
    expect(formatPercent(0.7199975, 'en', 2)).toBe('72%')
    expect(formatOdds(3.8998, 'fr')).toBe('1 sur 3,90')
    expect(formatOdds(3.8998, 'en')).toBe('1 in 3.90')
    expect(plain(formatOdds(4_008_000, 'fr'))).toBe('1 sur 4 008 000')
  })
  it('prints French percentages with a narrow no-break space before the sign, as French typography does', () => {
    expect(formatPercent(0.025)).toBe('2,5\u202f%')
    expect(formatPercent(0.7199975, 'fr', 5)).toBe('71,99975\u202f%')
    expect(formatPercent(1, 'fr')).toBe('100\u202f%')
    expect(formatPercent(12.5, 'fr', 0)).toBe('1\u202f250\u202f%')
    expect(formatPercent(0.025, 'en')).toBe('2.5%')
  })
  it('prints a percentage with as many decimals as another when asked (a realised payout beside the theoretical one)', () => {
    expect(percentDecimals(0.7199975)).toBe(5)
    expect(percentDecimals(0.69)).toBe(0)
    expect(percentDecimals(0.025)).toBe(1)
    expect(percentDecimals(1 / 3)).toBe(5)
    expect(plain(formatPercent(0.69, 'fr', 5, 5))).toBe('69,00000 %')
    expect(plain(formatPercent(0.6912345678, 'fr', 5, 5))).toBe('69,12346 %')
    expect(formatPercent(0.69, 'en', 2, 2)).toBe('69.00%')
  })
  it('reads a calendar day without shifting it across time zones', () => {
    expect(formatDay('2024-03-01', 'en')).toBe('1 Mar 2024')
    expect(formatDay(null)).toBe('—')
  })
  it('prints replay clocks and short hashes', () => {
    expect(formatClock(0)).toBe('0:00.0')
    expect(formatClock(61_250)).toBe('1:01.3')
    expect(shortHash('a'.repeat(64), 4)).toBe('aaaa…aaaa')
    expect(shortHash(null)).toBe('—')
  })
  it('prints emission and block numbers as serials do', () => {
    expect(emissionNo(7)).toBe('0007')
    expect(blockNo(12)).toBe('012')
  })
})
