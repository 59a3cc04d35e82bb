import { describe, expect, it } from 'vitest'
import { groupReasons, MAX_REASON_GROUPS, MAX_REASON_LINES, MAX_REASON_TEXT, reasonTemplate } from './import-reasons'
import type { ImportProblem } from './types'

const p = (code: ImportProblem['code'], params: ImportProblem['params'] = {}, text?: string) => ({ code, params, text })

describe('grouping a refusal’s reasons', () => {
  it('makes one group of the reasons that say the same thing, however many lines and events give it', () => {
    const events = Array.from({ length: 14 }, (_, i) => p('EVENT_GESTURE', { event: i + 1, gesture: '"swipe"' }))
    const r = groupReasons([
      [9, [p('STAKE', { expectedCents: 500, gotCents: 400 }, 'stake 400')]],
      [3, events],
      [4, [p('STAKE', { expectedCents: 500, gotCents: 250 }, 'stake 250')]],
    ])
    expect(r.groups.map((g) => [g.code, g.occurrences, g.lineCount, g.lines])).toEqual([
      ['EVENT_GESTURE', 14, 1, [3]],
      ['STAKE', 2, 2, [4, 9]],
    ])
    // the first occurrence, in file order, speaks for its group
    expect(r.groups[1]).toMatchObject({ params: { gotCents: 250 }, text: 'stake 250' })
    expect(r.groups[0].params).toEqual({ event: 1, gesture: '"swipe"' })
    expect(r).toMatchObject({ groupsLeft: 0, reasonsLeft: 0, complete: true })
  })

  it('keeps apart the reasons about another field, emission, expected kind or stake', () => {
    const keys = [
      p('FIELD_MISSING', { field: 'player' }),
      p('FIELD_MISSING', { field: 'saleId' }),
      p('NOT_OPEN', { emission: 1, status: 'closed' }),
      p('NOT_OPEN', { emission: 2, status: 'closed' }),
      p('FIELD_TYPE', { field: 'stakeCents', expected: 'number', got: '"x"' }),
      p('FIELD_TYPE', { field: 'stakeCents', expected: 'number', got: 'true' }),
      p('JSON', { detail: 'Unexpected end', column: 12, end: 1 }),
      p('JSON', { detail: 'Unexpected token' }),
    ].map(reasonTemplate)
    expect(new Set(keys).size).toBe(7)
    expect(keys[4]).toBe(keys[5])
  })

  it(`keeps at most ${MAX_REASON_GROUPS} groups and ${MAX_REASON_LINES} lines a group, and counts the rest`, () => {
    const lines = Array.from(
      { length: 30 },
      (_, i) => [i + 1, [p('FIELD_UNKNOWN', { fields: `"x${i % 25}"` })]] as const,
    )
    const r = groupReasons(lines)
    expect(r.groups).toHaveLength(MAX_REASON_GROUPS)
    expect(r.groups[0]).toMatchObject({ occurrences: 2, lineCount: 2, lines: [1, 26] })
    expect(r).toMatchObject({ groupsLeft: 5, reasonsLeft: 5 })
    const many = groupReasons(Array.from({ length: 50 }, (_, i) => [i + 1, [p('STAKE')]] as const))
    expect(many.groups[0]).toMatchObject({ occurrences: 50, lineCount: 50, lines: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] })
  })

  it(`cuts a long value or sentence to ${MAX_REASON_TEXT} characters`, () => {
    const long = 'x'.repeat(5000)
    const [g] = groupReasons([[1, [p('SHAPE', { field: 'line', detail: long }, long)]]]).groups
    expect(g.params.detail).toHaveLength(MAX_REASON_TEXT)
    expect(String(g.params.detail).endsWith('…')).toBe(true)
    expect(g.text).toHaveLength(MAX_REASON_TEXT)
  })
})
