import { h } from 'vue'
import { RouterLink } from 'vue-router'
import { NButton, NTag, NTooltip, type DataTableColumns } from 'naive-ui'
import type { ClaimDeadlineNotice } from '../../../../electron/contract/claims-types'
import { blockNo, emissionNo } from '../../format'
import { statusTag } from '../claims/columns'
import { noticeType, partOf, type LiabilityRow, type Part } from './rows'

type Translate = (key: string, params?: Record<string, unknown>, plural?: number) => string

export interface LiabilityColumnContext {
  t: Translate
  money: (cents: number) => string
  int: (n: number) => string
  parts: Part[]
  /** Opens or closes a block's tiers. */
  toggle: (block: number) => void
}

/** A block's line opens its tiers from a real button (Naive UI's tree trigger takes no focus). */
function blockToggle(c: LiabilityColumnContext, r: Extract<LiabilityRow, { kind: 'block' }>) {
  const label = c.t(r.expanded ? 'liability.collapse' : 'liability.expand', { block: blockNo(r.block) })
  return h(
    NButton,
    {
      text: true,
      'aria-expanded': r.expanded,
      'aria-label': label,
      title: label,
      'data-test': `toggle-block-${r.block}`,
      onClick: () => c.toggle(r.block),
    },
    () => [
      h('span', { class: 'chevron', 'aria-hidden': 'true' }, r.expanded ? '▾' : '▸'),
      h('strong', null, c.t('liability.block', { block: blockNo(r.block) })),
    ],
  )
}

function tierLabel(c: LiabilityColumnContext, r: Extract<LiabilityRow, { kind: 'tier' }>) {
  const { tier } = r
  const sold = c.t('liability.tierSold', { sold: c.int(tier.sold), units: c.int(tier.units) })
  return h('div', { class: 'tier-label' }, [
    h('span', null, c.t('liability.tier', { amount: c.money(tier.amountCents) })),
    h('div', { class: 'small muted' }, sold),
    tier.claimed
      ? h('div', { class: 'small muted', title: c.t('liability.inPersonHint') }, c.t('liability.inPerson'))
      : null,
  ])
}

function lineLabel(c: LiabilityColumnContext, r: LiabilityRow) {
  if (r.kind === 'block') return blockToggle(c, r)
  if (r.kind === 'tier') return tierLabel(c, r)
  return h('strong', null, c.t('liability.emissionTotal'))
}

/** A part's cell: its amount, the claims it counts below it; a gap in red when not zero. */
function partCell(c: LiabilityColumnContext, r: LiabilityRow, part: Part) {
  const { cents, claims } = partOf(r.figures, part)
  const off = part === 'gap' && cents !== 0
  const amount = h(r.kind === 'tier' ? 'span' : 'strong', { class: off ? 'gap-off' : undefined }, c.money(cents))
  if (claims === null || (claims === 0 && cents === 0)) return amount
  return h('div', null, [
    amount,
    h('div', { class: 'small muted' }, c.t('liability.claims', { n: c.int(claims) }, claims)),
  ])
}

/** A header with the part's meaning in its tooltip. */
function partTitle(c: LiabilityColumnContext, part: Part) {
  return () =>
    h(NTooltip, null, {
      trigger: () => h('span', { class: 'part-title', tabindex: 0 }, c.t(`liability.parts.${part}`)),
      default: () => c.t(`liability.partHints.${part}`),
    })
}

/** The widths of the label column and of each part's: the whole table fits a 1440-pixel window. */
export const LABEL_WIDTH = 200
export const PART_WIDTH = 108

/** An emission's table: a line per block (its tiers when opened), a column per part of the identity. */
export function createLiabilityColumns(c: LiabilityColumnContext): DataTableColumns<LiabilityRow> {
  return [
    { title: c.t('liability.part'), key: 'part', width: LABEL_WIDTH, fixed: 'left', render: (r) => lineLabel(c, r) },
    ...c.parts.map((part) => ({
      title: partTitle(c, part),
      key: part,
      width: PART_WIDTH,
      align: 'right' as const,
      className: `part-${part}`,
      render: (r: LiabilityRow) => partCell(c, r, part),
    })),
  ]
}

export interface DeadlineColumnContext {
  t: Translate
  money: (cents: number) => string
  int: (n: number) => string
  dateTime: (iso: string) => string
}

/** The open claims near their deadline (claims:deadlines): each links to its claim's page. */
export function createDeadlineColumns(c: DeadlineColumnContext): DataTableColumns<ClaimDeadlineNotice> {
  return [
    {
      title: c.t('liability.deadlines.serial'),
      key: 'serial',
      width: 200,
      render: (r) =>
        h(
          RouterLink,
          { to: { name: 'claim', params: { serial: r.claim.serial } }, class: 'mono' },
          () => r.claim.serial,
        ),
    },
    {
      title: c.t('liability.deadlines.emission'),
      key: 'emission',
      width: 100,
      render: (r) => emissionNo(r.claim.emission),
    },
    {
      title: c.t('liability.deadlines.prize'),
      key: 'prize',
      width: 130,
      align: 'right',
      render: (r) => h('strong', null, c.money(r.claim.prizeCents)),
    },
    {
      title: c.t('liability.deadlines.status'),
      key: 'status',
      width: 160,
      render: (r) => statusTag(c.t, r.claim.status),
    },
    { title: c.t('liability.deadlines.deadline'), key: 'deadline', width: 200, render: (r) => c.dateTime(r.deadline) },
    {
      title: c.t('liability.deadlines.daysLeft'),
      key: 'daysLeft',
      width: 120,
      align: 'right',
      render: (r) => {
        const n = Math.max(0, r.daysLeft)
        return c.t('liability.deadlines.left', { n: c.int(n) }, n)
      },
    },
    {
      title: c.t('liability.deadlines.notice'),
      key: 'notice',
      width: 100,
      render: (r) =>
        h(
          NTag,
          {
            type: noticeType(r.notice),
            size: 'small',
            round: true,
            bordered: false,
            title: c.t('liability.deadlines.noticeHint', { n: r.notice }, r.notice),
            'data-test': `notice-${r.notice}`,
          },
          () => c.t('liability.deadlines.noticeTag', { n: r.notice }),
        ),
    },
  ]
}
