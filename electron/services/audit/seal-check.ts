/**
 * The check of the rows sealed to the audit log (seals.ts): every sealed row against its seal
 * and against the audit log's latest entry about it, for `ledger check`; one account's row, for a
 * sign-in. Each finding names the row as people know it (the account and its role, the claim and
 * its payment reference, the register entry) and what is wrong with it.
 */
import type { RecordFinding, RecordsCheck } from '../../contract/types'
import type { Db } from '../../ledger/db'
import type { KeyStore } from '../../ledger/keystore'
import { readMeta } from '../../ledger/meta'
import {
  isPristineClaim,
  ROW_SEAL_KEY_LABEL,
  SEAL_KINDS,
  SEAL_SPECS,
  SEALING_ACTION,
  sealMac,
  touchedRow,
  USER_ACTIONS,
} from './seals'
import type { RowRef, SealKind } from './context'

export type SealFinding = RecordFinding
export type SealReport = RecordsCheck

interface Touch {
  seq: number
  action: string
}

/** What the log says of the sealed rows: each row's latest entry, and which row each entry is about. */
interface LogIndex {
  latest: Map<string, Touch>
  rowOfSeq: Map<number, string>
  sealings: number[]
}

const refId = (r: RowRef) => `${r.kind}:${r.key}`

const USER_ACTIONS_SQL = [...USER_ACTIONS].map((a) => `'${a}'`).join(', ')
const TOUCHING_SQL = `SELECT seq, action, object, details FROM audit WHERE action IN (${USER_ACTIONS_SQL}, 'party.add', 'party.remove', '${SEALING_ACTION}') OR action LIKE 'claim.%' OR action LIKE 'emission.%' OR action LIKE 'ceremony.%' ORDER BY seq`

function indexLog(db: Db): LogIndex {
  const index: LogIndex = { latest: new Map(), rowOfSeq: new Map(), sealings: [] }
  for (const e of db.prepare(TOUCHING_SQL).iterate() as IterableIterator<{
    seq: number
    action: string
    object: string
    details: string
  }>) {
    const seq = Number(e.seq)
    if (e.action === SEALING_ACTION) index.sealings.push(seq)
    const ref = touchedRow(e.action, e.object, e.details)
    if (!ref) continue
    index.latest.set(refId(ref), { seq, action: e.action })
    index.rowOfSeq.set(seq, refId(ref))
  }
  return index
}

interface SealedRow {
  row: Record<string, unknown>
  seal: { seq: number; mac: string } | null
}

/** What is wrong with one row, or null when its seal and the log account for it. */
function judgeRow(sealKey: Buffer, log: LogIndex, ref: RowRef, { row, seal }: SealedRow): string | null {
  const latest = log.latest.get(refId(ref))
  if (!seal) {
    if (ref.kind === 'claim' && !latest && isPristineClaim(row)) return null
    return latest
      ? `it has no seal, though entry ${latest.seq} (${latest.action}) changed it: its seal was removed outside the app`
      : 'no audit entry accounts for it: it was written outside the app (with the database, not through it)'
  }
  if (sealMac(sealKey, ref, seal.seq, row) !== seal.mac)
    return `it does not match its seal of entry ${seal.seq}: it was changed outside the app`
  if (latest && latest.seq > seal.seq)
    return `it is its state of entry ${seal.seq}, yet entry ${latest.seq} (${latest.action}) changed it since: an earlier state was put back`
  if (log.rowOfSeq.get(seal.seq) !== refId(ref) && !log.sealings.includes(seal.seq))
    return `its seal names entry ${seal.seq}, which is not about it`
  return null
}

function rowsWithSeals(db: Db, kind: SealKind): IterableIterator<Record<string, unknown>> {
  const { table, key } = SEAL_SPECS[kind]
  return db
    .prepare(
      `SELECT t.*, s.seq AS seal_seq, s.mac AS seal_mac FROM ${table} t
    LEFT JOIN row_seals s ON s.kind = ? AND s.key = CAST(t.${key} AS TEXT) ORDER BY t.${key}`,
    )
    .iterate(kind) as IterableIterator<Record<string, unknown>>
}

function splitSeal(r: Record<string, unknown>): SealedRow {
  const { seal_seq, seal_mac, ...row } = r
  return {
    row,
    seal: seal_mac === null || seal_mac === undefined ? null : { seq: Number(seal_seq), mac: String(seal_mac) },
  }
}

/** Entries about rows that are not there, and seals of no row. */
function missingRows(db: Db, log: LogIndex, seen: Set<string>): SealFinding[] {
  const findings: SealFinding[] = []
  for (const [id, t] of log.latest) {
    if (seen.has(id) || id.startsWith('ceremony:')) continue
    const [kind, key] = id.split(':') as [SealKind, string]
    findings.push({
      kind,
      key,
      row: `${kind} ${key}`,
      problem: `entry ${t.seq} (${t.action}) is about it, yet it is gone: it was deleted outside the app`,
    })
  }
  for (const s of db.prepare('SELECT kind, key, seq FROM row_seals ORDER BY kind, key').iterate() as IterableIterator<{
    kind: SealKind
    key: string
    seq: number
  }>) {
    if (!seen.has(`${s.kind}:${s.key}`) && !log.latest.has(`${s.kind}:${s.key}`)) {
      findings.push({
        kind: s.kind,
        key: s.key,
        row: `${s.kind} ${s.key}`,
        problem: `a seal of entry ${s.seq} stands for a row that is not there`,
      })
    }
  }
  return findings
}

/**
 * The rows are sealed once: by the chain's keying entry when the ledger was new (`rowsSealed`), or
 * by one `ledger.sealed` entry when a ledger made before seals was opened by this version. Any
 * other sealing entry was made by wiping the ledger's record of it, to have minted rows sealed.
 */
function sealingFindings(db: Db, log: LogIndex): SealFinding[] {
  const keyed = db
    .prepare("SELECT details FROM audit WHERE action = 'audit.keyed' ORDER BY seq LIMIT 1")
    .pluck()
    .get() as string | undefined
  const fromStart = keyed !== undefined && (JSON.parse(keyed) as { rowsSealed?: unknown }).rowsSealed === true
  const meta = readMeta(db, 'rows_sealed')
  const expected = fromStart || meta === null || meta === '0' ? [] : [Number(meta)]
  if (log.sealings.length === expected.length && log.sealings.every((s, i) => s === expected[i])) return []
  const said = log.sealings.length === 0 ? 'no entry' : `entries ${log.sealings.join(', ')}`
  const due = fromStart ? "by the chain's first entry" : `by entry ${meta ?? 'none'}`
  return [
    {
      kind: 'ledger',
      key: 'rows_sealed',
      row: 'the sealing of the rows',
      problem: `the rows were to be sealed once (${due}), and ${said} sealed them: the ledger's record of it was changed outside the app`,
    },
  ]
}

/** Every sealed row of the ledger against its seal and the log. */
export function checkRowSeals(db: Db, keys: KeyStore): SealReport {
  const sealKey = keys.derive(ROW_SEAL_KEY_LABEL)
  const log = indexLog(db)
  const findings: SealFinding[] = sealingFindings(db, log)
  const seen = new Set<string>()
  let rows = 0
  for (const kind of SEAL_KINDS) {
    for (const r of rowsWithSeals(db, kind)) {
      const sealed = splitSeal(r)
      const ref = { kind, key: String(Number(sealed.row[SEAL_SPECS[kind].key])) }
      seen.add(refId(ref))
      rows++
      const problem = judgeRow(sealKey, log, ref, sealed)
      if (problem) findings.push({ kind, key: ref.key, row: SEAL_SPECS[kind].label(sealed.row), problem })
    }
  }
  return { rows, findings: [...findings, ...missingRows(db, log, seen)] }
}

/**
 * One account's row with all its check needs, in one statement (a round trip on a team ledger,
 * and this check runs at every call): its seal, the latest entry about it, the entry its seal
 * names, and when the rows were sealed. `object = ?` as well as without case: an entry about
 * `user:12` is about that account, whatever a look-alike wrote.
 */
const ACCOUNT_SQL = `WITH touch AS (SELECT seq, action FROM audit WHERE object COLLATE NOCASE = ? AND object = ?
    AND action IN (${USER_ACTIONS_SQL}) ORDER BY seq DESC LIMIT 1)
  SELECT u.*, s.seq AS seal_seq, s.mac AS seal_mac, t.seq AS touch_seq, t.action AS touch_action,
    e.action AS sealed_by_action, e.object AS sealed_by_object, e.details AS sealed_by_details,
    (SELECT value FROM ledger_meta WHERE name = 'rows_sealed') AS rows_sealed_at
  FROM users u LEFT JOIN row_seals s ON s.kind = 'user' AND s.key = ? LEFT JOIN touch t ON 1 = 1
    LEFT JOIN audit e ON e.seq = s.seq
  WHERE u.id = ?`

/** What is wrong with one account's row (null: sound): its seal, and the latest entry about it. */
export function accountProblem(db: Db, keys: KeyStore, userId: number): string | null {
  const ref: RowRef = { kind: 'user', key: String(userId) }
  const object = `user:${userId}`
  const r = db.prepare(ACCOUNT_SQL).get(object, object, ref.key, userId) as Record<string, unknown> | undefined
  if (!r) return 'the account is gone'
  const { touch_seq, touch_action, sealed_by_action, sealed_by_object, sealed_by_details, rows_sealed_at, ...user } = r
  const sealed = splitSeal(user)
  const log: LogIndex = { latest: new Map(), rowOfSeq: new Map(), sealings: [] }
  if (touch_seq !== null && touch_seq !== undefined)
    log.latest.set(refId(ref), { seq: Number(touch_seq), action: String(touch_action) })
  if (typeof rows_sealed_at === 'string' && rows_sealed_at !== '0') log.sealings.push(Number(rows_sealed_at))
  if (sealed.seal && typeof sealed_by_action === 'string') {
    const about = touchedRow(sealed_by_action, String(sealed_by_object), String(sealed_by_details))
    if (about && refId(about) === refId(ref)) log.rowOfSeq.set(sealed.seal.seq, refId(ref))
  }
  return judgeRow(keys.derive(ROW_SEAL_KEY_LABEL), log, ref, sealed)
}
