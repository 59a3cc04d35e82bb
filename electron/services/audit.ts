/**
 * The append-only audit log. Each entry's hash is SHA-256 over the previous entry's hash and the
 * entry's own fields (canonical JSON), so altering, deleting or inserting an entry breaks the
 * chain from that entry on; `verify` reports the first entry where it breaks. The triggers in the
 * schema refuse UPDATE and DELETE; the chain catches edits made around them.
 */
import { createHash } from 'node:crypto'
import { canonicalJson } from '../../game-core/commitment'
import type { AuditAction, AuditEntry, AuditVerification, CsvFile, Page } from '../contract/types'
import type { Db } from '../ledger/db'
import { type Clock, iso } from './common'

export const GENESIS_HASH = '0'.repeat(64)

export interface AuditFilter {
  actor?: string
  action?: string
  object?: string
  /** YYYY-MM-DD, inclusive, UTC */
  from?: string
  to?: string
}

interface AuditRow {
  seq: number
  at: string
  actor: string
  action: string
  object: string
  details: string
  prev_hash: string
  hash: string
}

export function entryHash(prevHash: string, e: Pick<AuditRow, 'seq' | 'at' | 'actor' | 'action' | 'object' | 'details'>): string {
  const body = canonicalJson({ prev: prevHash, seq: e.seq, at: e.at, actor: e.actor, action: e.action, object: e.object, details: e.details })
  return createHash('sha256').update(body).digest('hex')
}

export interface AuditService {
  /** Appends an entry; call it inside the transaction of the change it records, so both commit or neither. */
  record(actor: string, action: AuditAction, object: string, details?: Record<string, unknown>): AuditEntry
  list(filter: AuditFilter & { page: number; pageSize: number }): Page<AuditEntry>
  verify(): AuditVerification
  csv(filter: AuditFilter): CsvFile
}

function csvCell(v: string | number): string {
  const s = String(v)
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s
}

export function createAuditService({ db, clock }: { db: Db; clock: Clock }): AuditService {
  const last = db.prepare('SELECT seq, hash FROM audit ORDER BY seq DESC LIMIT 1')
  const insert = db.prepare('INSERT INTO audit (seq, at, actor, action, object, details, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
  // IMMEDIATE: two processes on one ledger (the app and a CLI command) never chain from the same entry.
  const append = db.transaction((actor: string, action: string, object: string, details: string): AuditEntry => {
    const prev = last.get() as { seq: number; hash: string } | undefined
    const seq = (prev?.seq ?? 0) + 1
    const prevHash = prev?.hash ?? GENESIS_HASH
    const at = iso(clock())
    const hash = entryHash(prevHash, { seq, at, actor, action, object, details })
    insert.run(seq, at, actor, action, object, details, prevHash, hash)
    return { seq, at, actor, action, object, details, hash }
  })

  function where(f: AuditFilter): { sql: string; params: unknown[] } {
    const parts: string[] = []
    const params: unknown[] = []
    if (f.actor) { parts.push('actor = ?'); params.push(f.actor) }
    if (f.action) { parts.push('action LIKE ?'); params.push(`${f.action.replace(/[%_]/g, '')}%`) }
    if (f.object) { parts.push('object LIKE ?'); params.push(`${f.object.replace(/[%_]/g, '')}%`) }
    if (f.from) { parts.push('at >= ?'); params.push(f.from) }
    if (f.to) { parts.push('at < ?'); params.push(nextDay(f.to)) }
    return { sql: parts.length ? `WHERE ${parts.join(' AND ')}` : '', params }
  }

  const toEntry = (r: AuditRow): AuditEntry => ({ seq: r.seq, at: r.at, actor: r.actor, action: r.action, object: r.object, details: r.details, hash: r.hash })

  return {
    record(actor, action, object, details = {}) {
      return append.immediate(actor, action, object, JSON.stringify(details))
    },
    list({ page, pageSize, ...f }) {
      const w = where(f)
      const total = (db.prepare(`SELECT count(*) AS n FROM audit ${w.sql}`).get(...w.params) as { n: number }).n
      const rows = db.prepare(`SELECT * FROM audit ${w.sql} ORDER BY seq DESC LIMIT ? OFFSET ?`).all(...w.params, pageSize, (page - 1) * pageSize) as AuditRow[]
      return { total, page, pageSize, items: rows.map(toEntry) }
    },
    verify() {
      let prevHash = GENESIS_HASH
      let expectedSeq = 1
      let entries = 0
      for (const r of db.prepare('SELECT * FROM audit ORDER BY seq').iterate() as IterableIterator<AuditRow>) {
        entries++
        const bad = (reason: string): AuditVerification => ({ ok: false, entries: Number((db.prepare('SELECT count(*) AS n FROM audit').get() as { n: number }).n), firstBad: { seq: r.seq, reason } })
        if (r.seq !== expectedSeq) {
          return bad(r.seq > expectedSeq ? `entries ${expectedSeq}…${r.seq - 1} are missing` : `entry ${r.seq} is out of sequence`)
        }
        if (r.prev_hash !== prevHash) return bad(`entry ${r.seq} does not follow entry ${r.seq - 1}: an entry was removed, inserted or altered`)
        if (entryHash(r.prev_hash, r) !== r.hash) return bad(`entry ${r.seq} was altered after it was written`)
        prevHash = r.hash
        expectedSeq++
      }
      return { ok: true, entries, firstBad: null }
    },
    csv(f) {
      const w = where(f)
      const rows = db.prepare(`SELECT * FROM audit ${w.sql} ORDER BY seq`).all(...w.params) as AuditRow[]
      const lines = ['seq,at,actor,action,object,details,hash', ...rows.map((r) => [r.seq, r.at, r.actor, r.action, r.object, r.details, r.hash].map(csvCell).join(','))]
      return { fileName: `audit-${iso(clock()).slice(0, 10)}.csv`, content: lines.join('\n') + '\n' }
    },
  }
}

function nextDay(day: string): string {
  const d = new Date(`${day}T00:00:00Z`)
  d.setUTCDate(d.getUTCDate() + 1)
  return d.toISOString().slice(0, 10)
}
