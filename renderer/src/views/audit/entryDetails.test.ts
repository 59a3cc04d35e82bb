import { describe, expect, it } from 'vitest'
import { readableDetails } from './entryDetails'

describe('an audit entry’s details', () => {
  it('are indented JSON, keys in the order written, nothing cut', () => {
    const long = 'x'.repeat(500)
    const text = readableDetails(JSON.stringify({ emission: 2, blocks: [1, 2], note: long }))
    expect(text).toBe(`{\n  "emission": 2,\n  "blocks": [\n    1,\n    2\n  ],\n  "note": "${long}"\n}`)
  })

  it('are shown as written when they are not JSON, and empty when there are none', () => {
    expect(readableDetails('written by hand {')).toBe('written by hand {')
    expect(readableDetails('  ')).toBe('')
  })
})
