import { describe, expect, it } from 'vitest'
import { isFiltered, liabilityArgs, readLiabilityQuery, reportUnder, writeLiabilityQuery } from './filters'

describe('the liability’s filters in the address', () => {
  it('reads an emission, a day and the demonstration choice, and writes them back', () => {
    const f = readLiabilityQuery({ emission: '2', asOf: '2026-03-31', demo: '1' })
    expect(f).toEqual({ emission: 2, asOf: '2026-03-31', includeDemo: true })
    expect(writeLiabilityQuery(f)).toEqual({ emission: '2', asOf: '2026-03-31', demo: '1' })
    expect(isFiltered(f)).toBe(true)
  })

  it('leaves out what is not a filter: an emission 0, a day that does not exist, a word', () => {
    const f = readLiabilityQuery({ emission: '0', asOf: '2026-02-30', demo: 'yes' })
    expect(f).toEqual({ emission: null, asOf: null, includeDemo: false })
    expect(readLiabilityQuery({ emission: 'x', asOf: '31/03/2026' })).toEqual(f)
    expect(writeLiabilityQuery(f)).toEqual({})
    expect(isFiltered(f)).toBe(false)
  })

  it('asks the report for the filters set, and nothing for those not set (now, every emission)', () => {
    expect(liabilityArgs({ emission: null, asOf: null, includeDemo: false })).toEqual({ includeDemo: false })
    expect(liabilityArgs({ emission: 4, asOf: '2026-01-15', includeDemo: true })).toEqual({
      includeDemo: true,
      emission: 4,
      asOf: '2026-01-15',
    })
  })

  it('tells whether a report answers the filters shown', () => {
    const f = { emission: 1, asOf: '2026-01-15', includeDemo: false }
    expect(reportUnder({ emission: 1, day: '2026-01-15', includeDemo: false }, f)).toBe(true)
    expect(reportUnder({ emission: 1, day: null, includeDemo: false }, f)).toBe(false)
    expect(reportUnder({ emission: null, day: '2026-01-15', includeDemo: false }, f)).toBe(false)
  })
})
