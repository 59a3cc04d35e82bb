import { describe, expect, it } from 'vitest'
import { createAppI18n } from '../../i18n'
import { formatDateTime, formatDay, formatInteger, formatMoney } from '../../format'
import type { ImportLineError, ImportReasonGroup, ImportRecord } from '../../../../electron/contract'
import { claimsText, groupCount, groupLines, groupText, hasReasons, lineReasons } from './importReasons'
import { leftovers } from './importProblems.fixtures'

function speaker(locale: 'fr' | 'en') {
  const i18n = createAppI18n(locale)
  const t = (k: string, p?: Record<string, unknown>, n?: number) =>
    n === undefined ? i18n.global.t(k, p ?? {}) : i18n.global.t(k, p ?? {}, n)
  const te = (k: string) => i18n.global.te(k)
  const int = (n: number) => formatInteger(n, locale)
  const fmt = {
    money: (c: number) => formatMoney(c, locale),
    int,
    dateTime: (s: string) => formatDateTime(s, locale),
    day: (d: string) => formatDay(d, locale),
  }
  const plain = (s: string) => s.replace(/[\u00a0\u202f]/g, ' ')
  return {
    line: (l: ImportLineError) => plain(lineReasons(l, t, te, fmt)),
    group: (g: ImportReasonGroup) => ({
      count: groupCount(g, t, int),
      lines: groupLines(g, t, int),
      text: plain(groupText(g, t, te, fmt)),
    }),
    claims: (r: ImportRecord) => claimsText(r, t, int),
  }
}

const drags: ImportLineError = {
  line: 2,
  reason: '…',
  problems: [
    ...Array.from({ length: 14 }, (_, i) => ({ code: 'EVENT_AUTO_DRAG' as const, params: { event: i + 1 } })),
    { code: 'STAKE', params: { expectedCents: 500, gotCents: 400 } },
  ],
}

const group = (over: Partial<ImportReasonGroup>): ImportReasonGroup => ({
  code: 'STAKE',
  params: { expectedCents: 500, gotCents: 400 },
  text: 'stakeCents must be the unit price, 500, not 400',
  occurrences: 1,
  lineCount: 1,
  lines: [3],
  ...over,
})

describe('a refusal’s reasons on the screen', () => {
  it('say a reason repeated on one line once, with how many times, in French and English', () => {
    const fr = speaker('fr').line(drags)
    expect(fr).toBe(
      'partie, événement 1 : une partie automatique est révélée par le jeu, jamais par un glissé (14 fois) ; la mise doit être le prix de l’unité, 5 €, et non 4 €',
    )
    expect(leftovers(fr)).toEqual([])
    expect(speaker('en').line(drags)).toMatch(/^play, event 1: .* \(14 times\); /)
  })

  it('say a group: how often, on which lines (the first ten, then how many more), and its first case', () => {
    const fr = speaker('fr')
    expect(fr.group(group({ occurrences: 30, lineCount: 1, lines: [2] }))).toMatchObject({
      count: '30 fois sur 1 ligne',
      lines: 'ligne 2',
    })
    const many = group({ occurrences: 14, lineCount: 14, lines: [3, 4, 5, 6, 7, 8, 9, 10, 11, 12] })
    expect(fr.group(many)).toEqual({
      count: '14 fois sur 14 lignes',
      lines: 'lignes 3, 4, 5, 6, 7, 8, 9, 10, 11, 12… et 4 autres',
      text: 'la mise doit être le prix de l’unité, 5 €, et non 4 €',
    })
    expect(speaker('en').group(many)).toMatchObject({
      count: '14 times on 14 lines',
      lines: 'lines 3, 4, 5, 6, 7, 8, 9, 10, 11, 12… and 4 more',
    })
  })

  it('say the prize claims an import opened, and nothing for an entry that did not count them', () => {
    const row = { result: 'imported', claims: 2, reasons: null } as ImportRecord
    expect(speaker('fr').claims(row)).toBe('2 réclamations de lot ouvertes')
    expect(speaker('en').claims({ ...row, claims: 1 })).toBe('1 prize claim opened')
    expect(speaker('fr').claims({ ...row, claims: 0 })).toBe('aucune réclamation de lot ouverte')
    expect(speaker('fr').claims({ ...row, claims: null })).toBeNull()
    const refused = { result: 'refused', claims: null, reasons: { groups: [group({})] } } as unknown as ImportRecord
    expect(hasReasons(refused)).toBe(true)
    expect(hasReasons({ ...refused, reasons: null })).toBe(false)
  })
})
