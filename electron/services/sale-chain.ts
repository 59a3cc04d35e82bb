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
import { UNIT_KEY_BLOCK } from '../ledger/migrations'

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

/**
 * Relinks a chain whose first `fresh` links the batch wrote at its head, in the order they came,
 * onto an older part that is in order. Returns the new head. Runs inside the batch's transaction.
 */
export type Relink = (head: number, fresh: number) => ChainHead

export function createRelink(db: Db): Relink {
  const linkOf = db.prepare('SELECT prev_key, sold_at FROM sales WHERE unit_key = ?').raw()
  const setPrev = db.prepare('UPDATE sales SET prev_key = ? WHERE unit_key = ?')
  const read = (key: number): Link => {
    const row = linkOf.get(key) as [number | null, number] | undefined
    if (!row) throw new Error(`sale ${key} of a chain being relinked is not in the ledger`)
    return { key, prev: row[0], soldAt: row[1] }
  }

  return (head, fresh) => {
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
    links.sort((a, b) => a.soldAt - b.soldAt || a.key - b.key)
    let prev = next
    for (const l of links) {
      if (l.prev !== prev) setPrev.run(prev, l.key)
      prev = l.key
    }
    const newest = links[links.length - 1]
    return { key: newest.key, soldAt: newest.soldAt }
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
