import { describe, expect, it } from 'vitest'
import { contrastRatio, over } from './contrast'
import { PALETTES, TAG_TINT, themeOverrides } from './theme'

describe('contrast', () => {
  it('computes WCAG ratios', () => {
    expect(contrastRatio('#000000', '#ffffff')).toBeCloseTo(21, 5)
    expect(contrastRatio('#ffffff', '#ffffff')).toBe(1)
    // Naive UI's green tag as it was: 2.75:1 on the page, as axe-core measured it
    expect(contrastRatio('#18a058', over('#18a058', '#f4f6fa', 0.12))).toBeCloseTo(2.75, 1)
    expect(() => contrastRatio('green', '#fff')).toThrow(/#rrggbb/)
  })
})

describe.each(['light', 'dark'] as const)('the %s palette', (theme) => {
  const p = PALETTES[theme]
  const grounds = [p.page, p.surface]

  it('gives secondary text 4.5:1 on the page and on cards', () => {
    for (const g of grounds) expect(contrastRatio(p.muted, g)).toBeGreaterThanOrEqual(4.5)
  })

  it('gives every status colour 4.5:1 as text and inside its own tinted tag', () => {
    for (const c of [p.success, p.warning, p.error, p.info]) {
      for (const g of grounds) {
        expect(contrastRatio(c, g), `${c} on ${g}`).toBeGreaterThanOrEqual(4.5)
        expect(contrastRatio(c, over(c, g, TAG_TINT[theme])), `${c} tag on ${g}`).toBeGreaterThanOrEqual(4.5)
      }
    }
  })

  it('gives a text button in the primary colour 4.5:1 on the page, on cards and on a table row', () => {
    const o = themeOverrides(theme).Button as { textColorTextPrimary?: string } | undefined
    const text = o?.textColorTextPrimary ?? p.primary
    // #26262a: a data table's cells in the dark theme, as axe measured them
    for (const g of [...grounds, ...(theme === 'dark' ? ['#26262a'] : [])])
      expect(contrastRatio(text, g), `${text} on ${g}`).toBeGreaterThanOrEqual(4.5)
  })

  it('gives the focus outline 3:1 against the surfaces (non-text contrast)', () => {
    for (const g of grounds) expect(contrastRatio(p.focus, g)).toBeGreaterThanOrEqual(3)
  })

  it('hands the same colours to Naive UI', () => {
    const o = themeOverrides(theme)
    expect(o.common?.textColor3).toBe(p.muted)
    expect(o.Empty?.textColor).toBe(p.muted)
    if (theme === 'light')
      expect([o.common?.successColor, o.common?.warningColor, o.common?.errorColor]).toEqual([
        p.success,
        p.warning,
        p.error,
      ])
  })
})
