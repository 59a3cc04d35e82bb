import { h } from 'vue'
import { NButton, type DataTableColumns } from 'naive-ui'
import type { ImportRecord } from '../../../../electron/contract'
import { importResultText } from './importHistory'
import { claimsText, hasReasons } from './importReasons'

type Translate = (key: string, params?: Record<string, unknown>, plural?: number) => string

interface Ctx {
  t: Translate
  int: (n: number) => string
  dateTime: (iso: string) => string
  /** Shows a refused import's reasons. */
  onReasons: (r: ImportRecord) => void
}

/** The import history's columns: when, who, which file (its SHA-256 in full, to compare with the sender's), lines, result. */
export function createImportColumns(c: Ctx): DataTableColumns<ImportRecord> {
  const H = 'emissions.importHistory'
  return [
    { title: c.t(`${H}.at`), key: 'at', width: 170, render: (r) => c.dateTime(r.at) },
    { title: c.t(`${H}.actor`), key: 'actor', width: 110 },
    {
      title: c.t(`${H}.file`),
      key: 'fileName',
      render: (r) =>
        h('div', { class: 'file-cell' }, [
          h('div', r.fileName ?? c.t(`${H}.noName`)),
          h(
            'div',
            { class: 'mono sha', 'data-test': 'import-sha256', title: c.t(`${H}.sha256`) },
            r.sha256 ?? c.t(`${H}.noSha`),
          ),
        ]),
    },
    {
      title: c.t(`${H}.lines`),
      key: 'lines',
      width: 90,
      align: 'right',
      render: (r) => (r.lines === null ? '—' : c.int(r.lines)),
    },
    {
      title: c.t(`${H}.resultTitle`),
      key: 'result',
      width: 250,
      render: (r) => resultCell(r, c),
    },
  ]
}

/** An import's result: what it sold and the prize claims its sales opened, or why it was refused and a way to its reasons. */
function resultCell(r: ImportRecord, c: Ctx) {
  const claims = claimsText(r, c.t, c.int)
  return h('div', { class: 'result-cell', 'data-test': 'import-result' }, [
    h('div', { class: `result-${r.result}` }, importResultText(r, c.t, c.int)),
    claims === null ? null : h('div', { class: 'muted claims', 'data-test': 'import-claims' }, claims),
    hasReasons(r)
      ? h(
          NButton,
          {
            size: 'tiny',
            secondary: true,
            class: 'reasons',
            'data-test': 'import-show-reasons',
            onClick: () => c.onReasons(r),
          },
          { default: () => c.t('imports.showReasons') },
        )
      : null,
  ])
}
