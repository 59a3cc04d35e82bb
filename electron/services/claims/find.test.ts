/**
 * A claim found by its payment's reference (claims:find, the header's search): exactly as
 * recorded once the text is trimmed, case included, never a prefix; on the unique index that
 * already keeps a reference to one claim. Both engines.
 */
import { describe, expect, it } from 'vitest'
import { contract } from '../../contract'
import { STAFF, useClaimsWorlds, type ClaimsWorld } from '../../../test/support/claims-world'
import { testEngine } from '../../../test/support/ledger-engine'
import { claimsHandlers } from './handlers'
import { PAID_WITH_SQL } from './rows'

const world = useClaimsWorlds('claims-find')
const { support: suzy, manager: max } = STAFF

/** A world with at least `n` claims (the blocks' secrets are random: sell until there are). */
async function withClaims(n: number): Promise<{ w: ClaimsWorld; serials: string[] }> {
  const w = await world()
  const claims = () => w.claims.list({ page: 1, pageSize: n, order: 'asc' }).items
  while (claims().length < n) w.sell(400, ['P-1', 'P-2', 'P-3'])
  return { w, serials: claims().map((c) => c.serial) }
}

function paid(w: ClaimsWorld, serial: string, reference: string): void {
  w.claims.verify(suzy, serial, { document: 'passport', reference: '18AB12345' })
  w.claims.approve(max, serial)
  w.claims.pay(max, serial, reference, 'transfer')
}

/** The channel as the dispatcher calls it: its arguments through the contract's schema first. */
function find(w: ClaimsWorld, reference: string): string[] {
  const args = contract['claims:find'].args.parse({ reference })
  const handlers = claimsHandlers({ claims: w.claims, parties: w.parties })
  return handlers['claims:find'](args, { caller: null }) as string[]
}

describe('a claim found by its payment reference', () => {
  it('gives the serial of the claim paid with it, the reference trimmed, and nothing for any other text', async () => {
    const { w, serials } = await withClaims(3)
    const [first, second, open] = serials
    paid(w, first, 'VIR-2026-0001')
    paid(w, second, 'Chèque 42')
    expect(w.claims.findPaid('VIR-2026-0001')).toEqual([first])
    expect(find(w, '  VIR-2026-0001\t')).toEqual([first])
    expect(find(w, 'Chèque 42')).toEqual([second])
    // composed as the payment's reference was when recorded (the text rule, NFC)
    expect(find(w, 'Che\u0300que 42')).toEqual([second])
    // exact: not ignoring case, not a prefix, not a claim still open
    expect(find(w, 'vir-2026-0001')).toEqual([])
    expect(find(w, 'VIR-2026')).toEqual([])
    expect(find(w, 'VIR-2026-00011')).toEqual([])
    expect(find(w, open)).toEqual([])
    expect(w.claims.get(open).claim.paid).toBeNull()
  })

  it('refuses an empty reference before any lookup', () => {
    expect(contract['claims:find'].args.safeParse({ reference: '   ' }).success).toBe(false)
    expect(contract['claims:find'].args.safeParse({ reference: 'x'.repeat(65) }).success).toBe(false)
    expect(contract['claims:find'].args.safeParse({ reference: 'VIR-1', extra: 1 }).success).toBe(false)
  })

  // SQLite's query plans (EXPLAIN QUERY PLAN and its wording): SQLite only
  it.skipIf(testEngine() === 'postgres')('reads the unique index of payment references, not the table', async () => {
    const w = await world()
    const plan = (w.db.prepare(`EXPLAIN QUERY PLAN ${PAID_WITH_SQL}`).all('VIR-1') as { detail: string }[])
      .map((r) => r.detail)
      .join(' | ')
    expect(plan).toMatch(/USING (COVERING )?INDEX claims_payment_ref \(payment_ref=\?\)/)
    expect(plan).not.toMatch(/SCAN/)
  })
})
