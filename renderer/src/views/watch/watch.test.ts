// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest'
import { defineComponent, h } from 'vue'
import { NDataTable } from 'naive-ui'
import type { WinnerFigures } from '../../../../electron/contract/claims-types'
import { createAppI18n } from '../../i18n'
import { mountWithApp } from '../../testing'
import { formatInteger, formatMoney } from '../../format'
import { createWatchColumns } from './columns'
import { chanceText, expectedText, rawProbability } from './probability'

const { t } = createAppI18n('en').global
const tr = (k: string, p?: Record<string, unknown>) => t(k, p ?? {})

describe('the improbable winners table', () => {
  it('shows the figures, the probability in words with its raw value, and the flags as tags', () => {
    const columns = createWatchColumns({
      t: tr,
      int: (n) => formatInteger(n, 'en'),
      money: (c) => formatMoney(c, 'en'),
      expected: (n) => expectedText(n, 'en'),
      chance: (p) => chanceText(p, 'en', tr),
      raw: rawProbability,
      canSeeClaims: false,
    })
    const data: WinnerFigures[] = [
      {
        player: 'lucky-lou',
        units: 5,
        claims: 5,
        claimsCents: 50_000,
        expectedClaims: 0.0506,
        probability: 2.7e-9,
        flags: ['improbable', 'many-claims'],
      },
    ]
    const w = mountWithApp(
      defineComponent({ render: () => h(NDataTable, { columns, data, rowKey: (f: WinnerFigures) => f.player }) }),
    )
    const cells = w.findAll('tbody td').map((c) => c.text())
    expect(cells).toEqual(['lucky-lou', '5', '5', '€500', '0.051', '1 in 370 million', 'improbablemany claims'])
    expect(w.get('[data-test="watch-probability"]').attributes('title')).toBe('P = 2.70e-9')
    expect(w.findAll('[data-test^="flag-"]').map((x) => x.attributes('data-test'))).toEqual([
      'flag-improbable',
      'flag-many-claims',
    ])
  })
})
