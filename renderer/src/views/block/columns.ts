import { h } from 'vue'
import { NProgress, type DataTableColumns } from 'naive-ui'
import type { TierState } from '../../../../electron/contract'

export interface TierColumnContext {
  t: (key: string, params?: Record<string, unknown>) => string
  pct: (x: number, digits?: number) => string
  int: (n: number) => string
  money: (cents: number) => string
  odds: (n: number) => string
}

export function createTierColumns(c: TierColumnContext): DataTableColumns<TierState> {
  return [
    { title: c.t('block.tier'), key: 'amountCents', render: (x) => h('strong', null, c.money(x.amountCents)) },
    { title: c.t('block.initial'), key: 'initial', align: 'right', render: (x) => c.int(x.initial) },
    { title: c.t('block.sold'), key: 'sold', align: 'right', render: (x) => c.int(x.sold) },
    {
      title: c.t('block.remaining'),
      key: 'remaining',
      align: 'right',
      render: (x) => h('strong', null, c.int(x.remaining)),
    },
    {
      title: '',
      key: 'bar',
      width: 160,
      render: (x) => {
        const left = x.initial ? x.remaining / x.initial : 0
        return h(NProgress, {
          type: 'line',
          percentage: Math.round(left * 1000) / 10,
          showIndicator: false,
          height: 6,
          'aria-label': c.t('a11y.remaining', { amount: c.money(x.amountCents), pct: c.pct(left, 1) }),
        })
      },
    },
    {
      title: c.t('block.remainingOdds'),
      key: 'remainingOddsOneIn',
      align: 'right',
      render: (x) => (x.remainingOddsOneIn === null ? '—' : c.odds(x.remainingOddsOneIn)),
    },
  ]
}
