/**
 * The players a connection's batches know, kept between batches (players.ts reads and creates
 * them).
 */
import type { Db } from '../../ledger/db'

/** Past this many players the cache starts over (about 100 bytes each). */
const MAX_CACHED_PLAYERS = 1_000_000

/**
 * What the ledger says of each player that a batch of this connection sold to: the id, so that a
 * batch reads no player it already knows. `id` holds only committed state (a batch keeps its
 * changes in the entry's batch fields; a rolled-back batch that created players drops the
 * cache, below). The cache is trusted only while nothing else
 * wrote: it is dropped when `PRAGMA data_version` says another connection committed, or when
 * this connection's own changes (ledger/quiet-writes.ts ownChanges: total_changes(), a lease's
 * heartbeat left out) moved since the last merge (any other write on it, or a batch that rolled
 * back after creating players). A batch run inside an outer transaction (the
 * importer's) does not use it and drops it, since that transaction may still roll back. One
 * cache per connection, shared by every sales service on it. One entry per player serves both
 * the cache and the batch, so a batch makes no object for a player the cache knows.
 */
export interface PlayerEntry {
  name: string
  /** 0 until known */
  id: number
  /** the batch that the fields below belong to */
  stamp: number
  /** the batch's newest sale by (time of sale, unit key), and when it was sold */
  head: number | null
  headSoldAt: number
  units: number
  staked: number
  won: number
  first: number
  lastAt: number
}

export interface PlayerCache {
  players: Map<string, PlayerEntry>
  dataVersion: number
  changes: number
}

const playerCaches = new WeakMap<Db, PlayerCache>()

/** The connection's cache, shared by every sales service on it. */
export function playerCacheOf(db: Db): PlayerCache {
  let cache = playerCaches.get(db)
  if (!cache) playerCaches.set(db, (cache = { players: new Map(), dataVersion: -1, changes: -1 }))
  return cache
}

/** The cache, emptied unless the ledger is as it last knew it (same data version, same changes) and not too big. */
export function freshCache(cache: PlayerCache, dataVersion: number, changes: number): Map<string, PlayerEntry> {
  if (dataVersion !== cache.dataVersion || changes !== cache.changes || cache.players.size > MAX_CACHED_PLAYERS) {
    cache.players.clear()
    cache.dataVersion = dataVersion
    cache.changes = changes
  }
  return cache.players
}

/** The cache dropped: what a batch inside an outer transaction wrote is not known to last. */
export function forgetCache(cache: PlayerCache): void {
  cache.players.clear()
  cache.changes = -1
}

/** Committed: the cache knows the connection's changes since (its players' ids are in it already). */
export function learnChanges(cache: PlayerCache, changes: number): void {
  cache.changes = changes
}
