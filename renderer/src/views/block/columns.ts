import { h } from 'vue'
import { NProgress, type DataTableColumns } from 'naive-ui'
import type { TierState } from '../../../../electron/contract'

export interface TierColumnContext {
  t: (key: string) => string
  int: (n: number) => string
  money: (cents: number) => string
  odds: (n: number) => string
}

export function createTierColumns(c: TierColumnContext): DataTableColumns<TierState> {
  return [
    { title: c.t('block.tier'), key: 'amountCents', render: (x) => h('strong', null, c.money(x.amountCents)) },
    { title: c.t('block.initial'), key: 'initial', align: 'right', render: (x) => c.int(x.initial) },
    { title: c.t('block.sold'), key: 'sold', align: 'right', render: (x) => c.int(x.sold) },
    { title: c.t('block.remaining'), key: 'remaining', align: 'right', render: (x) => h('strong', null, c.int(x.remaining)) },
    {
      title: '',
      key: 'bar',
      width: 160,
      render: (x) => h(NProgress, { type: 'line', percentage: x.initial ? Math.round((x.remaining / x.initial) * 1000) / 10 : 0, showIndicator: false, height: 6 }),
    },
    { title: c.t('block.remainingOdds'), key: 'remainingOddsOneIn', align: 'right', render: (x) => (x.remainingOddsOneIn === null ? '—' : c.odds(x.remainingOddsOneIn)) },
  ]
}
