import { h } from 'vue'
import { RouterLink } from 'vue-router'
import { NProgress, NTag, NTooltip, type DataTableColumns } from 'naive-ui'
import type { BlockSeeding, BlockStatus, BlockSummary, BlockVerdict } from '../../../../electron/contract'
import { blockNo } from '../../format'

export const BLOCK_STATUS_TYPE: Record<BlockStatus, 'default' | 'info' | 'success' | 'error'> = {
  pending: 'default',
  generated: 'info',
  verified: 'success',
  failed: 'error',
}

/** Two-person seeding is the norm; single control stands out. */
export const SEEDING_TYPE: Record<BlockSeeding, 'success' | 'warning'> = { 'two-person': 'success', single: 'warning' }

/** How a generated block's secret was made, as a tag (a pending block has none yet). */
export function seedingTag(t: BlockColumnContext['t'], b: Pick<BlockSummary, 'block' | 'seeding' | 'status'>) {
  if (b.status === 'pending') return h('span', { class: 'muted' }, '—')
  return h(
    NTag,
    {
      type: SEEDING_TYPE[b.seeding],
      size: 'small',
      bordered: b.seeding === 'single',
      'data-test': `seeding-${b.block}`,
    },
    { default: () => t(`ceremony.seeding.${b.seeding}`) },
  )
}

export interface BlockColumnContext {
  t: (key: string, params?: Record<string, unknown>) => string
  int: (n: number) => string
  pct: (x: number, digits?: number) => string
  dateTime: (iso: string | null) => string
  hash: (hex: string | null, keep?: number) => string
  /** The block's latest verdict (none: never verified). */
  verdict: (block: number) => BlockVerdict | undefined
}

/** The latest verdict as a tag: sound, or loudly not. */
function verdictCell(c: BlockColumnContext, b: BlockSummary) {
  const v = c.verdict(b.block)
  if (!v) return h('span', { class: 'muted' }, c.t('emission.verdictNone'))
  const tag = h(
    NTag,
    {
      type: v.sound ? 'success' : 'error',
      size: 'small',
      round: v.sound,
      strong: !v.sound,
      'data-test': `verdict-${b.block}`,
    },
    { default: () => c.t(v.sound ? 'emission.verdictSound' : 'emission.verdictUnsound') },
  )
  return h(NTooltip, null, {
    trigger: () => tag,
    default: () => c.t('emission.verdictTooltip', { actor: v.actor, at: c.dateTime(v.endedAt) }),
  })
}

export function createBlockColumns(c: BlockColumnContext): DataTableColumns<BlockSummary> {
  return [
    {
      title: c.t('emission.block'),
      key: 'block',
      width: 80,
      render: (b) =>
        h(
          RouterLink,
          {
            to: { name: 'block', params: { emission: b.emission, block: b.block } },
            class: 'mono',
            style: 'font-weight: 600',
            onClick: (e: MouseEvent) => e.stopPropagation(),
          },
          () => blockNo(b.block),
        ),
    },
    {
      title: c.t('emissions.status'),
      key: 'status',
      width: 110,
      render: (b) =>
        h(
          NTag,
          { type: BLOCK_STATUS_TYPE[b.status], size: 'small', round: true, bordered: false },
          { default: () => c.t(`blockStatus.${b.status}`) },
        ),
    },
    {
      title: c.t('emission.commitment'),
      key: 'commitment',
      minWidth: 170,
      render: (b) =>
        b.commitment
          ? h(NTooltip, null, {
              trigger: () => h('span', { class: 'mono' }, c.hash(b.commitment, 8)),
              default: () => h('span', { class: 'mono break' }, b.commitment ?? ''),
            })
          : '—',
    },
    { title: c.t('ceremony.seedingColumn'), key: 'seeding', width: 140, render: (b) => seedingTag(c.t, b) },
    { title: c.t('emission.generatedAt'), key: 'generatedAt', width: 165, render: (b) => c.dateTime(b.generatedAt) },
    { title: c.t('emission.verifiedAt'), key: 'verifiedAt', width: 165, render: (b) => c.dateTime(b.verifiedAt) },
    { title: c.t('emission.verdict'), key: 'verdict', width: 120, render: (b) => verdictCell(c, b) },
    {
      title: c.t('emissions.sold'),
      key: 'unitsSold',
      minWidth: 170,
      render: (b) => {
        const share = b.unitsTotal > 0 ? b.unitsSold / b.unitsTotal : 0
        return h('div', { class: 'sold' }, [
          h(NProgress, {
            type: 'line',
            percentage: Math.round(share * 1000) / 10,
            showIndicator: false,
            height: 8,
            'aria-label': c.t('a11y.sold', { pct: c.pct(share, 1) }),
          }),
          h('span', { class: 'muted sold-text' }, `${c.int(b.unitsSold)} · ${c.pct(share, 1)}`),
        ])
      },
    },
  ]
}
