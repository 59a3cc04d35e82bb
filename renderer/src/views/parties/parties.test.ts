// @vitest-environment happy-dom
import { describe, expect, it, vi } from 'vitest'
import { defineComponent, h } from 'vue'
import { createMemoryHistory, createRouter } from 'vue-router'
import { NDataTable } from 'naive-ui'
import type { RelatedParty } from '../../../../electron/contract/claims-types'
import { createAppI18n } from '../../i18n'
import { mountWithApp } from '../../testing'
import { createPartyColumns, type PartyColumnContext } from './columns'

const { t } = createAppI18n('en').global
const tr = (k: string, p?: Record<string, unknown>) => t(k, p ?? {})

const entry = (over: Partial<RelatedParty>): RelatedParty => ({
  id: 1,
  player: 'cousin-cam',
  relation: 'family',
  linkedTo: 'sophie',
  reason: 'cousin of a support agent',
  addedBy: 'aline',
  addedAt: '2026-05-04T08:00:00.000Z',
  removed: null,
  ...over,
})
const data = [
  entry({}),
  entry({
    id: 2,
    player: 'old-pal',
    relation: 'retailer',
    removed: { by: 'ada', at: '2026-05-06T09:00:00.000Z', reason: 'no longer a retailer' },
  }),
]

function table(over: Partial<PartyColumnContext>) {
  const columns = createPartyColumns({
    t: tr,
    dateTime: (iso) => `at ${iso.slice(0, 10)}`,
    canOpenPlayer: false,
    canRemove: true,
    remove: vi.fn(),
    ...over,
  })
  const router = createRouter({
    history: createMemoryHistory(),
    routes: [
      { path: '/', component: { render: () => null } },
      { path: '/support', name: 'support', component: { render: () => null } },
    ],
  })
  return mountWithApp(
    defineComponent({ render: () => h(NDataTable, { columns, data, rowKey: (p: RelatedParty) => p.id }) }),
    { global: { plugins: [router] } },
  )
}

describe('the register table', () => {
  it('shows who added each entry and when, who removed it and why, and a Remove button on entries in force only', async () => {
    const remove = vi.fn()
    const rows = table({ remove }).findAll('tbody tr')
    expect(rows[0].text()).toContain('Family')
    expect(rows[0].text()).toContain('alineat 2026-05-04')
    expect(rows[0].text()).toContain('in force')
    expect(rows[1].text()).toContain('adaat 2026-05-06no longer a retailer')
    expect(rows[1].find('[data-test="party-remove-2"]').exists()).toBe(false)
    await rows[0].get('[data-test="party-remove-1"]').trigger('click')
    expect(remove).toHaveBeenCalledWith(data[0])
  })

  it('has no Remove button for a role that may not remove, and links the account to support when the role may see it', () => {
    const readOnly = table({ canRemove: false })
    expect(readOnly.findAll('button').filter((b) => b.text() === 'Remove')).toHaveLength(0)
    expect(readOnly.find('a').exists()).toBe(false)
    const linked = table({ canOpenPlayer: true }).get('[data-test="party-player-1"]')
    expect(linked.attributes('href')).toBe('/support?player=cousin-cam')
    expect(linked.attributes('aria-label')).toBe('Open account cousin-cam in support')
  })
})
