/**
 * Rows sealed to the audit log (docs/trust.md, "Rows sealed to the audit log"). Each
 * security-relevant row — a staff account, a claim that took a step, an entry of the register of
 * related parties, an emission, a key ceremony — has a seal in `row_seals`: an HMAC, under a key
 * derived from the ledger key, over the row's fields and the audit entry that made its state.
 *
 * The rule is one: an audit entry names the row it changes (`touchedRow`), and the audit log
 * reseals that row when it appends the entry, inside the writer's transaction, after the writer
 * has changed it. So whoever changes a row with the `sqlite3` shell or a database account, without
 * the key, leaves a row whose seal no longer matches; a row added so (an administrator minted by
 * plain SQL) has none; an earlier state put back with its earlier seal is older than the row's
 * latest entry. The ledger check names each such row, and an account whose row is not sound cannot
 * sign in. A claim pending since its sale, that no step has touched, needs no seal: it is the
 * state the sale wrote, with no step's field set.
 */
import { createHmac } from 'node:crypto'
import { canonicalJson } from '../../../game-core/commitment'
import { parseSerial } from '../../../game-core/serial'
import type { Db } from '../../ledger/db'
import type { KeyStore } from '../../ledger/keystore'
import { unitKey } from '../../ledger/unit-key'
import type { RowRef, SealKind } from './context'
import { skeleton } from '../people'
import { DEFAULT_CLAIM_DAYS } from '../../contract/claims-types'

export const ROW_SEAL_KEY_LABEL = 'CARATS-ROW-SEAL/1'
/** The entry that sealed the rows of a ledger made before seals (migration 13), once. */
export const SEALING_ACTION = 'ledger.sealed'

interface SealSpec {
  table: string
  key: string
  /** The fields the seal covers: who may do what, and what was decided. */
  fields: readonly string[]
  /**
   * Fields added after rows were sealed, with the value every earlier row holds: covered only when
   * the row's value differs from it, so that the seals made before still hold and any change shows.
   */
  later?: Record<string, unknown>
  /** What to call the row in a finding. */
  label: (row: Record<string, unknown>) => string
}

export const SEAL_SPECS: Record<SealKind, SealSpec> = {
  user: {
    table: 'users',
    key: 'id',
    fields: [
      'name',
      'skeleton',
      'role',
      'password_hash',
      'password_salt',
      'active',
      'granted_by',
      'confirmed_by',
      'confirmed_at',
    ],
    label: (r) => `account ${r.id} "${String(r.name)}" (${String(r.role)}${r.active === 0 ? ', deactivated' : ''})`,
  },
  claim: {
    table: 'claims',
    key: 'unit_key',
    fields: [
      'emission',
      'player_id',
      'prize_cents',
      'status',
      'document',
      'document_ref',
      'verified_by',
      'approved_by',
      'signed_off_by',
      'paid_by',
      'payment_ref',
      'rejected_by',
      'rejected_from',
      'reject_reason',
    ],
    later: {
      expired_by: null,
      winner_name: null,
      winner_birth_date: null,
      payment_method: null,
      assigned_to: null,
    },
    label: (r) =>
      `claim ${String(r.unit_key)} (${String(r.status)}${r.payment_ref ? `, payment reference ${String(r.payment_ref)}` : ''})`,
  },
  party: {
    table: 'related_parties',
    key: 'id',
    fields: ['player', 'relation', 'linked_to', 'reason', 'added_by', 'removed_by', 'removed_reason'],
    label: (r) =>
      `register entry ${r.id} (${String(r.player)} linked to ${String(r.linked_to)}${r.removed_by ? ', removed' : ''})`,
  },
  emission: {
    table: 'emissions',
    key: 'emission',
    fields: ['code', 'status', 'withdrawn_reason', 'blocks', 'definition_digest', 'demo', 'claim_threshold_cents'],
    later: { claim_days: DEFAULT_CLAIM_DAYS },
    label: (r) => `emission ${r.emission} (${String(r.status)})`,
  },
  ceremony: {
    table: 'key_ceremonies',
    key: 'emission',
    fields: [
      'protocol',
      'server_hash',
      'started_by',
      'committed_by',
      'custodian_commit',
      'custodian',
      'custodian_hash',
      'custodian_source',
    ],
    label: (r) =>
      `key ceremony of emission ${r.emission}${r.custodian ? ` (second person ${String(r.custodian)})` : ''}`,
  },
}

export const SEAL_KINDS = Object.keys(SEAL_SPECS) as SealKind[]

/** The entries that change an account's row. */
export const USER_ACTIONS: ReadonlySet<string> = new Set([
  'auth.setup',
  'user.create',
  'user.update',
  'auth.password-change',
  'user.confirm',
])

const numberAfter = (object: string, prefix: string): string | null => {
  if (!object.startsWith(prefix)) return null
  const n = object.slice(prefix.length)
  return /^\d+$/.test(n) ? String(Number(n)) : null
}

function claimKey(object: string): string | null {
  if (!object.startsWith('unit:')) return null
  try {
    const u = parseSerial(object.slice('unit:'.length))
    return String(unitKey(u.emission, u.block, u.unit))
  } catch {
    return null
  }
}

function partyKey(details: string): string | null {
  try {
    const id = (JSON.parse(details) as { id?: unknown }).id
    return typeof id === 'number' && Number.isInteger(id) ? String(id) : null
  } catch {
    return null
  }
}

/** The row an audit entry changes, if it changes one that is sealed: the one rule, for the writer and the check. */
export function touchedRow(action: string, object: string, details: string): RowRef | null {
  const ref = (kind: SealKind, key: string | null): RowRef | null => (key === null ? null : { kind, key })
  if (USER_ACTIONS.has(action)) return ref('user', numberAfter(object, 'user:'))
  if (action.startsWith('claim.')) return ref('claim', claimKey(object))
  if (action === 'party.add' || action === 'party.remove') return ref('party', partyKey(details))
  if (action.startsWith('emission.')) return ref('emission', numberAfter(object, 'emission:'))
  if (action.startsWith('ceremony.')) return ref('ceremony', numberAfter(object, 'emission:'))
  return null
}

/** The value as the seal covers it: bytes in hex, integers as numbers, whatever the engine returned. */
function sealValue(v: unknown): unknown {
  if (v === null || v === undefined) return null
  if (Buffer.isBuffer(v) || v instanceof Uint8Array) return `hex:${Buffer.from(v).toString('hex')}`
  if (typeof v === 'bigint') return Number(v)
  return v
}

/** The fields a seal covers: the spec's, and each later one whose value is not its earlier rows'. */
function sealedFields(spec: SealSpec, row: Record<string, unknown>): Record<string, unknown> {
  const fields = Object.fromEntries(spec.fields.map((f) => [f, sealValue(row[f])]))
  for (const [f, before] of Object.entries(spec.later ?? {})) {
    const v = sealValue(row[f])
    if (v !== before) fields[f] = v
  }
  return fields
}

export function sealMac(sealKey: Buffer, ref: RowRef, seq: number, row: Record<string, unknown>): string {
  const fields = sealedFields(SEAL_SPECS[ref.kind], row)
  return createHmac('sha256', sealKey)
    .update(canonicalJson({ kind: ref.kind, key: ref.key, seq, fields }))
    .digest('hex')
}

export interface SealRow {
  seq: number
  mac: string
}

/** The statements of one ledger's seals, prepared once. */
export function sealStatements(db: Db) {
  const rowOf = Object.fromEntries(
    SEAL_KINDS.map((k) => [k, db.prepare(`SELECT * FROM ${SEAL_SPECS[k].table} WHERE ${SEAL_SPECS[k].key} = ?`)]),
  )
  return {
    rowOf: rowOf as Record<SealKind, ReturnType<Db['prepare']>>,
    sealOf: db.prepare('SELECT seq, mac FROM row_seals WHERE kind = ? AND key = ?'),
    upsert: db.prepare(
      'INSERT INTO row_seals (kind, key, seq, mac) VALUES (?, ?, ?, ?) ON CONFLICT (kind, key) DO UPDATE SET seq = excluded.seq, mac = excluded.mac',
    ),
    drop: db.prepare('DELETE FROM row_seals WHERE kind = ? AND key = ?'),
  }
}

export type SealStatements = ReturnType<typeof sealStatements>

/** Reseals the row as it stands now, under entry `seq`; a row gone (or never made) keeps no seal. */
export function resealRow(statements: SealStatements, keys: KeyStore, ref: RowRef, seq: number): void {
  const row = statements.rowOf[ref.kind].get(ref.key) as Record<string, unknown> | undefined
  if (!row) {
    statements.drop.run(ref.kind, ref.key)
    return
  }
  statements.upsert.run(ref.kind, ref.key, seq, sealMac(keys.derive(ROW_SEAL_KEY_LABEL), ref, seq, row))
}

/** After an entry is appended (inside its transaction): the row it changed is sealed under it. */
export function resealForEntry(
  statements: SealStatements,
  keys: KeyStore,
  e: { seq: number; action: string; object: string; details: string },
): void {
  const ref = touchedRow(e.action, e.object, e.details)
  if (ref) resealRow(statements, keys, ref, e.seq)
}

const CLAIM_STEP_FIELDS = [
  'document',
  'document_ref',
  'verified_by',
  'approved_by',
  'signed_off_by',
  'paid_by',
  'payment_ref',
  'rejected_by',
  'reject_reason',
]
/** A claim as its sale wrote it, pending with no step's field set: it needs no seal while no entry names it. */
export const isPristineClaim = (r: Record<string, unknown>) =>
  r.status === 'pending' && CLAIM_STEP_FIELDS.every((f) => r[f] === null)
const PRISTINE_CLAIM_SQL = `status = 'pending' AND ${CLAIM_STEP_FIELDS.map((f) => `${f} IS NULL`).join(' AND ')}`

/**
 * Once, in a ledger made before seals (migration 13): each account's skeleton (a look-alike of
 * an earlier account keeps none, and is named in the entry), then every row sealed under the
 * entry `ledger.sealed` that this writes, and its number kept (ledger_meta `rows_sealed`).
 * Whoever ran the app on the ledger before is trusted for what it held then; the entry says what.
 * A ledger with no row to seal (a new one) writes no entry: its number is 0.
 */
export function sealExistingRows(db: Db, keys: KeyStore, append: (details: string) => { seq: number }): number {
  const lookAlikes = fillSkeletons(db)
  const counts = Object.fromEntries(SEAL_KINDS.map((k) => [k, Number(db.prepare(countSql(k)).pluck().get())]))
  // a new ledger: nothing to seal, and no entry to say so
  if (Object.values(counts).every((n) => n === 0)) return 0
  const accounts = db.prepare('SELECT id, name, role, active FROM users ORDER BY id').all()
  const e = append(JSON.stringify({ rows: counts, accounts, lookAlikes }))
  const statements = sealStatements(db)
  for (const kind of SEAL_KINDS) {
    const { table, key } = SEAL_SPECS[kind]
    for (const k of db
      .prepare(`SELECT ${key} FROM ${table} ${kind === 'claim' ? `WHERE NOT (${PRISTINE_CLAIM_SQL})` : ''}`)
      .pluck()
      .all()) {
      resealRow(statements, keys, { kind, key: String(Number(k)) }, e.seq)
    }
  }
  return e.seq
}

const countSql = (k: SealKind) =>
  `SELECT count(*) FROM ${SEAL_SPECS[k].table} ${k === 'claim' ? `WHERE NOT (${PRISTINE_CLAIM_SQL})` : ''}`

/** Each account without a skeleton gets its own, in the order the accounts were made; a look-alike of an earlier one is listed instead. */
function fillSkeletons(db: Db): { id: number; name: string; like: string }[] {
  const taken = new Map<string, string>()
  for (const r of db.prepare('SELECT name, skeleton FROM users WHERE skeleton IS NOT NULL').all() as {
    name: string
    skeleton: string
  }[])
    taken.set(r.skeleton, r.name)
  const lookAlikes: { id: number; name: string; like: string }[] = []
  const set = db.prepare('UPDATE users SET skeleton = ? WHERE id = ?')
  for (const r of db.prepare('SELECT id, name FROM users WHERE skeleton IS NULL ORDER BY id').all() as {
    id: number
    name: string
  }[]) {
    const s = skeleton(r.name)
    const other = taken.get(s)
    if (other !== undefined) {
      lookAlikes.push({ id: Number(r.id), name: r.name, like: other })
      continue
    }
    taken.set(s, r.name)
    set.run(s, r.id)
  }
  return lookAlikes
}
