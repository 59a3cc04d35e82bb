import { h, type VNode } from 'vue'
import { RouterLink } from 'vue-router'
import { NSpace, NTag, type DataTableColumns } from 'naive-ui'
import { WINNER_FLAGS, type WinnerFigures, type WinnerFlag } from '../../../../electron/contract/claims-types'

export interface WatchColumnContext {
  t: (key: string, params?: Record<string, unknown>) => string
  int: (n: number) => string
  money: (cents: number) => string
  expected: (n: number) => string
  chance: (p: number) => string
  raw: (p: number) => string
  /** The claims list filtered by player is open to the role. */
  canSeeClaims: boolean
}

const FLAG_TYPES: Record<WinnerFlag, 'error' | 'warning' | 'info'> = {
  improbable: 'error',
  'many-claims': 'warning',
  related: 'info',
}

function playerCell(c: WatchColumnContext, f: WinnerFigures) {
  const name = h('strong', null, f.player)
  if (!c.canSeeClaims) return name
  return h(
    RouterLink,
    {
      to: { name: 'claims', query: { player: f.player } },
      'aria-label': c.t('watch.seeClaims', { player: f.player }),
      'data-test': `watch-claims-${f.player}`,
    },
    { default: () => name },
  )
}

const flagTags = (c: WatchColumnContext, f: WinnerFigures) =>
  h(
    NSpace,
    { size: 4 },
    {
      default: () =>
        f.flags.map((flag) =>
          h(
            NTag,
            { size: 'small', round: true, bordered: false, type: FLAG_TYPES[flag], 'data-test': `flag-${flag}` },
            { default: () => c.t(`watch.flag.${flag}`) },
          ),
        ),
    },
  )

const num = (title: string, key: keyof WinnerFigures, width: number, text: (f: WinnerFigures) => string | VNode) => ({
  title,
  key,
  width,
  align: 'right' as const,
  className: 'num',
  sorter: (a: WinnerFigures, b: WinnerFigures) => (a[key] as number) - (b[key] as number),
  render: text,
})

export function createWatchColumns(c: WatchColumnContext): DataTableColumns<WinnerFigures> {
  return [
    {
      title: c.t('watch.player'),
      key: 'player',
      minWidth: 120,
      sorter: (a, b) => a.player.localeCompare(b.player),
      render: (f) => playerCell(c, f),
    },
    num(c.t('watch.units'), 'units', 120, (f) => c.int(f.units)),
    num(c.t('watch.claims'), 'claims', 140, (f) => c.int(f.claims)),
    num(c.t('watch.amount'), 'claimsCents', 120, (f) => c.money(f.claimsCents)),
    num(c.t('watch.expected'), 'expectedClaims', 150, (f) => c.expected(f.expectedClaims)),
    num(c.t('watch.probability'), 'probability', 200, (f) =>
      h('span', { title: c.raw(f.probability), 'data-test': 'watch-probability' }, c.chance(f.probability)),
    ),
    {
      title: c.t('watch.flags'),
      key: 'flags',
      minWidth: 260,
      filter: true,
      filterMultiple: true,
      filterOptions: WINNER_FLAGS.map((f) => ({ label: c.t(`watch.flag.${f}`), value: f })),
      render: (f) => flagTags(c, f),
    },
  ]
}
