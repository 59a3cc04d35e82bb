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

interface Link {
  key: number
  prev: number | null
  soldAt: number
}

export interface ChainHead {
  key: number
  soldAt: number
}

/** A chain whose first `fresh` links, from `head`, the batch wrote in the order they came. */
export interface LateChain {
  head: number
  fresh: number
}

/**
 * Relinks each chain onto its older part, which is in order; returns the new heads, in the
 * order given. Runs inside the batch's transaction.
 */
export type Relink = (chains: readonly LateChain[]) => ChainHead[]

/** The links to put in order: the fresh ones, and the older ones sold after the oldest of them; `next` is where they stop. */
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
      for (const part of readParts(chains.slice(i, i + CHAINS_PER_READ))) heads.push(inOrder(part, moves))
    }
    move(moves)
    return heads
  }
}

/** The part's links in order of sale, each one's new previous added to `moves` where it changes; the new head. */
function inOrder(part: ChainPart, moves: [number, number | null][]): ChainHead {
  const links = part.links.sort((a, b) => a.soldAt - b.soldAt || a.key - b.key)
  let prev = part.next
  for (const l of links) {
    if (l.prev !== prev) moves.push([l.key, prev])
    prev = l.key
  }
  const newest = links[links.length - 1]
  return { key: newest.key, soldAt: newest.soldAt }
}

/** SQLite: each chain walked link by link (a call into the library each, no round trip). */
function sqliteParts(db: Db): (chains: readonly LateChain[]) => ChainPart[] {
  const linkOf = db.prepare('SELECT prev_key, sold_at FROM sales WHERE unit_key = ?').raw()
  const read = (key: number): Link => {
    const row = linkOf.get(key) as [number | null, number] | undefined
    if (!row) throw new Error(`sale ${key} of a chain being relinked is not in the ledger`)
    return { key, prev: row[0], soldAt: row[1] }
  }
  return (chains) => chains.map(({ head, fresh }) => {
    const links: Link[] = []
    let next: number | null = head
    let oldest = { soldAt: Infinity, key: Infinity }
    for (let i = 0; i < fresh && next !== null; i++) {
      const l = read(next)
      links.push(l)
      if (soldBefore(l.soldAt, l.key, oldest.soldAt, oldest.key)) oldest = l
      next = l.prev
    }
    // the older links sold after the batch's oldest sale move too; the rest stays as it is
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
 * would be one per sale moved): each chain's first `fresh` links keep the oldest of them, and the
 * walk goes on while a link is not sold before that oldest one.
 */
function pgParts(db: Db): (chains: readonly LateChain[]) => ChainPart[] {
  const walk = db.prepare(`WITH RECURSIVE w(chain, depth, key, prev, sold_at, fresh, oldest_at, oldest_key) AS (
      SELECT c.chain, 1, s.unit_key, s.prev_key, s.sold_at, c.fresh, s.sold_at, s.unit_key
      FROM unnest(CAST(? AS bigint[]), CAST(? AS bigint[])) WITH ORDINALITY AS c(head, fresh, chain)
      JOIN sales s ON s.unit_key = c.head
      UNION ALL
      SELECT w.chain, w.depth + 1, s.unit_key, s.prev_key, s.sold_at, w.fresh,
        CASE WHEN w.depth < w.fresh AND (s.sold_at, s.unit_key) < (w.oldest_at, w.oldest_key) THEN s.sold_at ELSE w.oldest_at END,
        CASE WHEN w.depth < w.fresh AND (s.sold_at, s.unit_key) < (w.oldest_at, w.oldest_key) THEN s.unit_key ELSE w.oldest_key END
      FROM w JOIN sales s ON s.unit_key = w.prev
      WHERE w.depth < w.fresh OR (s.sold_at, s.unit_key) >= (w.oldest_at, w.oldest_key))
    SELECT chain, key, prev, sold_at FROM w ORDER BY chain, depth`).raw()
  return (chains) => {
    const parts: ChainPart[] = chains.map(() => ({ links: [], next: null }))
    const rows = (db as unknown as PgDb).byIndex(() => walk.all(chains.map((c) => c.head), chains.map((c) => c.fresh))) as [number, number, number | null, number][]
    for (const [chain, key, prev, soldAt] of rows) {
      const part = parts[chain - 1]
      part.links.push({ key, prev, soldAt })
      part.next = prev
    }
    parts.forEach((p, i) => {
      if (p.links.length === 0) throw new Error(`sale ${chains[i].head} of a chain being relinked is not in the ledger`)
    })
    return parts
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
