/**
 * The audit log's hash chain. Each entry's hash covers the previous entry's hash and the entry's
 * own fields (canonical JSON), so altering, deleting or inserting an entry breaks the chain from
 * that entry on. From the entry that keyed the chain (`audit.keyed`, the first of a new ledger,
 * or the one written when an older ledger was opened by this version) each hash is an HMAC under
 * a key derived from the ledger's key: rewriting the log with recomputed hashes needs the key.
 * The entries before it keep their plain SHA-256 links, and the keyed entry's HMAC covers the
 * last of them.
 */
import { createHash, createHmac } from 'node:crypto'
import { canonicalJson } from '../../../game-core/commitment'
import type { AuditCheckpointStatus } from '../../contract/types'
import type { Checkpoint, CheckpointRead } from '../../ledger/checkpoint'
import type { AuditRow } from './context'

export const GENESIS_HASH = '0'.repeat(64)
export const CHAIN_KEY_LABEL = 'CARATS-AUDIT-CHAIN/1'
export const KEYING_ACTION = 'audit.keyed'

type Fields = Pick<AuditRow, 'seq' | 'at' | 'actor' | 'action' | 'object' | 'details'>

const body = (prev: string, e: Fields) =>
  canonicalJson({ prev, seq: e.seq, at: e.at, actor: e.actor, action: e.action, object: e.object, details: e.details })

/** The plain SHA-256 link of the entries written before the chain was keyed. */
export function entryHash(prevHash: string, e: Fields): string {
  return createHash('sha256').update(body(prevHash, e)).digest('hex')
}

/** The keyed link: HMAC-SHA256 under the chain's key. */
export function entryMac(chainKey: Buffer, prevHash: string, e: Fields): string {
  return createHmac('sha256', chainKey).update(body(prevHash, e)).digest('hex')
}

/** How many broken entries a walk lists (it counts them all). */
export const AUDIT_BAD_LISTED = 1000

export interface BadEntry {
  seq: number
  reason: string
}

export interface ChainWalk {
  entries: number
  firstBad: BadEntry | null
  /** every entry that breaks the chain, in order, up to AUDIT_BAD_LISTED */
  bad: BadEntry[]
  badCount: number
  /** The hash of entry `hashAt` (asked for), if the chain reached it sound. */
  hashAt: string | null
}

/** Whether the entry follows the one before it: its number, and the previous entry's hash it holds. */
function linkProblem(r: AuditRow, expectedSeq: number, prevHash: string): string | null {
  if (r.seq !== expectedSeq)
    return r.seq > expectedSeq ? `entries ${expectedSeq}…${r.seq - 1} are missing` : `entry ${r.seq} is out of sequence`
  if (r.prev_hash !== prevHash)
    return `entry ${r.seq} does not follow entry ${r.seq - 1}: an entry was removed, inserted or altered`
  return null
}

/** Whether the entry's own hash seals its fields and the link it holds. */
function sealProblem(r: AuditRow, keyedFrom: number | null, chainKey: Buffer): string | null {
  const keyed = keyedFrom !== null && r.seq >= keyedFrom
  if (keyed && r.seq === keyedFrom && r.action !== KEYING_ACTION)
    return `entry ${r.seq} should open the keyed chain but is a ${r.action}: the log was rewritten`
  const expected = keyed ? entryMac(chainKey, r.prev_hash, r) : entryHash(r.prev_hash, r)
  return expected === r.hash ? null : `entry ${r.seq} was altered after it was written`
}

/**
 * Walks every entry in order and names each one that breaks the chain. Past a broken entry it
 * goes on from that entry's own number and hash, so an altered entry is named alone (not every
 * entry after it), and a first break hides no later one.
 */
export function walkChain(
  rows: Iterable<AuditRow>,
  keyedFrom: number | null,
  chainKey: Buffer,
  hashAt: number | null,
): ChainWalk {
  const walk: ChainWalk = {
    entries: 0,
    firstBad: null,
    bad: [],
    badCount: 0,
    hashAt: hashAt === 0 ? GENESIS_HASH : null,
  }
  let prevHash = GENESIS_HASH
  let expectedSeq = 1
  for (const r of rows) {
    const problems = [linkProblem(r, expectedSeq, prevHash), sealProblem(r, keyedFrom, chainKey)].filter(
      (p) => p !== null,
    )
    if (problems.length > 0) noteBad(walk, { seq: r.seq, reason: problems.join('; ') })
    else if (r.seq === hashAt && walk.badCount === 0) walk.hashAt = r.hash
    walk.entries++
    prevHash = r.hash
    expectedSeq = r.seq + 1
  }
  if (keyedFrom !== null && expectedSeq - 1 < keyedFrom)
    noteBad(walk, { seq: keyedFrom, reason: `entry ${keyedFrom}, which keyed the chain, is gone: the log was cut` })
  return walk
}

function noteBad(walk: ChainWalk, bad: BadEntry): void {
  walk.badCount++
  walk.firstBad ??= bad
  if (walk.bad.length < AUDIT_BAD_LISTED) walk.bad.push(bad)
}

export interface CheckpointJudgement {
  status: AuditCheckpointStatus
  problem: string | null
}

/** How the log stands against its checkpoint (the log's own chain judged apart). */
export function judgeCheckpoint(
  read: CheckpointRead,
  log: { ledgerId: string; keyedFrom: number | null; entries: number; hashAt: string | null; file: string },
): CheckpointJudgement {
  const cp = read.checkpoint
  if (cp) return judgeAgainst(cp, log)
  if (read.problem === 'altered')
    return { status: 'altered', problem: `the checkpoint ${log.file} was altered, or made under another key` }
  if (log.keyedFrom === null && log.entries === 0) return { status: 'none', problem: null }
  return {
    status: 'missing',
    problem: `the checkpoint ${log.file} is missing: nothing proves the log is whole; restore it from the backup`,
  }
}

function judgeAgainst(
  cp: Checkpoint,
  log: { ledgerId: string; keyedFrom: number | null; entries: number; hashAt: string | null },
): CheckpointJudgement {
  if (cp.ledger !== log.ledgerId)
    return {
      status: 'other-ledger',
      problem: `the checkpoint belongs to ledger ${cp.ledger}, not this one (${log.ledgerId})`,
    }
  if (cp.entries > log.entries) {
    const cut = `the checkpoint of ${cp.at} counts ${cp.entries} entries, the log holds ${log.entries}`
    return {
      status: 'cut',
      problem: `${cut}: entries were cut from its end, or the file was rolled back to an earlier copy`,
    }
  }
  if (cp.keyedFrom !== log.keyedFrom || cp.head !== log.hashAt) {
    return {
      status: 'rewritten',
      problem: `entry ${cp.entries} is not the one the checkpoint of ${cp.at} recorded: the log was rewritten or replaced`,
    }
  }
  return cp.entries < log.entries ? { status: 'behind', problem: null } : { status: 'ok', problem: null }
}
