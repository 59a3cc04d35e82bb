/**
 * The one place a claim is made: with its sale, in the sale's transaction, whichever path sold
 * it (a sale, an import, the simulator). A sold unit whose prize reaches its emission's claim
 * threshold gets a pending claim; a smaller prize is credited with the sale (players.won_cents).
 */
import type { Db } from '../../ledger/db'
import type { Catalog } from '../catalog'

export interface ClaimBatch {
  /** The emission's claim threshold, in cents (read once per batch). */
  of(emission: number): number
  claim(unitKey: number, emission: number, playerId: number, soldAt: number, prizeCents: number): void
}

export function createClaimWriter(db: Db, catalog: Catalog): { batch(): ClaimBatch } {
  const insert = db.prepare(
    'INSERT INTO claims (unit_key, emission, player_id, sold_at, prize_cents) VALUES (?, ?, ?, ?, ?)',
  )
  return {
    batch() {
      const thresholds = new Map<number, number>()
      return {
        of(emission) {
          let t = thresholds.get(emission)
          if (t === undefined) thresholds.set(emission, (t = catalog.facts(emission).claim_threshold_cents))
          return t
        },
        claim: (key, emission, playerId, soldAt, prize) => void insert.run(key, emission, playerId, soldAt, prize),
      }
    },
  }
}
