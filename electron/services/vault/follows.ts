/**
 * The one rule that ties the ledger's audit log to its vault: the last entry the vault received
 * must still be in the ledger's log with the same hash (the chain binds every entry before it).
 * A log cut below it, or rewritten at or before it, no longer extends what the vault holds: its
 * entries are not sent on top (shipper.ts), the status says so, and `audit verify` names it.
 */
import { forEachLine } from './lines'
import type { VaultSources } from './sources'

export interface Received {
  seq: number
  hash: string
}

/** What became of the vault's last entry in the ledger's log; null while the log still extends it. */
export function logProblem(received: Received, sources: Pick<VaultSources, 'entryHash' | 'lastEntry'>): string | null {
  const held = sources.entryHash(received.seq)
  if (held === null) {
    const last = sources.lastEntry()
    const cut =
      last + 1 === received.seq ? `entry ${received.seq} was cut` : `entries ${last + 1}…${received.seq} were cut`
    return `the vault received audit entries up to ${received.seq}; the ledger's log ends at ${last}: ${cut}`
  }
  if (held !== received.hash)
    return `audit entry ${received.seq} is not the one the vault received: the log was rewritten from that entry or before`
  return null
}

const AUDIT_MARK = Buffer.from('"type":"audit"')

/** The hash of each audit entry the vault received, by number (the latest, should a number come twice). */
function receivedHashes(folder: string): Map<number, string> {
  const hashes = new Map<number, string>()
  forEachLine(folder, (line) => {
    const mark = line.indexOf(AUDIT_MARK)
    if (mark === -1 || mark > 64) return // a sales line (its type comes first) or another kind
    const e = JSON.parse(line.toString('utf8')) as { seq: number; hash: string }
    hashes.set(e.seq, e.hash)
  })
  return hashes
}

/** The last entry the ledger's log and the vault still agree on, up to `upTo` (null: none). */
export function lastAgreed(folder: string, upTo: number, sources: Pick<VaultSources, 'entryHash'>): Received | null {
  const hashes = receivedHashes(folder)
  for (let seq = upTo; seq > 0; seq--) {
    const hash = hashes.get(seq)
    if (hash !== undefined && sources.entryHash(seq) === hash) return { seq, hash }
  }
  return null
}
