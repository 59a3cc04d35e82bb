import { h } from 'vue'
import { RouterLink } from 'vue-router'
import { NButton, NSpace, NTag, type DataTableColumns } from 'naive-ui'
import type { PlayerSummary, PlayerUnit } from '../../../../electron/contract'
import DemoTag from '../../components/DemoTag.vue'

export interface UnitColumnContext {
  t: (key: string) => string
  money: (cents: number) => string
  dateTime: (iso: string) => string
  replay: (u: PlayerUnit) => void
  inspect: (u: PlayerUnit) => void
}

export function prizeCell(c: Pick<UnitColumnContext, 't' | 'money'>, prizeCents: number) {
  return prizeCents > 0
    ? h(NTag, { type: 'success', size: 'small', round: true, bordered: false }, { default: () => c.money(prizeCents) })
    : h('span', { class: 'muted' }, c.t('ticket.losing'))
}

/**
 * The player's units. `paged`: the full history, sorted and filtered on the server
 * (players:history); the last units are shown as they come.
 */
export function createUnitColumns(c: UnitColumnContext, paged = false): DataTableColumns<PlayerUnit> {
  const outcome = paged
    ? {
        filter: true,
        filterMultiple: false,
        filterOptions: (['won', 'lost'] as const).map((o) => ({ label: c.t(`support.outcome.${o}`), value: o })),
      }
    : {}
  return [
    { title: c.t('support.soldAt'), key: 'soldAt', width: 190, sorter: paged, render: (u) => c.dateTime(u.soldAt) },
    {
      title: c.t('support.serial'),
      key: 'serial',
      width: 200,
      render: (u) => h('span', null, [h('span', { class: 'mono' }, u.serial), u.demo ? h(DemoTag) : null]),
    },
    {
      title: c.t('support.prize'),
      key: 'prizeCents',
      width: 130,
      sorter: paged,
      ...outcome,
      render: (u) => prizeCell(c, u.prizeCents),
    },
    {
      title: c.t('support.mode'),
      key: 'mode',
      width: 150,
      render: (u) => (u.mode ? c.t(`ticket.mode.${u.mode}`) : '—'),
    },
    {
      title: c.t('support.status'),
      key: 'status',
      width: 120,
      render: (u) =>
        u.status
          ? h(
              NTag,
              { size: 'small', round: true, bordered: false, type: u.status === 'complete' ? 'default' : 'warning' },
              { default: () => c.t(`ticket.playState.${u.status}`) },
            )
          : '—',
    },
    {
      title: '',
      key: 'actions',
      width: 190,
      render: (u) =>
        h(
          NSpace,
          { size: 6 },
          {
            default: () => [
              h(
                NButton,
                { size: 'small', type: 'primary', secondary: true, disabled: !u.mode, onClick: () => c.replay(u) },
                { default: () => c.t('support.replay') },
              ),
              h(
                NButton,
                { size: 'small', quaternary: true, onClick: () => c.inspect(u) },
                { default: () => c.t('support.inspect') },
              ),
            ],
          },
        ),
    },
  ]
}

export interface PlayerColumnContext {
  t: (key: string) => string
  int: (n: number) => string
  money: (cents: number) => string
  dateTime: (iso: string | null) => string
}

export function createPlayerColumns(c: PlayerColumnContext): DataTableColumns<PlayerSummary> {
  return [
    {
      title: c.t('support.player'),
      key: 'player',
      // a link as well as the row's click: the keyboard opens an account too
      render: (p) =>
        h(
          RouterLink,
          {
            to: { name: 'support', query: { player: p.player } },
            replace: true,
            style: 'font-weight: 600',
            onClick: (e: MouseEvent) => e.stopPropagation(),
          },
          () => p.player,
        ),
    },
    { title: c.t('support.units'), key: 'units', align: 'right', render: (p) => c.int(p.units) },
    { title: c.t('support.staked'), key: 'stakedCents', align: 'right', render: (p) => c.money(p.stakedCents) },
    { title: c.t('support.won'), key: 'wonCents', align: 'right', render: (p) => c.money(p.wonCents) },
    { title: c.t('support.lastSale'), key: 'lastSaleAt', render: (p) => c.dateTime(p.lastSaleAt) },
  ]
}
