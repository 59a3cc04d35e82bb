import { h } from 'vue'
import type { DataTableColumns } from 'naive-ui'
import type { LedgerProblem, LedgerProblemRow, LedgerStatus } from '../../../../electron/contract'
import Verdict from './Verdict.vue'

type Translate = (key: string, params?: Record<string, unknown>) => string

export interface LedgerColumnContext {
  t: Translate
  te: (key: string) => boolean
  int: (n: number) => string
  dec: (n: number, digits?: number) => string
  money: (cents: number) => string
  dateTime: (iso: string | null | undefined) => string
  day: (d: string | null | undefined) => string
}

const tierText = (c: LedgerColumnContext, tier: number | null | undefined) =>
  tier === null || tier === undefined ? c.t('ledger.problems.losing') : c.t('ledger.problems.tier', { n: tier + 1 })

/** The row a disagreement concerns, as a person names it: a unit's serial, a block (and tier), a player, a day. */
export function rowText(c: LedgerColumnContext, r: LedgerProblemRow): string {
  if (r.serial) return c.t('ledger.row.unit', { serial: r.serial })
  if (r.player) return c.t('ledger.row.player', { player: r.player })
  if (r.playerId !== undefined) return c.t('ledger.row.playerId', { id: r.playerId })
  if (r.day) return c.t('ledger.row.day', { day: c.day(r.day), emission: r.emission ?? '' })
  if (r.block !== undefined && 'tier' in r)
    return c.t('ledger.row.tier', { block: r.block, emission: r.emission ?? '', tier: tierText(c, r.tier) })
  if (r.block !== undefined) return c.t('ledger.row.block', { block: r.block, emission: r.emission ?? '' })
  return c.t('ledger.none')
}

/** A stored or recomputed value in the user's language: amounts in euros, times as dates, tiers by rank. */
export function valueText(c: LedgerColumnContext, field: string, v: number | string | null): string {
  if (v === null) return c.t('ledger.problems.empty')
  if (typeof v === 'string') return v
  if (field === 'tier') return tierText(c, v)
  if (field === 'unit_key') return String(v)
  if (field.endsWith('_cents')) return c.money(v)
  if (field.endsWith('_at')) return c.dateTime(new Date(v).toISOString())
  return c.int(v)
}

export function createProblemColumns(c: LedgerColumnContext): DataTableColumns<LedgerProblem> {
  return [
    {
      title: c.t('ledger.problems.kind'),
      key: 'kind',
      width: 260,
      render: (p) => c.t(`ledger.problemKinds.${p.kind}`),
    },
    {
      title: c.t('ledger.problems.row'),
      key: 'row',
      minWidth: 220,
      render: (p) => h('span', { title: p.message }, rowText(c, p.row)),
    },
    {
      title: c.t('ledger.problems.field'),
      key: 'field',
      width: 200,
      // its name in the user's language, above the column of the ledger it is
      render: (p) =>
        h('div', null, [
          c.te(`ledger.fields.${p.field}`) ? h('div', null, c.t(`ledger.fields.${p.field}`)) : null,
          h('div', { class: 'mono', style: { fontSize: '12px' } }, p.field),
        ]),
    },
    {
      title: c.t('ledger.problems.stored'),
      key: 'stored',
      width: 170,
      align: 'right',
      render: (p) => valueText(c, p.field, p.stored),
    },
    {
      title: c.t('ledger.problems.recomputed'),
      key: 'recomputed',
      width: 170,
      align: 'right',
      render: (p) => valueText(c, p.field, p.recomputed),
    },
  ]
}

/** "12,3 Mo" / "12.3 MB". */
export function sizeText(c: LedgerColumnContext, bytes: number): string {
  const units = ['b', 'kb', 'mb', 'gb'] as const
  let i = 0
  let n = bytes
  while (n >= 1000 && i < units.length - 1) {
    n /= 1000
    i++
  }
  return c.t(`ledger.bytes.${units[i]}`, { n: i === 0 ? c.int(n) : c.dec(n, n < 10 ? 2 : 1) })
}

type Backup = LedgerStatus['backups'][number]

const fileName = (path: string) => path.split(/[\\/]/).pop() ?? path

export function createBackupColumns(c: LedgerColumnContext): DataTableColumns<Backup> {
  return [
    { title: c.t('ledger.backup.at'), key: 'at', width: 200, render: (b) => c.dateTime(b.at) },
    { title: c.t('ledger.backup.by'), key: 'actor', width: 140 },
    {
      title: c.t('ledger.backup.file'),
      key: 'file',
      minWidth: 300,
      render: (b) => h('span', { class: 'mono ledger-path', title: b.file }, fileName(b.file)),
    },
    { title: c.t('ledger.backup.size'), key: 'bytes', width: 120, align: 'right', render: (b) => sizeText(c, b.bytes) },
    {
      title: c.t('ledger.backup.checked'),
      key: 'ok',
      width: 240,
      render: (b) =>
        h(
          Verdict,
          { ok: b.ok, compact: true },
          { default: () => c.t(b.ok ? 'ledger.backup.checkedOk' : 'ledger.backup.checkedBad') },
        ),
    },
  ]
}
