import { h } from 'vue'
import { NTooltip, type DataTableColumns } from 'naive-ui'
import type { AuditEntry } from '../../../../electron/contract'

export interface AuditColumnContext {
  t: (key: string) => string
  /** Whether a message exists (an action recorded by a later version may have none). */
  te: (key: string) => boolean
  dateTime: (iso: string) => string
  hash: (hex: string, keep?: number) => string
}

export function createAuditColumns(c: AuditColumnContext): DataTableColumns<AuditEntry> {
  return [
    // sorted on the server (audit:list): each of these has an index
    {
      title: c.t('audit.seq'),
      key: 'seq',
      width: 90,
      sorter: true,
      render: (e) => h('span', { class: 'mono' }, String(e.seq)),
    },
    { title: c.t('audit.at'), key: 'at', width: 190, sorter: true, render: (e) => c.dateTime(e.at) },
    { title: c.t('audit.actor'), key: 'actor', width: 140, sorter: true },
    {
      title: c.t('audit.action'),
      key: 'action',
      width: 240,
      sorter: true,
      // its name in the user's language, above the code that the filter takes
      render: (e) =>
        c.te(`audit.actions.${e.action}`)
          ? h('div', null, [
              h('div', null, c.t(`audit.actions.${e.action}`)),
              h('div', { class: 'mono muted', style: { fontSize: '12px' } }, e.action),
            ])
          : h('span', { class: 'mono' }, e.action),
    },
    { title: c.t('audit.object'), key: 'object', width: 190, sorter: true, ellipsis: { tooltip: true } },
    {
      title: c.t('audit.details'),
      key: 'details',
      minWidth: 260,
      ellipsis: { tooltip: { contentStyle: { maxWidth: '520px' } } },
    },
    {
      title: c.t('audit.hash'),
      key: 'hash',
      width: 150,
      render: (e) =>
        h(NTooltip, null, {
          trigger: () => h('span', { class: 'mono muted' }, c.hash(e.hash, 6)),
          default: () => h('span', { class: 'mono break' }, e.hash),
        }),
    },
  ]
}
