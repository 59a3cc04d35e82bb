/**
 * The audit log as the screens list it: filtered and sorted on the server, one page at a time,
 * every query on an index (migration 7), whatever the length of the log. The text filters are a
 * prefix ignoring case (ASCII letters, as SQLite's NOCASE folds them), each a range on its own
 * index rather than a LIKE, which could not use one.
 */
import type { AuditEntry, AuditSortKey, Page, SortOrder } from '../../contract/types'
import type { Db } from '../../ledger/db'
import { indexedBy } from '../../ledger/dialect'
import type { AuditRow } from './context'

export interface AuditFilter {
  /** The start of the actor's name, ignoring case. */
  actor?: string
  /** The start of the action's code (`emission.`), ignoring case. */
  action?: string
  /** The start of the object (`emission:1`), ignoring case. */
  object?: string
  /** YYYY-MM-DD, inclusive, UTC */
  from?: string
  to?: string
}

export interface AuditListRequest extends AuditFilter {
  page: number
  pageSize: number
  sort?: AuditSortKey
  order?: SortOrder
}

/** Past every character a text can go on with: `prefix + END` bounds the texts that start with `prefix`. */
const END = '\u{10FFFF}'

/** Each filter's index (migration 7). */
const INDEX_OF = {
  actor: 'audit_by_actor_nocase',
  action: 'audit_by_action',
  object: 'audit_by_object',
  at: 'audit_by_at',
} as const

/**
 * The WHERE clause of a filter, its parameters in order, and the index of its first part: the
 * one a page is read from, so that the page costs what the count of the matches costs.
 */
export function auditWhere(f: AuditFilter): { sql: string; params: unknown[]; index: string | null } {
  const parts: string[] = []
  const params: unknown[] = []
  let index: string | null = null
  for (const column of ['actor', 'action', 'object'] as const) {
    const prefix = f[column]?.trim()
    if (!prefix) continue
    parts.push(`${column} COLLATE NOCASE >= ? AND ${column} COLLATE NOCASE < ?`)
    params.push(prefix, prefix + END)
    index ??= INDEX_OF[column]
  }
  if (f.from) {
    parts.push('at >= ?')
    params.push(f.from)
  }
  if (f.to) {
    parts.push('at < ?')
    params.push(nextDay(f.to))
  }
  if (f.from || f.to) index ??= INDEX_OF.at
  return { sql: parts.length ? `WHERE ${parts.join(' AND ')}` : '', params, index }
}

/**
 * The ORDER BY of a sort. Entries of the same actor (action, object, time) follow each other by
 * seq in the same direction: the order an index on that column holds them in.
 */
export function auditOrder(sort: AuditSortKey = 'seq', order: SortOrder = 'desc'): string {
  const dir = order === 'asc' ? 'ASC' : 'DESC'
  if (sort === 'seq') return `ORDER BY seq ${dir}`
  const column = sort === 'at' ? 'at' : `${sort} COLLATE NOCASE`
  return `ORDER BY ${column} ${dir}, seq ${dir}`
}

const toEntry = (r: AuditRow): AuditEntry => ({
  seq: r.seq,
  at: r.at,
  actor: r.actor,
  action: r.action,
  object: r.object,
  details: r.details,
  hash: r.hash,
})

/**
 * Unfiltered, a page is read from the index of its sort in order. Filtered, the entries that match
 * are read from the filter's index (as their count is: not a walk down the whole log in seq order
 * that finds few of them) and sorted, by seq from that index alone, before the page's rows are
 * read: the cost follows the matches, not the length of the log.
 */
export function listAudit(db: Db, { page, pageSize, sort, order, ...filter }: AuditListRequest): Page<AuditEntry> {
  const w = auditWhere(filter)
  const by = auditOrder(sort, order)
  const total = db
    .prepare(`SELECT count(*) FROM audit ${w.sql}`)
    .pluck()
    .get(...w.params) as number
  const rows = db
    .prepare(
      `SELECT * FROM audit WHERE seq IN (SELECT seq FROM audit ${indexedBy(db, w.index)} ${w.sql} ${by} LIMIT ? OFFSET ?) ${by}`,
    )
    .all(...w.params, pageSize, (page - 1) * pageSize) as AuditRow[]
  return { total, page, pageSize, items: rows.map(toEntry) }
}

function nextDay(day: string): string {
  const d = new Date(`${day}T00:00:00Z`)
  d.setUTCDate(d.getUTCDate() + 1)
  return d.toISOString().slice(0, 10)
}
