import { describe, expect, it } from 'vitest'
import { parseCsv } from '../../test/support/parse-csv'
import { toCsv } from './csv'

describe('the CSV files the app writes', () => {
  it('neutralise a text cell that a spreadsheet would run as a formula, with a single quote', () => {
    const cells = ['=1+1', '+33 1 23', '-2+3', '@SUM(A1)', '\tHELLO', '\rHELLO', '\uff1dCMD()', "=cmd|' /C calc'!A0"]
    const [, row] = parseCsv(toCsv(cells.map((_, i) => `c${i}`), [cells]))
    expect(row).toEqual(cells.map((c) => `'${c}`))
  })

  it('leave other text as it is, and quote what must be (commas, quotes, line breaks)', () => {
    const cells = ['ada', '2026-03-02T09:00:00.000Z', 'a, b', 'say "hi"', 'two\nlines', 'x=1', ' =1', '']
    const text = toCsv(cells.map((_, i) => `c${i}`), [cells])
    expect(parseCsv(text)[1]).toEqual(cells)
    expect(text.split('\n')[1]).toBe('ada,2026-03-02T09:00:00.000Z,"a, b","say ""hi""","two')
  })

  it('write numbers as numbers, a negative one included, while a text that looks negative is neutralised', () => {
    expect(toCsv(['delta', 'text', 'zero', 'none'], [[-12, '-12', 0, null]])).toBe("delta,text,zero,none\n-12,'-12,0,\n")
  })

  it('write the header line even with no rows, every line ended by a line feed', () => {
    expect(toCsv(['a', 'b'], [])).toBe('a,b\n')
    expect(toCsv(['a', 'b'], [[1, 2], [3, 4]])).toBe('a,b\n1,2\n3,4\n')
  })
})
