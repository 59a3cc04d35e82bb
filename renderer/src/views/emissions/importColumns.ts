import { h } from 'vue'
import type { DataTableColumns } from 'naive-ui'
import type { ImportRecord } from '../../../../electron/contract'
import { importResultText } from './importHistory'

type Translate = (key: string, params?: Record<string, unknown>) => string

interface Ctx {
  t: Translate
  int: (n: number) => string
  dateTime: (iso: string) => string
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
      width: 230,
      render: (r) =>
        h('span', { class: `result-${r.result}`, 'data-test': 'import-result' }, importResultText(r, c.t, c.int)),
    },
  ]
}
