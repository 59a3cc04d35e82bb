/**
 * The append-only audit log: a keyed hash chain (chain.ts) and its checkpoint outside the
 * database file (ledger/checkpoint.ts), moved on after each committed entry. The triggers in the
 * schema refuse UPDATE and DELETE; the chain catches edits made around them, and the checkpoint
 * a cut tail, a wiped log or a file rolled back.
 */
import { existsSync, readFileSync } from 'node:fs'
import { AppError, because } from '../../contract/errors'
import { firstUnstorable } from '../../contract/text'
import type { AuditAction, AuditEntry, AuditVerification, CsvFile, Page, VaultComparison } from '../../contract/types'
import {
  CHECKPOINT_KEY_LABEL,
  checkpointFilePath,
  readCheckpoint,
  writeCheckpoint,
  type Checkpoint,
  type CheckpointRead,
} from '../../ledger/checkpoint'
import type { Db } from '../../ledger/db'
import type { KeyStore } from '../../ledger/keystore'
import { readMeta, writeMeta } from '../../ledger/meta'
import { lockAuditHead } from '../../ledger/row-locks'
import { CHAIN_KEY_LABEL, entryMac, GENESIS_HASH, judgeCheckpoint, KEYING_ACTION, walkChain } from './chain'
import type { AuditRow } from './context'
import { type Clock, iso } from '../common'
import { limitedLog } from '../log-limit'
import { writeCsv, type CsvColumn, type CsvStyle } from '../csv'
import { auditWhere, listAudit, type AuditFilter, type AuditListRequest } from './list'
import { accountProblem, checkRowSeals, type SealReport } from './seal-check'
import { resealForEntry, sealExistingRows, sealStatements, SEALING_ACTION, type SealStatements } from './seals'

export { entryHash, GENESIS_HASH } from './chain'

export type { AuditFilter, AuditListRequest } from './list'

const AUDIT_COLUMNS: CsvColumn[] = [
  { id: 'seq', kind: 'int' },
  { id: 'at', kind: 'time' },
  { id: 'actor', kind: 'text' },
  { id: 'action', kind: 'text' },
  { id: 'object', kind: 'text' },
  { id: 'details', kind: 'text' },
  { id: 'hash', kind: 'text' },
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
  /** One page of the log, filtered and sorted on indexes (list.ts). */
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
  /** Every sealed row against its seal and the log (seal-check.ts): the rows the log does not account for. */
  checkRecords(): SealReport
  /** What is wrong with an account's row (null: sound): an account whose row is not sound cannot sign in. */
  accountProblem(userId: number): string | null
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
  /** The log held against the ledger's vault, if it has one (services/vault): verify adds its findings. */
  vaultCheck?: () => VaultComparison | null
}

/** What the audit log's functions share: the ledger, its key, the checkpoint's file, the statements prepared once. */
interface AuditContext {
  db: Db
  clock: Clock
  keys: KeyStore
  checkpointFile: string
  ledgerId: string
  statements: ReturnType<typeof prepareAuditStatements>
  /** The rows sealed to the log (seals.ts): an entry reseals the row it changed. */
  seals: SealStatements
  /** Appends an entry in an IMMEDIATE transaction (appendEntry), keying the chain first if it is not. */
  append: (actor: string, action: string, object: string, details: string, force?: boolean) => AuditEntry
  vaultCheck: () => VaultComparison | null
  state: {
    /** Set when this service wrote the first entry of a checkpoint's chain: only then may a missing checkpoint be written. */
    mayStartCheckpoint: boolean
    /** A checkpoint move is queued for after the current transaction. */
    scheduled: boolean
  }
}

function prepareAuditStatements(db: Db) {
  return {
    last: db.prepare('SELECT seq, hash FROM audit ORDER BY seq DESC LIMIT 1'),
    hashOf: db.prepare('SELECT hash FROM audit WHERE seq = ?').pluck(),
    insert: db.prepare(
      'INSERT INTO audit (seq, at, actor, action, object, details, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    ),
    holdsRecords: db.prepare('SELECT (SELECT count(*) FROM users) + (SELECT count(*) FROM emissions)').pluck(),
  }
}

function buildContext({ db, clock, keys, dbPath, keyFile, startCheckpoint, vaultCheck }: AuditDeps): AuditContext {
  const ctx: AuditContext = {
    db,
    clock,
    keys,
    checkpointFile: checkpointFilePath(dbPath, keyFile),
    ledgerId: readMeta(db, 'ledger_id') ?? '',
    statements: prepareAuditStatements(db),
    seals: sealStatements(db),
    append: () => {
      throw new Error('the audit log is not ready')
    },
    vaultCheck: vaultCheck ?? (() => null),
    state: { mayStartCheckpoint: startCheckpoint ?? false, scheduled: false },
  }
  // IMMEDIATE (at each call): two processes on one ledger (the app and a CLI command) never chain from the same entry.
  const append = db.transaction((actor: string, action: string, object: string, details: string, force = false) =>
    appendEntry(ctx, actor, action, object, details, force),
  )
  ctx.append = (...args) => append.immediate(...args)
  return ctx
}

function keyedFrom({ db }: AuditContext): number | null {
  const v = readMeta(db, 'audit_keyed_from')
  return v === null ? null : Number(v)
}

/**
 * An entry's texts as the ledger will store them: a lone surrogate or a NUL would be stored
 * otherwise than sealed (SQLite writes invalid UTF-8, PostgreSQL refuses it or writes U+FFFD),
 * and the chain would break for good at that entry. Its details are JSON, whose escapes keep any
 * string; its actor and object are stored raw, so such an entry is refused, and with it the change
 * it records (the same transaction). The contract refuses these texts first (contract/text.ts).
 */
function sealable(actor: string, object: string, details: string): void {
  for (const [field, text] of [
    ['actor', actor],
    ['object', object],
    ['details', details],
  ] as const) {
    const p = firstUnstorable(text)
    if (!p) continue
    throw new AppError(
      'BAD_ARGUMENTS',
      `the audit entry's ${field} holds ${p.char} at character ${p.position}, which no ledger stores as it is: nothing was written`,
      { field, ...because('AUDIT_TEXT_REFUSED', { field, char: p.char, position: p.position }) },
    )
  }
}

function appendRow(
  { keys, clock, seals, statements: { last, insert } }: AuditContext,
  actor: string,
  action: string,
  object: string,
  details: string,
): AuditEntry {
  sealable(actor, object, details)
  const chainKey = keys.derive(CHAIN_KEY_LABEL)
  const prev = last.get() as { seq: number; hash: string } | undefined
  const seq = (prev?.seq ?? 0) + 1
  const prevHash = prev?.hash ?? GENESIS_HASH
  const at = iso(clock())
  const hash = entryMac(chainKey, prevHash, { seq, at, actor, action, object, details })
  insert.run(seq, at, actor, action, object, details, prevHash, hash)
  resealForEntry(seals, keys, { seq, action, object, details })
  return { seq, at, actor, action, object, details, hash }
}

/** The entry that keys the chain, naming the earlier entries it seals. */
function keyChain(ctx: AuditContext): void {
  const {
    db,
    keys,
    ledgerId,
    statements: { last },
  } = ctx
  const prev = last.get() as { seq: number; hash: string } | undefined
  // a chain keyed on a ledger with no record yet seals its rows from the start: no later `ledger.sealed` may stand
  const rowsSealed = Number(ctx.statements.holdsRecords.get()) === 0
  const details = {
    key: keys.fingerprint().slice(0, 16),
    earlierEntries: prev?.seq ?? 0,
    earlierHead: prev?.hash ?? GENESIS_HASH,
    rowsSealed,
  }
  const e = appendRow(ctx, 'system', KEYING_ACTION, `ledger:${ledgerId}`, JSON.stringify(details))
  writeMeta(db, 'audit_keyed_from', String(e.seq))
  ctx.state.mayStartCheckpoint = true
}

/**
 * A log with no entry in a ledger that holds accounts or emissions was wiped: each of those
 * was logged when it was made. Such a log is not keyed afresh over the evidence.
 */
const wiped = ({ db, statements: { holdsRecords } }: AuditContext) =>
  (db.prepare('SELECT count(*) FROM audit').pluck().get() as number) === 0 && (holdsRecords.get() as number) > 0
const wipedError = () =>
  new AppError(
    'ILLEGAL_STATE',
    'the audit log is empty, yet the ledger holds accounts or emissions: its entries were wiped. Nothing more is logged until an administrator has looked and run carats audit reanchor --reason "…"',
  )

/** The body of ctx.append, inside its transaction: the chain's head locked first (a team ledger's writers overlap). */
function appendEntry(
  ctx: AuditContext,
  actor: string,
  action: string,
  object: string,
  details: string,
  force: boolean,
): AuditEntry {
  lockAuditHead(ctx.db)
  if (keyedFrom(ctx) === null) {
    // the chain is keyed when the service starts; unkeyed here, the key is missing (said as
    // itself: a key file that could not be written is not a wiped log) or the log was wiped
    if (ctx.keys.problem) throw ctx.keys.problem
    if (!force && wiped(ctx)) throw wipedError()
    keyChain(ctx)
  }
  return appendRow(ctx, actor, action, object, details)
}

/** After the transaction that wrote an entry has ended (committed or not), the checkpoint follows the log. */
function afterCommit(ctx: AuditContext): void {
  const { db, state } = ctx
  if (!db.open) return
  if (!db.inTransaction) return advanceCheckpoint(ctx)
  if (state.scheduled) return
  state.scheduled = true
  queueMicrotask(() => {
    state.scheduled = false
    afterCommit(ctx)
  })
}

/** Moves the checkpoint to the log's head, only onward from one the log still reaches. */
function advanceCheckpoint(ctx: AuditContext, force = false): void {
  const {
    keys,
    clock,
    checkpointFile,
    ledgerId,
    statements: { last },
  } = ctx
  const from = keyedFrom(ctx)
  const head = last.get() as { seq: number; hash: string } | undefined
  if (from === null || !head || keys.problem) return
  const cpKey = keys.derive(CHECKPOINT_KEY_LABEL)
  const now = readCheckpoint(checkpointFile, cpKey)
  if (!force && !mayMoveOn(ctx, now.checkpoint, from, head.seq)) return
  const cp: Checkpoint = {
    format: 'carats-audit-checkpoint/1',
    ledger: ledgerId,
    keyedFrom: from,
    entries: head.seq,
    head: head.hash,
    at: iso(clock()),
  }
  try {
    writeCheckpoint(checkpointFile, cpKey, cp)
    ctx.state.mayStartCheckpoint = false
  } catch (e) {
    // the entry is committed; `audit verify` shows the checkpoint behind until a write succeeds
    limitedLog(
      'audit-checkpoint',
      `carats: cannot write the audit checkpoint ${checkpointFile}: ${(e as Error).message}`,
    )
  }
}

function mayMoveOn(
  { ledgerId, state, statements: { hashOf } }: AuditContext,
  cp: Checkpoint | null,
  from: number,
  headSeq: number,
): boolean {
  if (!cp) return state.mayStartCheckpoint
  if (cp.ledger !== ledgerId || cp.keyedFrom !== from || cp.entries >= headSeq) return false
  return hashOf.get(cp.entries) === cp.head
}

const currentCheckpoint = ({ checkpointFile, keys }: AuditContext) =>
  readCheckpoint(checkpointFile, keys.derive(CHECKPOINT_KEY_LABEL))

function verify(ctx: AuditContext, against?: CheckpointRead): AuditVerification {
  const { db, keys, ledgerId, checkpointFile } = ctx
  const chainKey = keys.derive(CHAIN_KEY_LABEL)
  const read = against ?? currentCheckpoint(ctx)
  const from = keyedFrom(ctx)
  const entries = db.prepare('SELECT count(*) FROM audit').pluck().get() as number
  const wipedEntry = {
    seq: 1,
    reason: 'the audit log is empty, yet the ledger holds accounts or emissions: its entries were wiped',
  }
  const walk =
    from === null && wiped(ctx)
      ? { entries: 0, firstBad: wipedEntry, bad: [wipedEntry], badCount: 1, hashAt: null }
      : walkChain(
          db.prepare('SELECT * FROM audit ORDER BY seq').iterate() as IterableIterator<AuditRow>,
          from,
          chainKey,
          read.checkpoint?.entries ?? null,
        )
  const judged = judgeCheckpoint(read, {
    ledgerId,
    keyedFrom: from,
    entries,
    hashAt: walk.hashAt,
    file: checkpointFile,
  })
  const cp = read.checkpoint
  // a copy (a backup) is older than the vault by nature: only the ledger itself is held against it
  const vault = against ? null : ctx.vaultCheck()
  return {
    ok: walk.firstBad === null && judged.problem === null && (vault?.ok ?? true),
    entries,
    firstBad: walk.firstBad,
    bad: walk.bad,
    badCount: walk.badCount,
    keyedFrom: from,
    checkpoint: {
      file: checkpointFile,
      status: judged.status,
      entries: cp?.entries ?? null,
      head: cp?.head ?? null,
      at: cp?.at ?? null,
      problem: judged.problem,
    },
    vault,
  }
}

function record(
  ctx: AuditContext,
  actor: string,
  action: AuditAction,
  object: string,
  details: Record<string, unknown> = {},
): AuditEntry {
  const e = ctx.append(actor, action, object, JSON.stringify(details))
  afterCommit(ctx)
  return e
}

function ensureKeyed(ctx: AuditContext): void {
  if (keyedFrom(ctx) !== null) return
  ctx.db
    .transaction(() => {
      lockAuditHead(ctx.db)
      if (keyedFrom(ctx) === null && !wiped(ctx)) keyChain(ctx)
    })
    .immediate()
  afterCommit(ctx)
}

/** A ledger made before seals has its rows sealed once, under one entry (seals.ts); a new one just notes it has nothing to seal. */
function ensureSealed(ctx: AuditContext): void {
  const { db, keys, ledgerId } = ctx
  if (readMeta(db, 'rows_sealed') !== null || keyedFrom(ctx) === null) return
  db.transaction(() => {
    lockAuditHead(db)
    if (readMeta(db, 'rows_sealed') !== null) return
    const seq = sealExistingRows(db, keys, (details) =>
      appendRow(ctx, 'system', SEALING_ACTION, `ledger:${ledgerId}`, details),
    )
    writeMeta(db, 'rows_sealed', String(seq))
  }).immediate()
  afterCommit(ctx)
}

function reanchor(ctx: AuditContext, actor: string, reason: string): AuditEntry {
  const before = verify(ctx)
  const problem = before.firstBad?.reason ?? before.checkpoint.problem
  const e = ctx.append(
    actor,
    'audit.reanchored',
    `ledger:${ctx.ledgerId}`,
    JSON.stringify({ reason, previous: before.checkpoint.status, problem }),
    true,
  )
  advanceCheckpoint(ctx, true)
  return e
}

function exportLog(ctx: AuditContext): { fileName: string; content: string } {
  const { db, keys, clock, checkpointFile, ledgerId } = ctx
  const v = verify(ctx)
  const raw = existsSync(checkpointFile) ? (JSON.parse(readFileSync(checkpointFile, 'utf8')) as unknown) : null
  const head = {
    format: 'carats-audit-export/1',
    ledger: ledgerId,
    key: keys.fingerprint().slice(0, 16),
    exportedAt: iso(clock()),
    verification: v,
    checkpoint: raw,
  }
  const rows = db.prepare('SELECT * FROM audit ORDER BY seq').all() as AuditRow[]
  const content = [head, ...rows].map((r) => JSON.stringify(r)).join('\n') + '\n'
  return { fileName: `audit-${ledgerId.slice(0, 8)}-${iso(clock()).slice(0, 10)}.jsonl`, content }
}

function auditCsv(
  { db, clock }: AuditContext,
  { form = 'machine', locale = 'fr', ...f }: AuditFilter & Partial<CsvStyle>,
): CsvFile {
  const w = auditWhere(f)
  const asOf = iso(clock())
  const rows = db.prepare(`SELECT * FROM audit ${w.sql} ORDER BY seq`).all(...w.params) as AuditRow[]
  // the shared CSV writer: a name typed at sign-in such as =cmd|… lands as text, not as a formula
  const filters = (['actor', 'action', 'object'] as const).map((id) => ({ id, kind: 'text' as const, value: f[id] }))
  const about = {
    asOf,
    filters: [
      ...filters,
      { id: 'from' as const, kind: 'day' as const, value: f.from },
      { id: 'to' as const, kind: 'day' as const, value: f.to },
    ],
  }
  const content = writeCsv(
    {
      columns: AUDIT_COLUMNS,
      rows: rows.map((r) => [r.seq, r.at, r.actor, r.action, r.object, r.details, r.hash]),
      about,
    },
    { form, locale },
  )
  return { fileName: `audit-${asOf.slice(0, 10)}.csv`, content }
}

export function createAuditService(deps: AuditDeps): AuditService {
  const ctx = buildContext(deps)
  const service: AuditService = {
    checkpointFile: ctx.checkpointFile,
    record: (actor, action, object, details) => record(ctx, actor, action, object, details),
    flushCheckpoint: () => afterCommit(ctx),
    ensureKeyed: () => ensureKeyed(ctx),
    reanchor: (actor, reason) => reanchor(ctx, actor, reason),
    list: (request) => listAudit(ctx.db, request),
    verify: (against) => verify(ctx, against),
    readCheckpoint: () => currentCheckpoint(ctx),
    exportLog: () => exportLog(ctx),
    csv: (filter) => auditCsv(ctx, filter),
    checkRecords: () => checkRowSeals(ctx.db, ctx.keys),
    accountProblem: (userId) => accountProblem(ctx.db, ctx.keys, userId),
  }
  // a new ledger's chain, or an older ledger's, is keyed before anything else is written
  if (!deps.keys.problem) service.ensureKeyed()
  if (!deps.keys.problem) ensureSealed(ctx)
  return service
}
