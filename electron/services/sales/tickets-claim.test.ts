/**
 * The ticket inspector asks for a unit's claim only when it has one: `claimDue`, a sold unit's
 * prize at or above its emission's claim threshold, says so exactly when the claims table holds
 * the unit's claim. Both engines.
 */
import { describe, expect, it } from 'vitest'
import { formatSerial } from '../../../game-core/serial'
import { splitUnitKey } from '../../ledger/unit-key'
import { STAFF, useClaimsWorlds } from '../../../test/support/claims-world'
import { createTicketsService } from './tickets'

const world = useClaimsWorlds('tickets-claim')

describe('a ticket says whether its unit has a claim', () => {
  it('for every unit sold, winning or not, above the threshold or below', async () => {
    const w = await world()
    const tickets = createTicketsService({ db: w.db, catalog: w.catalog, audit: w.audit })
    const claimed = () => w.db.prepare('SELECT count(*) FROM claims').pluck().get() as number
    while (claimed() === 0) w.sell(400, ['P-1', 'P-2'])
    const sold = w.db.prepare('SELECT unit_key, prize_cents FROM sales ORDER BY unit_key').all() as {
      unit_key: number
      prize_cents: number
    }[]
    const withClaim = new Set(w.db.prepare('SELECT unit_key FROM claims').pluck().all() as number[])
    expect(sold.some((s) => s.prize_cents > 0 && !withClaim.has(s.unit_key))).toBe(true)
    for (const s of sold) {
      const view = tickets.get(STAFF.support, formatSerial(splitUnitKey(s.unit_key), 10_000))
      expect({ unit: s.unit_key, due: view.claimDue }).toEqual({ unit: s.unit_key, due: withClaim.has(s.unit_key) })
    }
    // an unsold unit, seen by an auditor with a reason, has none
    const unsold = formatSerial({ emission: w.emission, block: 2, unit: 9_999 }, 10_000)
    expect(tickets.get(STAFF.auditor, unsold, 'checking the inspector').claimDue).toBe(false)
  })
})
