import type { Alert } from '../../../../electron/contract'

type Translate = (key: string, params?: Record<string, unknown>) => string

/** An alert said in the user's language from its fields (the ledger keeps an English sentence for the audit log and the command line). */
export function describeAlert(a: Alert, t: Translate, money: (cents: number) => string): string {
  const amount = money(a.amountCents)
  return a.block === null
    ? t('dashboard.alertEmission', { amount, emission: a.emission })
    : t('dashboard.alertBlock', { amount, emission: a.emission, block: a.block })
}
