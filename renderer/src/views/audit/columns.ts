import { h } from 'vue'
import { NButton, NTooltip, type DataTableColumns } from 'naive-ui'
import type { AuditEntry } from '../../../../electron/contract'

export interface AuditColumnContext {
  t: (key: string, params?: Record<string, unknown>) => string
  /** Whether a message exists (an action recorded by a later version may have none). */
  te: (key: string) => boolean
  dateTime: (iso: string) => string
  hash: (hex: string, keep?: number) => string
  /** Shows the entry in full (AuditEntryModal). */
  open: (e: AuditEntry) => void
}

export function createAuditColumns(c: AuditColumnContext): DataTableColumns<AuditEntry> {
  return [
    // sorted on the server (audit:list): each of these has an index
    {
      title: c.t('audit.seq'),
      key: 'seq',
      width: 90,
      sorter: true,
      // the entry in full: its details indented, its whole fingerprint
      render: (e) =>
        h(
          NButton,
          {
            text: true,
            type: 'primary',
            class: 'mono',
            'aria-label': c.t('audit.open', { seq: e.seq }),
            'data-test': `audit-open-${e.seq}`,
            onClick: () => c.open(e),
          },
          { default: () => String(e.seq) },
        ),
    },
    { title: c.t('audit.at'), key: 'at', width: 180, sorter: true, render: (e) => c.dateTime(e.at) },
    { title: c.t('audit.actor'), key: 'actor', width: 130, sorter: true },
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
    { title: c.t('audit.object'), key: 'object', width: 170, sorter: true, ellipsis: { tooltip: true } },
    {
      title: c.t('audit.hash'),
      key: 'hash',
      width: 110,
      render: (e) =>
        h(NTooltip, null, {
          trigger: () => h('span', { class: 'mono muted' }, c.hash(e.hash, 6)),
          default: () => h('span', { class: 'mono break' }, e.hash),
        }),
    },
    {
      title: c.t('audit.details'),
      key: 'details',
      minWidth: 240,
      ellipsis: { tooltip: { contentStyle: { maxWidth: '520px' } } },
    },
  ]
}
