/**
 * Each player's sales form one chain, newest to oldest by time of sale and then by serial (the
 * unit key): players.last_key is the newest, and each sale's prev_key names the one sold just
 * before it. So the last unit and the nine before it (last-game recall, AGCO 13.1.1) are ten
 * lookups by primary key, with no index on the sales to keep up as they are written.
 *
 * A batch links each sale at its player's head as it writes it. A sale older than the head it
 * is linked to (a late feed) makes the batch relink that player's newest sales in order, once,
 * after its rows are written: only the sales newer than the batch's oldest one are touched.
 */
import type { Db } from '../ledger/db'
import { engineOf } from '../ledger/dialect'
import { UNIT_KEY_BLOCK } from '../ledger/migrations'
import type { PgDb } from '../ledger/pg/pg-db'

/** Whether the sale (soldAt, key) comes before the sale (otherAt, otherKey) in a chain's order. */
export function soldBefore(soldAt: number, key: number, otherAt: number, otherKey: number): boolean {
  return soldAt < otherAt || (soldAt === otherAt && key < otherKey)
}

export interface Link {
  key: number
  prev: number | null
  soldAt: number
}

export interface ChainHead {
  key: number
  soldAt: number
}

/**
 * A chain that a batch made late: the links the batch wrote for it, in the order written (each
 * one's previous is the link before it; the first one's is `before`, the chain's head before the
 * batch, null for a player's first sales).
 */
export interface LateChain {
  before: number | null
  fresh: Link[]
}

/**
 * Relinks each chain onto its older part, which is in order; returns the new heads, in the
 * order given. Runs inside the batch's transaction.
 */
export type Relink = (chains: readonly LateChain[]) => ChainHead[]

/** Where a chain's older part is read from: its head before the batch, down to the first link sold before `oldest`. */
interface OlderPart {
  before: number | null
  oldest: ChainHead
}

/** The older links sold after the oldest fresh one, newest first; `next` is where they stop. */
interface ChainPart {
  links: Link[]
  next: number | null
}

/** Chains whose part to relink is read in one statement on PostgreSQL. */
const CHAINS_PER_READ = 1000

export function createRelink(db: Db): Relink {
  const move = engineOf(db) === 'postgres' ? pgMoves(db) : sqliteMoves(db)
  const readParts = engineOf(db) === 'postgres' ? pgParts(db) : sqliteParts(db)
  return (chains) => {
    const moves: [number, number | null][] = []
    const heads: ChainHead[] = []
    for (let i = 0; i < chains.length; i += CHAINS_PER_READ) {
      const slice = chains.slice(i, i + CHAINS_PER_READ)
      const parts = readParts(slice.map((c) => ({ before: c.before, oldest: oldestOf(c.fresh) })))
      slice.forEach((c, j) => heads.push(inOrder(c.fresh.concat(parts[j].links), parts[j].next, moves)))
    }
    move(moves)
    return heads
  }
}

/** The link sold first. */
function oldestOf(links: readonly Link[]): ChainHead {
  let oldest: ChainHead = { key: Infinity, soldAt: Infinity }
  for (const l of links) if (soldBefore(l.soldAt, l.key, oldest.soldAt, oldest.key)) oldest = l
  return { key: oldest.key, soldAt: oldest.soldAt }
}

/** The links in order of sale, onto `next`, each one's new previous added to `moves` where it changes; the new head. */
function inOrder(links: Link[], next: number | null, moves: [number, number | null][]): ChainHead {
  links.sort((a, b) => a.soldAt - b.soldAt || a.key - b.key)
  let prev = next
  for (const l of links) {
    if (l.prev !== prev) moves.push([l.key, prev])
    prev = l.key
  }
  const newest = links[links.length - 1]
  return { key: newest.key, soldAt: newest.soldAt }
}

/** SQLite: each chain walked link by link (a call into the library each, no round trip). */
function sqliteParts(db: Db): (parts: readonly OlderPart[]) => ChainPart[] {
  const linkOf = db.prepare('SELECT prev_key, sold_at FROM sales WHERE unit_key = ?').raw()
  const read = (key: number): Link => {
    const row = linkOf.get(key) as [number | null, number] | undefined
    if (!row) throw new Error(`sale ${key} of a chain being relinked is not in the ledger`)
    return { key, prev: row[0], soldAt: row[1] }
  }
  return (parts) => parts.map(({ before, oldest }) => {
    const links: Link[] = []
    let next = before
    while (next !== null) {
      const l = read(next)
      if (soldBefore(l.soldAt, l.key, oldest.soldAt, oldest.key)) break
      links.push(l)
      next = l.prev
    }
    return { links, next }
  })
}

/**
 * PostgreSQL: the same walk for many chains in one recursive statement (a round trip per link
 * would be one per sale moved). Each chain's walk also returns the link it stops at (`keep`
 * false), so that a head missing from the ledger is told from a chain with nothing to move.
 */
function pgParts(db: Db): (parts: readonly OlderPart[]) => ChainPart[] {
  const walk = db.prepare(`WITH RECURSIVE w(chain, depth, key, prev, sold_at, keep, oldest_at, oldest_key) AS (
      SELECT c.chain, 1, s.unit_key, s.prev_key, s.sold_at,
        (s.sold_at, s.unit_key) >= (c.oldest_at, c.oldest_key), c.oldest_at, c.oldest_key
      FROM unnest(CAST(? AS bigint[]), CAST(? AS bigint[]), CAST(? AS bigint[])) WITH ORDINALITY AS c(head, oldest_at, oldest_key, chain)
      JOIN sales s ON s.unit_key = c.head
      UNION ALL
      SELECT w.chain, w.depth + 1, s.unit_key, s.prev_key, s.sold_at,
        (s.sold_at, s.unit_key) >= (w.oldest_at, w.oldest_key), w.oldest_at, w.oldest_key
      FROM w JOIN sales s ON s.unit_key = w.prev
      WHERE w.keep)
    SELECT chain, key, prev, sold_at, keep FROM w ORDER BY chain, depth`).raw()
  return (parts) => {
    const out: ChainPart[] = parts.map((p) => ({ links: [], next: p.before }))
    const read = parts.map((p, i) => [p, i] as const).filter(([p]) => p.before !== null)
    if (read.length === 0) return out
    const found = new Set<number>()
    const args = [read.map(([p]) => p.before), read.map(([p]) => p.oldest.soldAt), read.map(([p]) => p.oldest.key)]
    const rows = (db as unknown as PgDb).byIndex(() => walk.all(...args)) as [number, number, number | null, number, boolean][]
    for (const [chain, key, prev, soldAt, keep] of rows) {
      const i = read[chain - 1][1]
      found.add(i)
      if (keep) out[i].links.push({ key, prev, soldAt })
      out[i].next = keep ? prev : key
    }
    for (const [p, i] of read) if (!found.has(i)) throw new Error(`sale ${p.before} of a chain being relinked is not in the ledger`)
    return out
  }
}

function sqliteMoves(db: Db): (moves: [number, number | null][]) => void {
  const setPrev = db.prepare('UPDATE sales SET prev_key = ? WHERE unit_key = ?')
  return (moves) => {
    for (const [key, prev] of moves) setPrev.run(prev, key)
  }
}

/** PostgreSQL: every link moved in one statement. */
function pgMoves(db: Db): (moves: [number, number | null][]) => void {
  const setPrev = db.prepare(`UPDATE sales s SET prev_key = m.prev
    FROM unnest(CAST(? AS bigint[]), CAST(? AS bigint[])) AS m(key, prev) WHERE s.unit_key = m.key`)
  return (moves) => {
    if (moves.length > 0) (db as unknown as PgDb).byIndex(() => setPrev.run(moves.map((m) => m[0]), moves.map((m) => m[1])))
  }
}

export interface ChainOutOfOrder {
  playerId: number
  /** how many of the player's sales name as previous a sale that was not sold before them */
  count: number
  /** the first such sale found, and the previous it names */
  key: number
  soldAt: number
  prevKey: number
  prevSoldAt: number
}

/**
 * The chains' order, checked in the ledger check's one pass over the sales in key order: each
 * sale's time is kept (8 bytes a sale, in the order of the blocks), so that a sale's previous,
 * already passed when its key is lower, is compared at once; a previous with a higher key (a
 * chain relinked after a late feed) is compared once the pass is over.
 */
export class ChainOrderScan {
  private readonly times: Float64Array
  private readonly blocks = new Map<number, { from: number; sold: number }>()
  private next = 0
  private base = NaN
  private from = 0
  private sold = 0
  private readonly later: number[] = []
  private readonly bad = new Map<number, ChainOutOfOrder>()

  constructor(totalSold: number) {
    this.times = new Float64Array(totalSold)
  }

  /** The pass enters a block: its first unit's key and its sold count. */
  block(baseKey: number, sold: number): void {
    const room = Math.max(0, Math.min(sold, this.times.length - this.next))
    this.blocks.set(baseKey, { from: this.next, sold: room })
    this.base = baseKey
    this.from = this.next
    this.sold = room
    this.next += room
  }

  /** A sale of the current block (rows of no block are not kept: other checks report them). */
  sale(key: number, pid: number, prev: number | null, soldAt: number): void {
    const unit = key - this.base
    if (unit >= 0 && unit < this.sold) this.times[this.from + unit] = soldAt
    if (prev === null) return
    if (prev < key) this.compare(key, pid, prev, soldAt)
    else this.later.push(key, pid, prev, soldAt)
  }

  /** The players whose chain is out of order, once the pass is over. */
  finish(): ChainOutOfOrder[] {
    const l = this.later
    for (let i = 0; i < l.length; i += 4) this.compare(l[i], l[i + 1], l[i + 2], l[i + 3])
    return [...this.bad.values()]
  }

  private timeOf(key: number): number | undefined {
    const unit = key % UNIT_KEY_BLOCK
    const b = this.blocks.get(key - unit)
    return b && unit < b.sold ? this.times[b.from + unit] : undefined
  }

  private compare(key: number, pid: number, prev: number, soldAt: number): void {
    const prevAt = this.timeOf(prev)
    // a previous that is not a sale is the chain check's to report
    if (prevAt === undefined || soldBefore(prevAt, prev, soldAt, key)) return
    const seen = this.bad.get(pid)
    if (seen) seen.count++
    else this.bad.set(pid, { playerId: pid, count: 1, key, soldAt, prevKey: prev, prevSoldAt: prevAt })
  }
}
