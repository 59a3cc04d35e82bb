/**
 * The vault read as a regulator reads it: the events it received on a day, filtered by kind and
 * by any text of their lines, a page at a time; and days taken out as one file of the same lines
 * (the command line's `vault export` gives the verifiable folder).
 */
import { statSync } from 'node:fs'
import { join } from 'node:path'
import { AppError, because } from '../../contract/errors'
import type { CsvFile, Page, VaultEventView } from '../../contract/types'
import { eventFileName, EVENTS_DIR } from './format'
import { eventFiles, forEachLine } from './lines'

/** The largest download of days from the screen; beyond, the command line's export. */
export const SCREEN_EXPORT_MAX_BYTES = 256 << 20

export interface EventQuery {
  day: string
  type?: 'sales' | 'audit'
  text?: string
  page: number
  pageSize: number
}

function viewOf(line: string): VaultEventView {
  const e = JSON.parse(line) as Record<string, unknown>
  const sales = e.sales as { serial: string }[] | undefined
  const what = sales
    ? `${e.emission}: ${sales.length} sales, ${sales[0]?.serial} … ${sales[sales.length - 1]?.serial}`
    : e.type === 'resumed'
      ? `${e.by}: ${e.reason}`
      : `${e.action} ${e.object}`
  return { i: Number(e.i), at: String(e.at), type: String(e.type), what, line }
}

export function listVaultEvents(folder: string, q: EventQuery): Page<VaultEventView> {
  const file = eventFileName(q.day)
  const typeMark = q.type ? `"type":"${q.type}"` : null
  const text = q.text?.trim().toLowerCase() || null
  const from = (q.page - 1) * q.pageSize
  const items: VaultEventView[] = []
  let total = 0
  forEachLine(
    folder,
    (bytes) => {
      const line = bytes.toString('utf8')
      if (typeMark && !line.includes(typeMark)) return
      if (text && !line.toLowerCase().includes(text)) return
      if (total >= from && items.length < q.pageSize) items.push(viewOf(line))
      total++
    },
    (name) => name === file,
  )
  return { total, page: q.page, pageSize: q.pageSize, items }
}

/** The lines of the days `from`…`to`, in order, as one JSON-lines file. */
export function daysFile(folder: string, from: string, to: string): CsvFile {
  const files = eventFiles(folder).filter((n) => n.slice(0, 10) >= from && n.slice(0, 10) <= to)
  const bytes = files.reduce((n, f) => n + statSync(join(folder, EVENTS_DIR, f)).size, 0)
  if (bytes > SCREEN_EXPORT_MAX_BYTES)
    throw new AppError(
      'BAD_ARGUMENTS',
      `the days ${from} to ${to} hold ${bytes} bytes, more than a screen downloads: take fewer days, or run carats vault export`,
      { field: 'to', ...because('VAULT_EXPORT_TOO_LARGE', { from, to, bytes }) },
    )
  const lines: string[] = []
  forEachLine(
    folder,
    (line) => void lines.push(line.toString('utf8')),
    (n) => files.includes(n),
  )
  return { fileName: `vault-${from}-${to}.jsonl`, content: lines.length ? lines.join('\n') + '\n' : '' }
}
