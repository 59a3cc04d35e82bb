import { describe, expect, it } from 'vitest'
import { formatOdds, formatPercent } from '../../format'
import { probabilityText } from './probability'

const fr = { pct: (x: number, d?: number) => formatPercent(x, 'fr', d), odds: (n: number) => formatOdds(n, 'fr') }
const norm = (s: string) => s.replace(/[\u00a0\u202f]/g, ' ')

describe('a claimant’s chance, as a person reads it', () => {
  it('is a percentage down to one in a thousand', () => {
    expect(norm(probabilityText(0.3712, fr))).toBe('37 %')
    expect(norm(probabilityText(0.0234, fr))).toBe('2,3 %')
    expect(norm(probabilityText(0.001, fr))).toBe('0,1 %')
    expect(norm(probabilityText(1, fr))).toBe('100 %')
    expect(norm(probabilityText(0, fr))).toBe('0 %')
  })

  it('is odds below that', () => {
    expect(norm(probabilityText(4e-7, fr))).toBe('1 sur 2 500 000')
    expect(norm(probabilityText(0.0005, fr))).toBe('1 sur 2 000')
  })
})
