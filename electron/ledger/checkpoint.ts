/**
 * The audit log's checkpoint, kept outside the database file (`<ledger>.audit-checkpoint`): the
 * number of entries and the hash of the last one, authenticated under a key derived from the
 * ledger's key. A log whose tail was cut, that was wiped, or a file rolled back to an earlier
 * copy no longer reaches the checkpoint. It is rewritten (to a temporary file, then renamed)
 * after each committed entry, only onward from a checkpoint that the log still reaches.
 */
import { createHmac } from 'node:crypto'
import { readFileSync, renameSync, writeFileSync } from 'node:fs'
import { threadId } from 'node:worker_threads'
import { canonicalJson } from '../../game-core/commitment'
import { keyFilePath } from './keystore'
import { isPostgresUrl } from './location'

export const CHECKPOINT_FORMAT = 'carats-audit-checkpoint/1'
export const CHECKPOINT_KEY_LABEL = 'CARATS-AUDIT-CHECKPOINT/1'

export interface Checkpoint {
  format: typeof CHECKPOINT_FORMAT
  /** The ledger's id (ledger_meta): a checkpoint of another ledger is not taken for this one's. */
  ledger: string
  /** The first entry of the keyed chain. */
  keyedFrom: number
  /** Entries 1…entries, the last of which has the hash `head`. */
  entries: number
  head: string
  at: string
}

export type CheckpointRead =
  { checkpoint: Checkpoint; problem: null } | { checkpoint: null; problem: 'missing' | 'altered' }

/**
 * Beside a SQLite ledger's file; for a team ledger on PostgreSQL, beside this workstation's key
 * file (each workstation's checkpoint vouches for the entries it has seen).
 */
export function checkpointFilePath(dbPath: string, keyFile?: string): string {
  return isPostgresUrl(dbPath) ? `${keyFile ?? keyFilePath(dbPath)}.audit-checkpoint` : `${dbPath}.audit-checkpoint`
}

const macOf = (key: Buffer, cp: Checkpoint) => createHmac('sha256', key).update(canonicalJson(cp)).digest('hex')

function fields(o: Record<string, unknown>): Checkpoint | null {
  const { format, ledger, keyedFrom, entries, head, at } = o
  if (format !== CHECKPOINT_FORMAT || typeof ledger !== 'string' || typeof head !== 'string' || typeof at !== 'string')
    return null
  if (!Number.isSafeInteger(keyedFrom) || !Number.isSafeInteger(entries)) return null
  return { format, ledger, keyedFrom: keyedFrom as number, entries: entries as number, head, at }
}

/** The checkpoint at `path`, if its authentication holds under `key`. */
export function readCheckpoint(path: string, key: Buffer): CheckpointRead {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { checkpoint: null, problem: 'missing' }
    throw e
  }
  try {
    const o = JSON.parse(text) as Record<string, unknown>
    const cp = fields(o)
    if (cp && typeof o.mac === 'string' && o.mac === macOf(key, cp)) return { checkpoint: cp, problem: null }
  } catch {
    // not JSON: altered as much as a wrong MAC
  }
  return { checkpoint: null, problem: 'altered' }
}

/** The checkpoint as its file holds it, authenticated. */
export function checkpointText(key: Buffer, cp: Checkpoint): string {
  return JSON.stringify({ ...cp, mac: macOf(key, cp) }, null, 2) + '\n'
}

/** Replaces the checkpoint file whole (the audit service decides when it may). */
export function writeCheckpoint(path: string, key: Buffer, cp: Checkpoint): void {
  const tmp = `${path}.${process.pid}-${threadId}.tmp`
  writeFileSync(tmp, checkpointText(key, cp), { mode: 0o600 })
  renameSync(tmp, path)
}
