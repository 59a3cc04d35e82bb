/**
 * The imports' record: each import of a sales feed leaves an entry in the audit log, in the
 * transaction of its sales (sales.import: the file's name, SHA-256, size, lines, what was
 * imported, the prize claims opened), or after a refusal, which writes nothing else
 * (sales.import-rejected: the same, with the count of bad lines, the first one and the reasons
 * grouped by kind (reasons.ts), or why the file itself was refused). The history (the contract's
 * sales:imports, `carats sales imports`) reads those entries back.
 */
import { createHash } from 'node:crypto'
import { AppError, type ErrorReasonKey } from '../../contract/errors'
import type { ImportLineError, ImportReasons, ImportRecord, ImportResult, Page } from '../../contract/types'
import { keptReasons } from './reasons'
import type { Db } from '../../ledger/db'
import type { AuditService } from '../audit'
import { type Actor, type Clock, iso } from '../common'
import type { ImportOutcome, KeySpan } from './context'

export const sha256Of = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex')

/** The import's batch row and audit entry, in the transaction of its sales. */
export function recordImport(
  db: Db,
  audit: AuditService,
  clock: Clock,
  actor: Actor,
  fileName: string | undefined,
  bytes: Uint8Array,
  outcome: ImportOutcome,
): ImportResult {
  const { counts, firstSerial, lastSerial, spans } = outcome
  const sha256 = outcome.sha256 ?? sha256Of(bytes)
  const { lines, imported, alreadyImported } = counts
  const batch = db
    .prepare(
      'INSERT INTO import_batches (file_sha256, file_name, lines, imported, already, actor, at) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id',
    )
    .pluck()
    .get(sha256, fileName ?? null, lines, imported, alreadyImported, actor.name, iso(clock())) as number
  const details = {
    fileName: fileName ?? null,
    sha256,
    bytes: bytes.length,
    lines,
    imported,
    alreadyImported,
    firstSerial,
    lastSerial,
    claims: claimsOpened(db, spans),
  }
  audit.record(actor.name, 'sales.import', `import:${batch}`, details)
  return counts
}

/**
 * The prize claims an import's sales opened, in its transaction: those of the units it sold, each
 * emission's run of them (claims/writer.ts opens a claim with its sale, and nothing else sells
 * those units: they follow on from each other, and the import holds their emissions' sale cursors).
 */
function claimsOpened(db: Db, spans: KeySpan[]): number {
  const inSpan = db.prepare('SELECT count(*) FROM claims WHERE unit_key BETWEEN ? AND ?').pluck()
  return spans.reduce((n, s) => n + Number(inSpan.get(s.from, s.to)), 0)
}

/** What a refusal records: its bad lines (their count, the first, the reasons grouped), or the reason the file itself was refused. */
export type Refusal =
  | { lines: number; badLines: number; first: ImportLineError; reasons: ImportReasons }
  | { lines: number | null; refusal: ErrorReasonKey }

/** A refused import's audit entry (nothing else was written). */
export function recordRefusal(
  audit: AuditService,
  actor: Actor,
  fileName: string | undefined,
  bytes: Uint8Array,
  refusal: Refusal,
): void {
  const why =
    'refusal' in refusal
      ? { badLines: 0, refusal: refusal.refusal }
      : { badLines: refusal.badLines, first: refusal.first, reasons: refusal.reasons }
  audit.record(actor.name, 'sales.import-rejected', 'import:rejected', {
    fileName: fileName ?? null,
    sha256: sha256Of(bytes),
    bytes: bytes.length,
    lines: refusal.lines,
    ...why,
  })
}

interface AuditRow {
  seq: number
  at: string
  actor: string
  action: string
  details: string
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null)
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null)

/** An audit entry of an import as a line of the history (entries of earlier versions lack some values: null). */
export function importRecordOf(row: AuditRow): ImportRecord {
  let d: Record<string, unknown> = {}
  try {
    d = JSON.parse(row.details) as Record<string, unknown>
  } catch {
    // a damaged entry still says who imported when; the ledger's check reports the damage
  }
  const refused = row.action === 'sales.import-rejected'
  const imported = num(d.imported) ?? 0
  const lines = num(d.lines)
  const alreadyImported = num(d.alreadyImported) ?? 0
  return {
    seq: row.seq,
    at: row.at,
    actor: row.actor,
    fileName: str(d.fileName),
    sha256: str(d.sha256),
    bytes: num(d.bytes),
    lines,
    result: refused ? 'refused' : imported === 0 && alreadyImported > 0 ? 'already' : 'imported',
    imported: refused ? 0 : imported,
    alreadyImported: refused ? 0 : alreadyImported,
    badLines: refused ? (num(d.badLines) ?? 0) : 0,
    refusal: refused ? str(d.refusal) : null,
    firstSerial: str(d.firstSerial),
    lastSerial: str(d.lastSerial),
    claims: refused ? null : num(d.claims),
    reasons: refused ? keptReasons(d) : null,
  }
}

const ACTIONS = "action IN ('sales.import', 'sales.import-rejected')"

/** One import of the history by its audit entry's number (NOT_FOUND when that entry is not an import's). */
export function importBySeq(db: Db, seq: number): ImportRecord {
  const row = db.prepare(`SELECT seq, at, actor, action, details FROM audit WHERE seq = ? AND ${ACTIONS}`).get(seq)
  if (!row)
    throw new AppError(
      'NOT_FOUND',
      `no import numbered ${seq} in the history: take the number from the import history (carats sales imports)`,
    )
  return importRecordOf(row as AuditRow)
}

/** The imports, latest first, a page at a time. */
export function listImports(db: Db, { page, pageSize }: { page: number; pageSize: number }): Page<ImportRecord> {
  const total = (db.prepare(`SELECT count(*) AS n FROM audit WHERE ${ACTIONS}`).get() as { n: number }).n
  const rows = db
    .prepare(`SELECT seq, at, actor, action, details FROM audit WHERE ${ACTIONS} ORDER BY seq DESC LIMIT ? OFFSET ?`)
    .all(pageSize, (page - 1) * pageSize) as AuditRow[]
  return { total, page, pageSize, items: rows.map(importRecordOf) }
}
