/**
 * The locks that let a team ledger's writers work side by side (issue 30): on PostgreSQL, a lock
 * on what two writers truly share, taken inside the caller's transaction and held until it ends.
 * On SQLite each is nothing: a file has one writer at a time, whose transaction (BEGIN IMMEDIATE)
 * holds the whole file.
 *
 * - a row both change, locked before it is read (FOR NO KEY UPDATE: other transactions' foreign
 *   keys to it do not wait): an emission whose state a step changes, a block's sale cursor, a
 *   claim, a ceremony, a batch's players (in order of id, so that two batches never wait for each
 *   other in a circle);
 * - an emission that sales are made from (FOR SHARE: sellers go on side by side, a change of its
 *   state waits for them, and they for it);
 * - a subject no row stands for, a rule over many rows (the accounts, the register, the numbering
 *   of emissions, the audit chain's head): a transaction-level advisory lock of its name.
 *
 * Where each is taken: docs/DESIGN.md, "Several writers on a team ledger".
 */
import type { Statement } from 'better-sqlite3'
import type { Db } from './db'
import { engineOf } from './dialect'

/** The advisory locks of subjects: the two-int form, first int "CARl" (the one-bigint form is the schema lock's). */
const SUBJECTS = 0x4341526c

/** Statements prepared once per connection. */
const prepared = new WeakMap<Db, Map<string, Statement>>()

function statement(db: Db, sql: string): Statement {
  let byText = prepared.get(db)
  if (!byText) prepared.set(db, (byText = new Map()))
  let s = byText.get(sql)
  if (!s) byText.set(sql, (s = db.prepare(sql)))
  return s
}

/** Whether locks are taken: on a team ledger, inside a transaction (a lock outside one would end with its statement). */
function locking(db: Db, what: string): boolean {
  if (engineOf(db) !== 'postgres') return false
  if (!db.inTransaction)
    throw new TypeError(`${what} is locked inside a transaction, which holds the lock until it ends`)
  return true
}

/** A subject no row stands for (see above), by its name: two transactions that lock one name take turns. */
export function lockSubject(db: Db, subject: string): void {
  if (locking(db, subject))
    statement(db, 'SELECT pg_advisory_xact_lock(CAST(? AS integer), hashtext(?))').get(SUBJECTS, subject)
}

/** The audit chain's head: one chain, whoever appends (services/audit/service.ts, just before it reads the head). */
export const lockAuditHead = (db: Db) => lockSubject(db, 'audit chain')

/** An emission whose state (status, blocks, ceremony, publication) the transaction reads, then changes. */
export function lockEmission(db: Db, emission: number): void {
  if (locking(db, `emission ${emission}`))
    statement(db, 'SELECT emission FROM emissions WHERE emission = ? FOR NO KEY UPDATE').get(emission)
}

/**
 * The emission sold from (shared: its state stays as read) and its blocks' sale cursors
 * (`units_sold`, the tier counters), in order of block: two writers never sell the same unit, and
 * the second reads the cursor where the first left it.
 */
export function lockCursors(db: Db, emission: number): void {
  if (!locking(db, `emission ${emission}'s sale cursor`)) return
  statement(db, 'SELECT emission FROM emissions WHERE emission = ? FOR SHARE').get(emission)
  statement(db, 'SELECT block FROM blocks WHERE emission = ? ORDER BY block FOR NO KEY UPDATE').all(emission)
}

/** A claim, read then stepped (services/claims/steps.ts). */
export function lockClaim(db: Db, unitKey: number): void {
  if (locking(db, `the claim on unit ${unitKey}`))
    statement(db, 'SELECT unit_key FROM claims WHERE unit_key = ? FOR NO KEY UPDATE').get(unitKey)
}

/** Players locked per statement: a batch's are locked a slice at a time, in order of id. */
const PLAYERS_PER_LOCK = 50_000

/**
 * A batch's players, whose totals and chain heads it writes, in order of id across the slices
 * (sorted here: whatever the caller's order, two batches lock shared players in one order).
 */
export function lockPlayers(db: Db, ids: readonly number[]): void {
  if (ids.length === 0 || !locking(db, "a batch's players")) return
  const sorted = Float64Array.from(ids).sort()
  const lock = statement(
    db,
    'SELECT id FROM players WHERE id = ANY(CAST(? AS bigint[])) ORDER BY id FOR NO KEY UPDATE',
  ).pluck()
  for (let i = 0; i < sorted.length; i += PLAYERS_PER_LOCK)
    lock.all([Array.from(sorted.subarray(i, i + PLAYERS_PER_LOCK))])
}
