/** The ledger check holds the prize liability's identity for every block, and names a tier off. */
import { describe, expect, it } from 'vitest'
import { checkLedgerData } from './check'
import { useClaimsWorlds } from '../../../test/support/claims-world'

const world = useClaimsWorlds('check-liability')

describe("the ledger check's prize liability", () => {
  it('holds the identity for every block and names a tier that does not add up', async () => {
    const w = await world()
    w.sell(2000, ['alice', 'bob'])
    const table = w.catalog.definition(w.emission).tiers.reduce((n, t) => n + t.amountCents * t.count, 0)
    const check = () => checkLedgerData({ db: w.db, catalog: w.catalog, clock: w.clock }, { prizes: false })
    const sound = check()
    expect(sound.liability).toEqual({ blocks: 2, tableCents: 2 * table, balanced: true })
    expect(sound.problemsByKind.LIABILITY_GAP).toBeUndefined()
    // the top prize's counter says two more were sold than have claims
    w.db.prepare('UPDATE block_tiers SET sold = sold + 2 WHERE emission = ? AND block = 2 AND tier = 0').run(w.emission)
    const off = check()
    expect(off.liability.balanced).toBe(false)
    expect(off.problems.filter((p) => p.kind === 'LIABILITY_GAP')).toMatchObject([
      { row: { emission: w.emission, block: 2, tier: 0 } },
    ])
  })
})
