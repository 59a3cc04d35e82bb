import { h } from 'vue'
import { NButton, NProgress, NSpace, NTag, NTooltip, type DataTableColumns } from 'naive-ui'
import type { EmissionStatus, EmissionSummary, JobInfo } from '../../../../electron/contract'
import DemoTag from '../../components/DemoTag.vue'
import JobProgress from '../../components/JobProgress.vue'
import { emissionNo } from '../../format'

/** `ceremony`: the key ceremony a real emission needs before generation (held on its screen). */
export type EmissionAction =
  'ceremony' | 'generate' | 'verify' | 'open' | 'close' | 'simulate' | 'withdraw' | 'certificate' | 'details'

export const STATUS_TYPE: Record<EmissionStatus, 'default' | 'info' | 'success' | 'warning' | 'error' | 'primary'> = {
  created: 'default',
  generating: 'info',
  generated: 'info',
  verified: 'primary',
  open: 'success',
  closed: 'warning',
  withdrawn: 'error',
}

/**
 * The next steps an emission's state allows, in the order an operator takes them. A real
 * emission is generated from a complete key ceremony (its screen offers generation once it is);
 * a demonstration one directly.
 */
export function nextSteps(e: EmissionSummary): EmissionAction[] {
  if (e.jobId) return []
  switch (e.status) {
    case 'created':
      return e.demo ? ['generate', 'withdraw'] : ['ceremony', 'withdraw']
    case 'generating':
      return []
    case 'generated':
      return ['verify', 'withdraw']
    case 'verified':
      return ['open', 'verify', 'withdraw']
    // simulated sales only in a demonstration emission
    case 'open':
      return e.demo ? ['close', 'simulate', 'verify', 'withdraw'] : ['close', 'verify', 'withdraw']
    case 'closed':
      return ['verify']
    case 'withdrawn':
      return []
  }
}

/** The order of an emission's life, for sorting by status. */
const LIFE: EmissionStatus[] = ['created', 'generating', 'generated', 'verified', 'open', 'closed', 'withdrawn']
const soldShare = (e: EmissionSummary) => (e.unitsTotal > 0 ? e.unitsSold / e.unitsTotal : 0)

/** The i18n key of a step's button. */
export function stepLabel(a: EmissionAction): string {
  if (a === 'simulate') return 'emissions.simulateShort'
  if (a === 'ceremony') return 'ceremony.title'
  return `emissions.${a}`
}

export interface ColumnContext {
  t: (key: string, params?: Record<string, unknown>) => string
  int: (n: number) => string
  day: (d: string | null) => string
  dateTime: (iso: string | null) => string
  pct: (x: number, digits?: number) => string
  allowed: (a: EmissionAction) => boolean
  job: (id: string) => JobInfo | undefined
  busy: (e: EmissionSummary) => boolean
  act: (a: EmissionAction, e: EmissionSummary) => void
}

/** A published emission's mark in the list, saying when and by whom on hover. */
function publishedTag(c: ColumnContext, e: EmissionSummary) {
  if (!e.publishedAt) return null
  const text = c.t('ceremony.publishedOn', { at: c.dateTime(e.publishedAt), name: e.publishedBy ?? '—' })
  const tag = h(
    NTag,
    {
      size: 'small',
      type: 'info',
      bordered: true,
      class: 'published-tag',
      'aria-label': text,
      'data-test': `published-${e.emission}`,
    },
    { default: () => c.t('ceremony.publishedTag') },
  )
  return h(NTooltip, null, { trigger: () => tag, default: () => text })
}

export function createColumns(c: ColumnContext): DataTableColumns<EmissionSummary> {
  return [
    {
      title: c.t('emissions.emission'),
      key: 'emission',
      width: 140,
      sorter: (a, b) => a.emission - b.emission,
      render: (e) =>
        h('div', { class: 'em-cell' }, [
          h('strong', { class: 'mono' }, emissionNo(e.emission)),
          e.code ? h('span', { class: 'muted em-code' }, e.code) : null,
          e.demo ? h(DemoTag) : null,
          publishedTag(c, e),
        ]),
    },
    {
      title: c.t('emissions.startsOn'),
      key: 'startsOn',
      width: 140,
      sorter: (a, b) => (a.startsOn ?? '').localeCompare(b.startsOn ?? ''),
      render: (e) => c.day(e.startsOn),
    },
    {
      title: c.t('emissions.status'),
      key: 'status',
      width: 130,
      sorter: (a, b) => LIFE.indexOf(a.status) - LIFE.indexOf(b.status),
      // filtered by the screen (useListFilters), so that its count is the table's
      filter: true,
      filterMultiple: true,
      filterOptions: LIFE.map((s) => ({ label: c.t(`status.${s}`), value: s })),
      render: (e) => {
        const tag = h(
          NTag,
          { type: STATUS_TYPE[e.status], size: 'small', round: true, bordered: false },
          { default: () => c.t(`status.${e.status}`) },
        )
        return e.status === 'withdrawn' && e.withdrawnReason
          ? h(NTooltip, null, {
              trigger: () => tag,
              default: () => c.t('emissions.withdrawnReason', { reason: e.withdrawnReason }),
            })
          : tag
      },
    },
    {
      title: c.t('emissions.blocks'),
      key: 'blocks',
      width: 140,
      render: (e) =>
        h(
          'span',
          { class: 'muted small' },
          c.t('emissions.blocksState', { generated: e.blocksGenerated, verified: e.blocksVerified, total: e.blocks }),
        ),
    },
    {
      title: c.t('emissions.sold'),
      key: 'unitsSold',
      minWidth: 210,
      sorter: (a, b) => soldShare(a) - soldShare(b),
      render: (e) => {
        const job = e.jobId ? c.job(e.jobId) : undefined
        if (job) return h(JobProgress, { job })
        const share = soldShare(e)
        return h('div', { class: 'sold' }, [
          h(NProgress, {
            type: 'line',
            percentage: Math.round(share * 1000) / 10,
            showIndicator: false,
            height: 8,
            status: e.status === 'open' ? 'success' : 'default',
            'aria-label': c.t('a11y.sold', { pct: c.pct(share, 1) }),
          }),
          h(
            'span',
            { class: 'muted sold-text' },
            `${c.int(e.unitsSold)} / ${c.int(e.unitsTotal)} · ${c.pct(share, 1)}`,
          ),
        ])
      },
    },
    {
      title: c.t('emissions.actions'),
      key: 'actions',
      width: 340,
      fixed: 'right',
      render: (e) => {
        const steps = nextSteps(e).filter(c.allowed)
        const primary = steps[0]
        const buttons = steps.map((a) =>
          h(
            NButton,
            {
              size: 'small',
              type: a === 'withdraw' ? 'error' : a === primary ? 'primary' : 'default',
              secondary: a !== primary,
              quaternary: a === 'withdraw',
              disabled: c.busy(e),
              'data-test': `${a}-${e.emission}`,
              onClick: (ev: MouseEvent) => {
                ev.stopPropagation()
                c.act(a, e)
              },
            },
            { default: () => c.t(stepLabel(a)) },
          ),
        )
        const links = (['details', 'certificate'] as const).filter(c.allowed).map((a) =>
          h(
            NButton,
            {
              size: 'small',
              text: true,
              type: 'primary',
              'data-test': `${a}-${e.emission}`,
              onClick: (ev: MouseEvent) => {
                ev.stopPropagation()
                c.act(a, e)
              },
            },
            { default: () => c.t(`emissions.${a}`) },
          ),
        )
        return h(NSpace, { size: 8, align: 'center', wrap: true }, { default: () => [...buttons, ...links] })
      },
    },
  ]
}
