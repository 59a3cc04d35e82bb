/**
 * A batch's players' chain heads when writers overlap (issue 30). On a team ledger two
 * workstations may sell to one player at once (an import beside a simulation, two imports into
 * two emissions): each batch links its sales at the head it read, which the other may move before
 * this batch commits. So, once its rows are written and before its totals and heads (sales-batch.ts
 * writeTotals), a batch locks its players, in order of id (row-locks.ts lockPlayers: two batches
 * never wait for each other in a circle), and, if another connection has committed since the batch
 * began, reads their heads again: a player whose head moved has this batch's sales relinked onto
 * the new head (as a late feed's are: sale-chain.ts), and the chain stays one. The locks are held
 * to the commit, so no head moves after that. On SQLite nothing: one writer per file.
 */
import type { Db } from '../ledger/db'
import { engineOf } from '../ledger/dialect'
import { lockPlayers } from '../ledger/row-locks'
import type { ChainHead } from './sale-chain'
import type { PlayerEntry } from './sales-players'

/** Heads read per statement. */
const HEADS_PER_READ = 20_000

export interface HeadCheck {
  /** What the batch remembers as it begins: the other connections' writes seen so far. */
  begin(): number
  /** The players locked; those whose head another connection moved since `since`, with the head they have now. */
  lockAndRead(players: readonly PlayerEntry[], since: number): Map<PlayerEntry, ChainHead | null>
}

export function createHeadCheck(db: Db): HeadCheck {
  if (engineOf(db) !== 'postgres') return { begin: () => 0, lockAndRead: () => new Map() }
  const dataVersion = db.prepare('PRAGMA data_version').pluck()
  const heads = db.prepare(`SELECT p.id, p.last_key, s.sold_at FROM player_totals p LEFT JOIN sales s ON s.unit_key = p.last_key
    WHERE p.id = ANY(CAST(? AS bigint[]))`).raw()
  return {
    begin: () => dataVersion.get() as number,
    lockAndRead(players, since) {
      const moved = new Map<PlayerEntry, ChainHead | null>()
      if (players.length === 0) return moved
      lockPlayers(db, players.map((t) => t.id))
      // nobody else committed since the batch began: the heads it read are the heads
      if (dataVersion.get() === since) return moved
      const byId = new Map(players.map((t) => [t.id, t]))
      for (let i = 0; i < players.length; i += HEADS_PER_READ) {
        const ids = players.slice(i, i + HEADS_PER_READ).map((t) => t.id)
        for (const [id, key, soldAt] of heads.all([ids]) as [number, number | null, number | null][]) {
          const t = byId.get(id)!
          if (key !== t.last) moved.set(t, key === null ? null : { key, soldAt: soldAt! })
        }
      }
      return moved
    },
  }
}
