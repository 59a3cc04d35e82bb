/**
 * How long the app waits before its next round. Nothing sent: the interval. A backlog draining
 * (smaller than after the round before): at once. A backlog still growing, the ledger being written
 * faster than the vault receives (an import, a simulation): the vault gives way, a round then a
 * pause nine times as long (a tenth of a core), so that it costs the writer little, and a SQLite
 * ledger's write-ahead log can be checkpointed between reads (a reader always there holds it back).
 * It catches up after.
 */
export const GIVE_WAY_FACTOR = 9
export const GIVE_WAY_MIN_MS = 50

export interface Round {
  sent: number
  tookMs: number
  /** Events the ledger holds and the vault lacks, after this round and after the one before. */
  behind: number
  behindBefore: number
  intervalMs: number
}

export function nextWait(r: Round): number {
  if (r.sent === 0) return r.intervalMs
  if (r.behind > 0 && r.behind >= r.behindBefore) return Math.max(GIVE_WAY_MIN_MS, r.tookMs * GIVE_WAY_FACTOR)
  return 1
}
