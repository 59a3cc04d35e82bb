/**
 * Alerts when the top prizes (the two largest tiers of the table) of a block, or of a whole
 * emission, are all sold. Raised inside the sale's transaction, once each, and audited.
 */
import type { Alert } from '../contract/types'
import type { Db } from '../ledger/db'
import type { AuditService } from './audit'
import type { Catalog } from './catalog'
import { type Clock, iso } from './common'

export const TOP_TIERS = 2

export interface AlertsService {
  /** Checks the top tiers of the blocks just sold from; call inside the sale transaction. */
  checkSoldOut(emission: number, blocks: Iterable<number>): Alert[]
  list(): Alert[]
}

const EUR = (cents: number) => `${(cents / 100).toLocaleString('fr-FR').replace(/\u202f|\u00a0/g, ' ')} €`

export function createAlertsService({
  db,
  clock,
  audit,
  catalog,
}: {
  db: Db
  clock: Clock
  audit: AuditService
  catalog: Catalog
}): AlertsService {
  const blockSold = db.prepare('SELECT sold FROM block_tiers WHERE emission = ? AND block = ? AND tier = ?').pluck()
  const emissionSold = db.prepare('SELECT sum(sold) FROM block_tiers WHERE emission = ? AND tier = ?').pluck()
  const insert = db.prepare(
    'INSERT INTO alerts (kind, emission, block, amount_cents, message, at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING',
  )

  function raise(emission: number, block: number | null, amountCents: number, message: string): Alert | null {
    const at = iso(clock())
    if (insert.run('top-prizes-sold-out', emission, block, amountCents, message, at).changes === 0) return null
    audit.record(
      'system',
      'alert.top-prizes-sold-out',
      block === null ? `emission:${emission}` : `block:${emission}/${block}`,
      { amountCents, message },
    )
    return { kind: 'top-prizes-sold-out', emission, block, amountCents, message, at }
  }

  return {
    checkSoldOut(emission, blocks) {
      const def = catalog.definition(emission)
      const e = catalog.emission(emission)
      const raised: Alert[] = []
      for (let tier = 0; tier < Math.min(TOP_TIERS, def.tiers.length); tier++) {
        const { amountCents, count } = def.tiers[tier]
        let touched = false
        for (const block of blocks) {
          touched = true
          if ((blockSold.get(emission, block, tier) as number) >= count) {
            const a = raise(
              emission,
              block,
              amountCents,
              `all ${count} prizes of ${EUR(amountCents)} of block ${emission}/${block} are sold`,
            )
            if (a) raised.push(a)
          }
        }
        if (touched && (emissionSold.get(emission, tier) as number) >= count * e.blocks) {
          const a = raise(
            emission,
            null,
            amountCents,
            `all ${count * e.blocks} prizes of ${EUR(amountCents)} of emission ${emission} are sold`,
          )
          if (a) raised.push(a)
        }
      }
      return raised
    },
    list() {
      const rows = db
        .prepare(
          'SELECT kind, emission, block, amount_cents AS "amountCents", message, at FROM alerts ORDER BY id DESC',
        )
        .all() as Alert[]
      return rows
    },
  }
}
