import { describe, expect, it } from 'vitest'
import { claimsArgs, isFiltered, readClaimsQuery, writeClaimsQuery } from './filters'

describe('the claims list’s filters in the address', () => {
  it('read back what they wrote', () => {
    const f = { status: 'verified' as const, emission: 3, player: 'p-17' }
    expect(readClaimsQuery(writeClaimsQuery(f) as Record<string, string>)).toEqual(f)
    expect(claimsArgs(f)).toEqual(f)
    expect(isFiltered(f)).toBe(true)
  })

  it('leave out what is not a filter', () => {
    const f = readClaimsQuery({ status: 'won', emission: '0', player: '  ' })
    expect(f).toEqual({ status: null, emission: null, player: null })
    expect(writeClaimsQuery(f)).toEqual({})
    expect(claimsArgs(f)).toEqual({})
    expect(isFiltered(f)).toBe(false)
    expect(readClaimsQuery({ status: ['paid', 'pending'], emission: '12.5', player: 'x'.repeat(65) })).toEqual({
      status: 'paid',
      emission: null,
      player: null,
    })
  })
})
