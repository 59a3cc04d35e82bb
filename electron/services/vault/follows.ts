/**
 * The one rule that ties the ledger's audit log to its vault: the last entry the vault received
 * must still be in the ledger's log with the same hash (the chain binds every entry before it).
 * A log cut below it, or rewritten at or before it, no longer extends what the vault holds: its
 * entries are not sent on top (shipper.ts), the status says so, and `audit verify` names it.
 */
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
    return `the vault received audit entries up to ${received.seq}; the ledger's log ends at ${last}: entries ${last + 1}…${received.seq} were cut`
  }
  if (held !== received.hash)
    return `audit entry ${received.seq} is not the one the vault received: the log was rewritten from that entry or before`
  return null
}
