/**
 * The players of a batch of sales (batch.ts): each sale's entry, from the connection's
 * cache, else read in one query per chunk, else created in order of first sale; and the cache
 * itself, trusted only while nothing else wrote.
 */
import type { Statement } from 'better-sqlite3'
import type { PendingSale } from './state'
import type { SalesRows } from './rows'
import type { PlayerEntry } from './player-cache'

/** Names looked up in one query (json_each), for the players the cache does not hold. */
const LOOKUP_CHUNK = 5000

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
    e = {
      name,
      id: 0,
      stamp: 0,
      head: null,
      headSoldAt: -Infinity,
      units: 0,
      staked: 0,
      won: 0,
      first: Infinity,
      lastAt: -Infinity,
    }
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
