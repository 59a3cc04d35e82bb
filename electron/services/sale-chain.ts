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
  player: string
  /** how many of the player's sales name as previous a sale that comes after them */
  count: number
  /** the first such sale (by unit key), and the previous it names */
  key: number
  soldAt: number
  prevKey: number
  prevSoldAt: number
}

/** The players whose chain names, somewhere, a previous sale that was not sold before. */
export function chainsOutOfOrder(db: Db): ChainOutOfOrder[] {
  // with one min() in the query, SQLite takes the other bare columns from the row of that min
  return db.prepare(`
    WITH bad AS (
      SELECT s.player_id, s.unit_key, s.sold_at, p.unit_key AS prev_key, p.sold_at AS prev_sold_at
      FROM sales s JOIN sales p ON p.unit_key = s.prev_key
      WHERE p.sold_at > s.sold_at OR (p.sold_at = s.sold_at AND p.unit_key > s.unit_key)
    )
    SELECT b.player_id AS playerId, pl.name AS player, count(*) AS count, min(b.unit_key) AS key,
      b.sold_at AS soldAt, b.prev_key AS prevKey, b.prev_sold_at AS prevSoldAt
    FROM bad b LEFT JOIN players pl ON pl.id = b.player_id
    GROUP BY b.player_id ORDER BY b.player_id`).all() as ChainOutOfOrder[]
}
