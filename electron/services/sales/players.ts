/**
 * The players of a batch of sales (batch.ts): each sale's entry, from the connection's
 * cache, else read in one query per chunk, else created in order of first sale; and the cache
 * itself, trusted only while nothing else wrote.
 */
import type { Statement } from 'better-sqlite3'
import type { Db } from '../../ledger/db'
import type { PendingSale } from './state'
import type { SalesRows } from './rows'

/** Names looked up in one query (json_each), for the players the cache does not hold. */
const LOOKUP_CHUNK = 5000
/** Past this many players the cache starts over (about 100 bytes each). */
const MAX_CACHED_PLAYERS = 1_000_000

/**
 * What the ledger says of each player that a batch of this connection sold to: the id, so that a
 * batch reads no player it already knows. `id` holds only committed state (a batch keeps its
 * changes in the entry's batch fields; a rolled-back batch that created players drops the
 * cache, below). The cache is trusted only while nothing else
 * wrote: it is dropped when `PRAGMA data_version` says another connection committed, or when
 * this connection's `total_changes()` moved since the last merge (any other write on it, or a
 * batch that rolled back after creating players). A batch run inside an outer transaction (the
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

/** A batch's players: the entries it takes them from (the cache or its own), its stamp, and them in order of first sale. */
export interface BatchPlayers {
  entries: Map<string, PlayerEntry>
  stamp: number
  players: PlayerEntry[]
}

/** How players are read and created: `byName` takes a JSON array of names (json_each). */
export interface PlayerStore {
  byName: Statement
  rows: SalesRows
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

/**
 * A write of this connection that touches no player and no sale (a lease's heartbeat), made
 * beside the cache: a cache trusted before stays trusted. Without this, the heartbeat of a
 * simulation dropped the cache of the connection selling it, every few batches (a whole block
 * on SQLite sold a third slower, its players looked up again after each beat).
 */
export function besideCache<T>(db: Db, write: () => T): T {
  const cache = playerCacheOf(db)
  const changes = db.prepare('SELECT total_changes()').pluck()
  const before = changes.get() as number
  const result = write()
  if (cache.changes === before) cache.changes = changes.get() as number
  return result
}

/** Committed: the cache knows the connection's changes since (its players' ids are in it already). */
export function learnChanges(cache: PlayerCache, changes: number): void {
  cache.changes = changes
}

/** The entries in order of id: numbers sorted natively (id × 2^21 + place, exact below 2^53) instead of a comparator called a million times a batch. */
export function byId(list: PlayerEntry[]): PlayerEntry[] {
  if (list.length >= 2 ** 21) return list.sort((a, b) => a.id - b.id)
  const keys = new Float64Array(list.length)
  for (let i = 0; i < list.length; i++) keys[i] = list[i].id * 2 ** 21 + i
  keys.sort()
  const out: PlayerEntry[] = new Array(list.length)
  for (let i = 0; i < keys.length; i++) out[i] = list[keys[i] % 2 ** 21]
  return out
}

/** Each sale's `who`: the batch's entry for its player, the new ones looked up or created. */
export function playersOf(store: PlayerStore, b: BatchPlayers, pending: PendingSale[]): void {
  const missing: PlayerEntry[] = []
  for (let i = 0; i < pending.length; i++) pending[i].who = entryOf(b, pending[i].player, missing)
  lookUp(store, missing)
  const created = missing.filter((e) => e.id === 0)
  const ids = store.rows.newPlayers(created.map((e) => e.name))
  created.forEach((e, i) => (e.id = ids[i]))
}

/** The player's entry, its batch fields started on its first sale of the batch; unknown ones into `missing`. */
function entryOf(b: BatchPlayers, name: string, missing: PlayerEntry[]): PlayerEntry {
  let e = b.entries.get(name)
  if (e === undefined) {
    e = { name, id: 0, stamp: 0, head: null, headSoldAt: -Infinity, units: 0, staked: 0, won: 0, first: Infinity, lastAt: -Infinity }
    b.entries.set(name, e)
  }
  if (e.stamp !== b.stamp) {
    e.stamp = b.stamp
    e.head = null
    e.headSoldAt = -Infinity
    e.units = e.staked = e.won = 0
    e.first = Infinity
    e.lastAt = -Infinity
    b.players.push(e)
    if (e.id === 0) missing.push(e)
  }
  return e
}

/** The ledger's id of each player it has, one query per chunk of names. */
function lookUp(store: PlayerStore, missing: PlayerEntry[]): void {
  const byName = new Map<string, PlayerEntry>()
  for (const e of missing) byName.set(e.name, e)
  for (let i = 0; i < missing.length; i += LOOKUP_CHUNK) {
    const chunk = missing.slice(i, i + LOOKUP_CHUNK)
    const rows = store.byName.all(JSON.stringify(chunk.map((e) => e.name))) as [number, string][]
    for (const [id, name] of rows) byName.get(name)!.id = id
  }
}
