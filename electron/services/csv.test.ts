import { describe, expect, it } from 'vitest'
import { parseCsv } from '../../test/support/parse-csv'
import { version } from '../../package.json'
import { euros, toCsv, writeCsv, type CsvTable } from './csv'

describe('the CSV files the app writes', () => {
  it('neutralise a text cell that a spreadsheet would run as a formula, with a single quote', () => {
    const cells = ['=1+1', '+33 1 23', '-2+3', '@SUM(A1)', '\tHELLO', '\rHELLO', '\uff1dCMD()', "=cmd|' /C calc'!A0"]
    const [, row] = parseCsv(
      toCsv(
        cells.map((_, i) => `c${i}`),
        [cells],
      ),
    )
    expect(row).toEqual(cells.map((c) => `'${c}`))
  })

  it('leave other text as it is, and quote what must be (commas, quotes, line breaks)', () => {
    const cells = ['ada', '2026-03-02T09:00:00.000Z', 'a, b', 'say "hi"', 'two\nlines', 'x=1', ' =1', '']
    const text = toCsv(
      cells.map((_, i) => `c${i}`),
      [cells],
    )
    expect(parseCsv(text)[1]).toEqual(cells)
    expect(text.split('\n')[1]).toBe('ada,2026-03-02T09:00:00.000Z,"a, b","say ""hi""","two')
  })

  it('write numbers as numbers, a negative one included, while a text that looks negative is neutralised', () => {
    expect(toCsv(['delta', 'text', 'zero', 'none'], [[-12, '-12', 0, null]])).toBe(
      "delta,text,zero,none\n-12,'-12,0,\n",
    )
  })

  it('write the header line even with no rows, every line ended by a line feed', () => {
    expect(toCsv(['a', 'b'], [])).toBe('a,b\n')
    expect(
      toCsv(
        ['a', 'b'],
        [
          [1, 2],
          [3, 4],
        ],
      ),
    ).toBe('a,b\n1,2\n3,4\n')
  })
})

describe('the two forms of an export', () => {
  const table: CsvTable = {
    columns: [
      { id: 'day', kind: 'day' },
      { id: 'at', kind: 'time' },
      { id: 'sales_cents', kind: 'cents' },
      { id: 'realised_payout', kind: 'share' },
      { id: 'units_sold', kind: 'int' },
      { id: 'demo_emission', kind: 'yes-no' },
      { id: 'actor', kind: 'text' },
    ],
    rows: [
      ['2026-03-01', '2026-03-02T09:00:05.000Z', 123_450, 0.7199975, 1_234_567, true, 'ada; lovelace'],
      ['2026-03-02', '2026-07-14T22:30:00.000Z', -5, 0, 0, false, '=1+1'],
    ],
    about: {
      asOf: '2026-03-20T15:00:00.000Z',
      filters: [
        { id: 'emission', kind: 'int', value: 3 },
        { id: 'from', kind: 'day', value: '2026-03-01' },
        { id: 'to', kind: 'day', value: null },
      ],
    },
  }
  const paris = { timeZone: 'Europe/Paris' }

  it("office, in French: a byte-order mark, ';' between cells, euros and shares with a decimal comma, local days and times, French headers", () => {
    const text = writeCsv(table, { form: 'office', locale: 'fr', ...paris })
    expect(text.startsWith('\ufeff# ')).toBe(true)
    const [about, head, ...rows] = parseCsv(text.slice(1), ';')
    expect(about).toEqual([
      `# Logiciel\u00a0: Carats back-office ${version}`,
      'Données au\u00a0: 20/03/2026 16:00:00 (Europe/Paris)',
      'Émission\u00a0: 3',
      'Du\u00a0: 01/03/2026',
      'Au\u00a0: —',
    ])
    expect(head).toEqual([
      'Jour',
      'Date et heure',
      'Ventes (€)',
      'Taux de retour réalisé (%)',
      'Unités vendues',
      'Démonstration',
      'Utilisateur',
    ])
    expect(rows[0]).toEqual([
      '01/03/2026',
      '02/03/2026 10:00:05',
      '1234,50',
      '71,99975',
      '1234567',
      'oui',
      'ada; lovelace',
    ])
    // summer time in Paris; a negative amount stays a number, a formula is neutralised
    expect(rows[1]).toEqual(['02/03/2026', '15/07/2026 00:30:00', '-0,05', '0', '0', 'non', "'=1+1"])
    expect(text.split('\n')[2]).toBe('01/03/2026;02/03/2026 10:00:05;1234,50;71,99975;1234567;oui;"ada; lovelace"')
  })

  it("office, in English: ',' between cells, decimal points, English headers, still a byte-order mark", () => {
    const text = writeCsv(table, { form: 'office', locale: 'en', ...paris })
    expect(text.charCodeAt(0)).toBe(0xfeff)
    const [about, head, row] = parseCsv(text.slice(1))
    expect(about[0]).toBe(`# Software: Carats back-office ${version}`)
    expect(about[1]).toBe('As of: 20/03/2026 16:00:00 (Europe/Paris)')
    expect(head).toEqual([
      'Day',
      'Date and time',
      'Sales (€)',
      'Realised payout (%)',
      'Units sold',
      'Demonstration',
      'User',
    ])
    expect(row).toEqual(['01/03/2026', '02/03/2026 10:00:05', '1234.50', '71.99975', '1234567', 'yes', 'ada; lovelace'])
  })

  it('machine: no byte-order mark, commas, cents, fractions, ISO times and days as held, English ids', () => {
    const text = writeCsv(table, { form: 'machine', locale: 'fr', ...paris })
    expect(text.charCodeAt(0)).toBe('#'.charCodeAt(0))
    const [about, head, ...rows] = parseCsv(text)
    expect(about).toEqual([
      `# software=carats-back-office ${version}`,
      'as_of=2026-03-20T15:00:00.000Z',
      'emission=3',
      'from=2026-03-01',
      'to=',
    ])
    expect(head).toEqual(['day', 'at', 'sales_cents', 'realised_payout', 'units_sold', 'demo_emission', 'actor'])
    expect(rows).toEqual([
      ['2026-03-01', '2026-03-02T09:00:05.000Z', '123450', '0.7199975', '1234567', 'yes', 'ada; lovelace'],
      ['2026-03-02', '2026-07-14T22:30:00.000Z', '-5', '0', '0', 'no', "'=1+1"],
    ])
  })

  it('say "no activity" on the first line when no record matched, under the header line all the same', () => {
    const empty = { ...table, rows: [] }
    const [about, head, ...rest] = parseCsv(writeCsv(empty, { form: 'office', locale: 'fr' }).slice(1), ';')
    expect(about.at(-1)).toBe('Aucune activité')
    expect(head[0]).toBe('Jour')
    expect(rest).toEqual([])
    expect(parseCsv(writeCsv(empty, { form: 'office', locale: 'en' }).slice(1))[0].at(-1)).toBe('No activity')
    expect(parseCsv(writeCsv(empty, { form: 'machine', locale: 'en' }))[0].at(-1)).toBe('no_activity')
  })

  it('keep the first line one line, whatever a filter holds', () => {
    const odd = {
      ...table,
      about: {
        ...table.about,
        filters: [{ id: 'actor' as const, kind: 'text' as const, value: 'two\nlines, "quoted"' }],
      },
    }
    const text = writeCsv(odd, { form: 'machine', locale: 'en' })
    expect(text.split('\n')[0]).toBe(
      `# software=carats-back-office ${version},as_of=2026-03-20T15:00:00.000Z,"actor=two lines, ""quoted"""`,
    )
  })

  it('write euros from cents exactly, by integer arithmetic', () => {
    expect([0, 5, 99, 100, 123_450, -123_450, 2_885_750_000].map(euros)).toEqual([
      '0.00',
      '0.05',
      '0.99',
      '1.00',
      '1234.50',
      '-1234.50',
      '28857500.00',
    ])
  })
})
