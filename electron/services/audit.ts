/**
 * The append-only audit log: a keyed hash chain (audit-chain.ts) and its checkpoint outside the
 * database file (ledger/checkpoint.ts), moved on after each committed entry. The triggers in the
 * schema refuse UPDATE and DELETE; the chain catches edits made around them, and the checkpoint
 * a cut tail, a wiped log or a file rolled back.
 */
import { existsSync, readFileSync } from 'node:fs'
import { AppError } from '../contract/errors'
import type { AuditAction, AuditEntry, AuditVerification, CsvFile, Page } from '../contract/types'
import { CHECKPOINT_KEY_LABEL, checkpointFilePath, readCheckpoint, writeCheckpoint, type Checkpoint, type CheckpointRead } from '../ledger/checkpoint'
import type { Db } from '../ledger/db'
import type { KeyStore } from '../ledger/keystore'
import { readMeta, writeMeta } from '../ledger/meta'
import { CHAIN_KEY_LABEL, entryMac, GENESIS_HASH, judgeCheckpoint, KEYING_ACTION, walkChain, type AuditRow } from './audit-chain'
import { type Clock, iso } from './common'
import { writeCsv, type CsvColumn, type CsvStyle } from './csv'
import { auditWhere, listAudit, type AuditFilter, type AuditListRequest } from './audit-list'

export { entryHash, GENESIS_HASH } from './audit-chain'

export type { AuditFilter, AuditListRequest } from './audit-list'

const AUDIT_COLUMNS: CsvColumn[] = [
  { id: 'seq', kind: 'int' }, { id: 'at', kind: 'time' }, { id: 'actor', kind: 'text' }, { id: 'action', kind: 'text' },
  { id: 'object', kind: 'text' }, { id: 'details', kind: 'text' }, { id: 'hash', kind: 'text' },
]

export interface AuditService {
  /** Appends an entry; call it inside the transaction of the change it records, so both commit or neither. */
  record(actor: string, action: AuditAction, object: string, details?: Record<string, unknown>): AuditEntry
  /** Keys the chain of a ledger whose log is not keyed yet (an entry says so); nothing if it is. */
  ensureKeyed(): void
  /** Brings the checkpoint up to the log's head now (before the ledger is closed). */
  flushCheckpoint(): void
  /** Starts the checkpoint afresh at the log's head, after an administrator has seen why it failed. */
  reanchor(actor: string, reason: string): AuditEntry
  /** One page of the log, filtered and sorted on indexes (audit-list.ts). */
  list(request: AuditListRequest): Page<AuditEntry>
  /** The chain, and the log against its checkpoint (or against one read earlier: a copy's against its ledger's). */
  verify(against?: CheckpointRead): AuditVerification
  /** The checkpoint as it stands now, authenticated. */
  readCheckpoint(): CheckpointRead
  /** The log's entries under `filter`, oldest first, in the office or the machine form (csv.ts). */
  csv(filter: AuditFilter & Partial<CsvStyle>): CsvFile
  /**
   * The whole log for archiving, as JSON lines: a first line with the ledger, its key's
   * fingerprint, the verification and the checkpoint as its file holds it (MAC included), then
   * every entry with its links. Whoever holds the key can re-verify it years later.
   */
  exportLog(): { fileName: string; content: string }
  readonly checkpointFile: string
}

export interface AuditDeps {
  db: Db
  clock: Clock
  keys: KeyStore
  /** The ledger's file, beside which the checkpoint is kept (a team ledger's: beside its key file). */
  dbPath: string
  /** The key file, when given rather than found beside the ledger. */
  keyFile?: string
  /** A copy of a ledger just made (a backup, a restore): its checkpoint may start at its head. */
  startCheckpoint?: boolean
}

export function createAuditService({ db, clock, keys, dbPath, keyFile, startCheckpoint }: AuditDeps): AuditService {
  const checkpointFile = checkpointFilePath(dbPath, keyFile)
  const ledgerId = readMeta(db, 'ledger_id') ?? ''
  const last = db.prepare('SELECT seq, hash FROM audit ORDER BY seq DESC LIMIT 1')
  const hashOf = db.prepare('SELECT hash FROM audit WHERE seq = ?').pluck()
  const insert = db.prepare('INSERT INTO audit (seq, at, actor, action, object, details, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
  const keyedFrom = () => {
    const v = readMeta(db, 'audit_keyed_from')
    return v === null ? null : Number(v)
  }
  /** Set when this service wrote the first entry of a checkpoint's chain: only then may a missing checkpoint be written. */
  let mayStartCheckpoint = startCheckpoint ?? false

  function appendRow(actor: string, action: string, object: string, details: string): AuditEntry {
    const chainKey = keys.derive(CHAIN_KEY_LABEL)
    const prev = last.get() as { seq: number; hash: string } | undefined
    const seq = (prev?.seq ?? 0) + 1
    const prevHash = prev?.hash ?? GENESIS_HASH
    const at = iso(clock())
    const hash = entryMac(chainKey, prevHash, { seq, at, actor, action, object, details })
    insert.run(seq, at, actor, action, object, details, prevHash, hash)
    return { seq, at, actor, action, object, details, hash }
  }

  /** The entry that keys the chain, naming the earlier entries it seals. */
  function keyChain(): void {
    const prev = last.get() as { seq: number; hash: string } | undefined
    const details = { key: keys.fingerprint().slice(0, 16), earlierEntries: prev?.seq ?? 0, earlierHead: prev?.hash ?? GENESIS_HASH }
    const e = appendRow('system', KEYING_ACTION, `ledger:${ledgerId}`, JSON.stringify(details))
    writeMeta(db, 'audit_keyed_from', String(e.seq))
    mayStartCheckpoint = true
  }

  const holdsRecords = db.prepare('SELECT (SELECT count(*) FROM users) + (SELECT count(*) FROM emissions)').pluck()
  /**
   * A log with no entry in a ledger that holds accounts or emissions was wiped: each of those
   * was logged when it was made. Such a log is not keyed afresh over the evidence.
   */
  const wiped = () => (db.prepare('SELECT count(*) FROM audit').pluck().get() as number) === 0 && (holdsRecords.get() as number) > 0
  const wipedError = () =>
    new AppError('ILLEGAL_STATE', 'the audit log is empty, yet the ledger holds accounts or emissions: its entries were wiped. Nothing more is logged until an administrator has looked and run carats audit reanchor --reason "…"')

  // IMMEDIATE: two processes on one ledger (the app and a CLI command) never chain from the same entry.
  const append = db.transaction((actor: string, action: string, object: string, details: string, force = false): AuditEntry => {
    if (keyedFrom() === null) {
      // the chain is keyed when the service starts; unkeyed here, the log was wiped (or the key is missing)
      if (!force && wiped()) throw wipedError()
      keyChain()
    }
    return appendRow(actor, action, object, details)
  })

  let scheduled = false
  /** After the transaction that wrote an entry has ended (committed or not), the checkpoint follows the log. */
  function afterCommit(): void {
    if (!db.open) return
    if (!db.inTransaction) return advanceCheckpoint()
    if (scheduled) return
    scheduled = true
    queueMicrotask(() => {
      scheduled = false
      afterCommit()
    })
  }

  /** Moves the checkpoint to the log's head, only onward from one the log still reaches. */
  function advanceCheckpoint(force = false): void {
    const from = keyedFrom()
    const head = last.get() as { seq: number; hash: string } | undefined
    if (from === null || !head || keys.problem) return
    const cpKey = keys.derive(CHECKPOINT_KEY_LABEL)
    const now = readCheckpoint(checkpointFile, cpKey)
    if (!force && !mayMoveOn(now.checkpoint, from, head.seq)) return
    const cp: Checkpoint = { format: 'carats-audit-checkpoint/1', ledger: ledgerId, keyedFrom: from, entries: head.seq, head: head.hash, at: iso(clock()) }
    try {
      writeCheckpoint(checkpointFile, cpKey, cp)
      mayStartCheckpoint = false
    } catch (e) {
      // the entry is committed; `audit verify` shows the checkpoint behind until a write succeeds
      console.error(`carats: cannot write the audit checkpoint ${checkpointFile}: ${(e as Error).message}`)
    }
  }

  function mayMoveOn(cp: Checkpoint | null, from: number, headSeq: number): boolean {
    if (!cp) return mayStartCheckpoint
    if (cp.ledger !== ledgerId || cp.keyedFrom !== from || cp.entries >= headSeq) return false
    return hashOf.get(cp.entries) === cp.head
  }

  const currentCheckpoint = () => readCheckpoint(checkpointFile, keys.derive(CHECKPOINT_KEY_LABEL))

  function verify(against?: CheckpointRead): AuditVerification {
    const chainKey = keys.derive(CHAIN_KEY_LABEL)
    const read = against ?? currentCheckpoint()
    const from = keyedFrom()
    const entries = db.prepare('SELECT count(*) FROM audit').pluck().get() as number
    const walk = from === null && wiped()
      ? { entries: 0, firstBad: { seq: 1, reason: 'the audit log is empty, yet the ledger holds accounts or emissions: its entries were wiped' }, hashAt: null }
      : walkChain(db.prepare('SELECT * FROM audit ORDER BY seq').iterate() as IterableIterator<AuditRow>, from, chainKey, read.checkpoint?.entries ?? null)
    const judged = judgeCheckpoint(read, { ledgerId, keyedFrom: from, entries, hashAt: walk.hashAt, file: checkpointFile })
    const cp = read.checkpoint
    return {
      ok: walk.firstBad === null && judged.problem === null,
      entries,
      firstBad: walk.firstBad,
      keyedFrom: from,
      checkpoint: { file: checkpointFile, status: judged.status, entries: cp?.entries ?? null, head: cp?.head ?? null, at: cp?.at ?? null, problem: judged.problem },
    }
  }

  const service: AuditService = {
    checkpointFile,
    record(actor, action, object, details = {}) {
      const e = append.immediate(actor, action, object, JSON.stringify(details))
      afterCommit()
      return e
    },
    flushCheckpoint: afterCommit,
    ensureKeyed() {
      if (keyedFrom() !== null) return
      db.transaction(() => {
        if (keyedFrom() === null && !wiped()) keyChain()
      }).immediate()
      afterCommit()
    },
    reanchor(actor, reason) {
      const before = verify()
      const problem = before.firstBad?.reason ?? before.checkpoint.problem
      const e = append.immediate(actor, 'audit.reanchored', `ledger:${ledgerId}`, JSON.stringify({ reason, previous: before.checkpoint.status, problem }), true)
      advanceCheckpoint(true)
      return e
    },
    list: (request) => listAudit(db, request),
    verify,
    readCheckpoint: currentCheckpoint,
    exportLog() {
      const v = verify()
      const raw = existsSync(checkpointFile) ? (JSON.parse(readFileSync(checkpointFile, 'utf8')) as unknown) : null
      const head = { format: 'carats-audit-export/1', ledger: ledgerId, key: keys.fingerprint().slice(0, 16), exportedAt: iso(clock()), verification: v, checkpoint: raw }
      const rows = db.prepare('SELECT * FROM audit ORDER BY seq').all() as AuditRow[]
      const content = [head, ...rows].map((r) => JSON.stringify(r)).join('\n') + '\n'
      return { fileName: `audit-${ledgerId.slice(0, 8)}-${iso(clock()).slice(0, 10)}.jsonl`, content }
    },
    csv({ form = 'machine', locale = 'fr', ...f }) {
      const w = auditWhere(f)
      const asOf = iso(clock())
      const rows = db.prepare(`SELECT * FROM audit ${w.sql} ORDER BY seq`).all(...w.params) as AuditRow[]
      // the shared CSV writer: a name typed at sign-in such as =cmd|… lands as text, not as a formula
      const filters = (['actor', 'action', 'object'] as const).map((id) => ({ id, kind: 'text' as const, value: f[id] }))
      const about = { asOf, filters: [...filters, { id: 'from' as const, kind: 'day' as const, value: f.from }, { id: 'to' as const, kind: 'day' as const, value: f.to }] }
      const content = writeCsv({ columns: AUDIT_COLUMNS, rows: rows.map((r) => [r.seq, r.at, r.actor, r.action, r.object, r.details, r.hash]), about }, { form, locale })
      return { fileName: `audit-${asOf.slice(0, 10)}.csv`, content }
    },
  }
  // a new ledger's chain, or an older ledger's, is keyed before anything else is written
  if (!keys.problem) service.ensureKeyed()
  return service
}
