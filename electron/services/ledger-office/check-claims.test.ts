/**
 * The ledger check holds the claims against the sales: every sold unit whose prize reaches its
 * emission's threshold has exactly one claim, of the same player, prize and time of sale, and no
 * claim is without such a sale. The file is tampered with behind the services' back (triggers
 * dropped), as an editor of the file would.
 */
import { describe, expect, it } from 'vitest'
import { formatSerial } from '../../../game-core/serial'
import { engineOf } from '../../ledger/dialect'
import { splitUnitKey, unitKey } from '../../ledger/unit-key'
import { useClaimsWorlds, type ClaimsWorld } from '../../../test/support/claims-world'
import { checkLedgerData, type LedgerDataCheck } from './check'

const world = useClaimsWorlds('ledger-check-claims')
const check = (w: ClaimsWorld) => checkLedgerData({ db: w.db, catalog: w.catalog })
const serialOf = (key: number) => formatSerial(splitUnitKey(key), 10_000)
/** A rule of the claims table dropped, as an editor of the ledger would (PostgreSQL names the trigger's table). */
const dropTrigger = (w: ClaimsWorld, name: string) =>
  w.db.exec(`DROP TRIGGER ${name}${engineOf(w.db) === 'postgres' ? ' ON claims' : ''}`)
const claimKinds = (r: LedgerDataCheck) => r.problems.filter((p) => p.kind.startsWith('CLAIM_'))

async function sold(): Promise<ClaimsWorld> {
  const w = await world()
  w.sell(1500, ['alice', 'bob'])
  return w
}
const firstClaim = (w: ClaimsWorld) =>
  w.db.prepare('SELECT unit_key, player_id, prize_cents, sold_at FROM claims ORDER BY unit_key LIMIT 1').get() as {
    unit_key: number
    player_id: number
    prize_cents: number
    sold_at: number
  }

describe('the ledger check, claims against sales', () => {
  it('finds nothing wrong when every due sale has its claim', async () => {
    const w = await sold()
    expect(w.db.prepare('SELECT count(*) FROM claims').pluck().get() as number).toBeGreaterThan(3)
    const r = check(w)
    expect(r.problems).toEqual([])
    expect(r.ok).toBe(true)
  })

  it('names a sale at or above the threshold whose claim was deleted', async () => {
    const w = await sold()
    const c = firstClaim(w)
    dropTrigger(w, 'claims_no_delete')
    w.db.prepare('DELETE FROM claims WHERE unit_key = ?').run(c.unit_key)
    const r = check(w)
    expect(r.ok).toBe(false)
    // the claim's prize is gone from the block's liability too: its tier no longer adds up
    expect(r.problemsByKind).toEqual({ CLAIM_MISSING: 1, LIABILITY_GAP: 1 })
    expect(r.problems.filter((p) => p.kind === 'CLAIM_MISSING')).toEqual([
      expect.objectContaining({
        kind: 'CLAIM_MISSING',
        row: expect.objectContaining({ serial: serialOf(c.unit_key), unitKey: c.unit_key }),
        recomputed: c.prize_cents,
      }),
    ])
    expect(claimKinds(r)[0].message).toContain(`sale ${serialOf(c.unit_key)} won ${c.prize_cents} cents`)
  })

  it('names a claim with no sale behind it: of an unsold unit, and of a sale below the threshold', async () => {
    const w = await sold()
    const unsold = unitKey(w.emission, 2, 17)
    const small = w.db
      .prepare('SELECT unit_key, player_id, sold_at FROM sales WHERE prize_cents < 10000 ORDER BY unit_key LIMIT 1')
      .get() as { unit_key: number; player_id: number; sold_at: number }
    const ins = w.db.prepare(
      'INSERT INTO claims (unit_key, emission, player_id, sold_at, prize_cents) VALUES (?, ?, ?, ?, ?)',
    )
    ins.run(unsold, w.emission, small.player_id, small.sold_at, 500_000)
    ins.run(small.unit_key, w.emission, small.player_id, small.sold_at, 10_000)
    const r = check(w)
    expect(claimKinds(r).map((p) => [p.kind, p.row.serial])).toEqual([
      ['CLAIM_WITHOUT_SALE', serialOf(small.unit_key)],
      ['CLAIM_WITHOUT_SALE', serialOf(unsold)],
    ])
    // the claim of 100 € on a smaller sale is counted in the 100 € tier, which then has one claim too many
    expect(r.problemsByKind).toEqual({ CLAIM_WITHOUT_SALE: 2, LIABILITY_GAP: 1 })
    expect(claimKinds(r)[1].message).toContain('is not sold')
  })

  it("names a claim whose player, prize or time of sale is not its sale's", async () => {
    const w = await sold()
    const c = firstClaim(w)
    const other = w.db.prepare('SELECT id FROM players WHERE id <> ? LIMIT 1').pluck().get(c.player_id) as number
    dropTrigger(w, 'claims_final')
    w.db.prepare('UPDATE claims SET player_id = ?, sold_at = sold_at + 5 WHERE unit_key = ?').run(other, c.unit_key)
    const r = check(w)
    expect(r.problems.map((p) => [p.kind, p.field, p.stored, p.recomputed])).toEqual([
      ['CLAIM_MISMATCH', 'player_id', other, c.player_id],
      ['CLAIM_MISMATCH', 'sold_at', c.sold_at + 5, c.sold_at],
    ])
  })

  it('names a sale given a big prize by hand, with no claim', async () => {
    const w = await sold()
    const s = w.db
      .prepare('SELECT unit_key, prize_cents FROM sales WHERE prize_cents = 0 ORDER BY unit_key LIMIT 1')
      .get() as { unit_key: number }
    w.db.prepare('UPDATE sales SET prize_cents = 10000 WHERE unit_key = ?').run(s.unit_key)
    const r = check(w)
    expect(claimKinds(r).map((p) => [p.kind, p.row.serial])).toEqual([['CLAIM_MISSING', serialOf(s.unit_key)]])
    expect(r.problems.map((p) => p.kind)).toContain('PRIZE_MISMATCH')
  })
})
