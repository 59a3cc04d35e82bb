// @vitest-environment happy-dom
/** A block is "un bloc", an emission "une émission": their states agree with them in French. */
import { describe, expect, it } from 'vitest'
import { mount } from '@vue/test-utils'
import { defineComponent, type VNode } from 'vue'
import type { BlockStatus, BlockSummary } from '../../../../electron/contract'
import { createAppI18n } from '../../i18n'
import { createBlockColumns } from './blockColumns'

const BLOCK_STATUSES: BlockStatus[] = ['pending', 'generated', 'verified', 'failed']

function statusCell(locale: 'fr' | 'en', status: BlockStatus): string {
  const { t } = createAppI18n(locale).global
  const columns = createBlockColumns({
    t: (k, p) => t(k, p ?? {}),
    int: String,
    pct: String,
    dateTime: String,
    hash: String,
    verdict: () => undefined,
  })
  const column = columns.find((c) => 'key' in c && c.key === 'status') as {
    render: (b: BlockSummary, i: number) => VNode
  }
  const Cell = defineComponent({ render: () => column.render({ status } as BlockSummary, 0) })
  return mount(Cell).text()
}

describe('status labels', () => {
  it('are masculine for a block and feminine for an emission in French', () => {
    const { t } = createAppI18n('fr').global
    expect(BLOCK_STATUSES.map((s) => statusCell('fr', s))).toEqual(['En attente', 'Généré', 'Vérifié', 'En échec'])
    expect(t('status.verified')).toBe('Vérifiée')
    expect(t('status.generated')).toBe('Générée')
  })

  it('are the same words for both in English', () => {
    expect(statusCell('en', 'verified')).toBe('Verified')
  })
})
