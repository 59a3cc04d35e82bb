/**
 * The sales service keeps each player's id and chain head between batches: it must never let a
 * rolled-back batch, another connection's sales or an outer transaction's rollback show in a chain.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { brokenBy } from '../../../test/support/refusal'
import { testEngine } from '../../../test/support/ledger-engine'
import { smallDefinition } from '../../../test/support/game-fixtures'
import { openLedger } from '../../ledger/db'
import { openLedgerKey } from '../../ledger/keystore'
import { createAlertsService } from '../alerts'
import { createAuditService } from '../audit'
import { createCatalog } from '../catalog'
import { LEASE_HEARTBEAT_MS, leaseBeater } from '../leases'
import { createSalesService } from './service'
import { playerCacheOf } from './player-cache'
import { openLedgerFixture, type LedgerFixture } from '../../../test/support/simulator-world'

const T0 = Date.parse('2025-03-02T10:00:00Z')
const open: LedgerFixture[] = []
afterEach(() => {
  while (open.length) open.pop()!.close()
})

/** Each player's sales, newest first, as the ledger holds them: its totals and newest sale agree with them. */
function chains(f: LedgerFixture) {
  const players = f.db.prepare('SELECT id, name, units, last_key FROM players ORDER BY name').all() as {
    id: number
    name: string
    units: number
    last_key: number | null
  }[]
  const sales = f.db
    .prepare('SELECT unit_key FROM sales WHERE player_id = ? ORDER BY sold_at DESC, unit_key DESC')
    .pluck()
  return players.map((p) => {
    const keys = sales.all(p.id) as number[]
    expect(keys.length).toBe(p.units)
    expect(p.last_key).toBe(keys[0] ?? null)
    return { name: p.name, keys }
  })
}

describe('the players known between batches', () => {
  it("stay known across the selling connection's lease heartbeat, and are read again after any other write", async () => {
    const f = openLedgerFixture({ definition: smallDefinition(), clock: () => new Date(T0 + 86_400_000) })
    open.push(f)
    const e = await f.openEmission({ startsOn: '2025-03-01' })
    let t = T0
    const sale = (player: string) => ({ emission: e, player, soldAt: t++ })
    const ref = { kind: 'simulate' as const, subject: `emission:${e}`, holder: 'this-test' }
    f.db
      .prepare(
        `INSERT INTO job_leases (kind, subject, holder, host, pid, started_at, heartbeat_at)
      VALUES (?, ?, ?, 'here', 1, 0, 0)`,
      )
      .run(ref.kind, ref.subject, ref.holder)
    f.sales.sellBatch([sale('alice'), sale('bob')])
    const known = playerCacheOf(f.db).players.get('alice')
    expect(known).toBeDefined()
    let now = T0
    const beat = leaseBeater(f.db, ref, () => (now += LEASE_HEARTBEAT_MS + 1))
    expect(beat()).toBe(true)
    expect(f.db.prepare('SELECT heartbeat_at FROM job_leases WHERE holder = ?').pluck().get(ref.holder)).toBe(now)
    f.sales.sellBatch([sale('alice')])
    expect(playerCacheOf(f.db).players.get('alice')).toBe(known)
    // any other write of the connection: the players are read again from the ledger
    f.db.prepare('UPDATE job_leases SET heartbeat_at = heartbeat_at + 1').run()
    f.sales.sellBatch([sale('alice'), sale('bob')])
    expect(playerCacheOf(f.db).players.get('alice')).not.toBe(known)
    expect(chains(f).map((c) => [c.name, c.keys.length])).toEqual([
      ['alice', 3],
      ['bob', 2],
    ])
  })

  it('stay right after a rolled-back batch, another connection selling, and an outer transaction rolled back', async () => {
    const f = openLedgerFixture({ definition: smallDefinition(), clock: () => new Date(T0 + 86_400_000) })
    open.push(f)
    const e = await f.openEmission({ startsOn: '2025-03-01' })
    let t = T0
    const sale = (player: string) => ({ emission: e, player, soldAt: t++ })
    f.sales.sellBatch([sale('alice'), sale('bob'), sale('alice')])
    // a batch that fails after taking units: rolled back whole
    expect(() => f.sales.sellBatch([sale('alice'), sale('carol'), { ...sale('bob'), stakeCents: 1 }])).toThrow(/stake/)
    f.sales.sellBatch([sale('alice'), sale('carol')])
    // another connection sells to the same players
    const db2 = openLedger(f.path)
    const keys2 = openLedgerKey(db2, f.path, { keyFile: f.keyFile })
    const catalog2 = createCatalog({ db: db2, keys: keys2 })
    const audit2 = createAuditService({ db: db2, clock: f.clock, keys: keys2, dbPath: f.path, keyFile: f.keyFile })
    const sales2 = createSalesService({
      db: db2,
      clock: f.clock,
      catalog: catalog2,
      alerts: createAlertsService({ db: db2, clock: f.clock, audit: audit2, catalog: catalog2 }),
    })
    sales2.sellBatch([sale('alice'), sale('bob'), sale('dave')])
    db2.close()
    f.sales.sellBatch([sale('alice'), sale('bob'), sale('dave')])
    // inside an outer transaction that rolls back
    expect(() =>
      f.db.transaction(() => {
        f.sales.sellBatch([sale('alice'), sale('erin')])
        throw new Error('the outer work failed')
      })(),
    ).toThrow(/outer work failed/)
    f.sales.sellBatch([sale('alice'), sale('erin'), sale('bob')])
    // a write on this connection to the players (nothing does it today): the cache must not survive it
    f.db.prepare("UPDATE players SET last_key = NULL, units = 0 WHERE name = 'nobody'").run()
    f.sales.sellBatch([sale('alice')])

    const c = chains(f)
    expect(c.map((p) => [p.name, p.keys.length])).toEqual([
      ['alice', 7],
      ['bob', 4],
      ['carol', 1],
      ['dave', 2],
      ['erin', 1],
    ])
    // every sale is in exactly one chain
    const all = c.flatMap((p) => p.keys).sort((a, b) => a - b)
    expect(all).toEqual(f.db.prepare('SELECT unit_key FROM sales ORDER BY unit_key').pluck().all())
  })
})

// SQLite's foreign_keys pragma, turned off for a batch and on again: SQLite only (PostgreSQL
// checks foreign keys always)
describe.skipIf(testEngine() === 'postgres')("the sales' foreign key", () => {
  it('is checked by the batch itself and is on again after every batch, sold or refused', async () => {
    const f = openLedgerFixture({ definition: smallDefinition(), clock: () => new Date(T0 + 86_400_000) })
    open.push(f)
    const e = await f.openEmission({ startsOn: '2025-03-01' })
    const fkOn = () => f.db.pragma('foreign_keys', { simple: true })
    f.sales.sellBatch([{ emission: e, player: 'alice', soldAt: T0 }])
    expect(fkOn()).toBe(1)
    expect(() => f.sales.sellBatch([{ emission: e, player: 'bob', soldAt: T0, stakeCents: 1 }])).toThrow(/stake/)
    expect(fkOn()).toBe(1)
    // so a sale naming no player is still refused by SQLite outside the service
    const key = f.db.prepare('SELECT max(unit_key) + 1 FROM sales').pluck().get() as number
    expect(
      brokenBy(() =>
        f.db
          .prepare(
            'INSERT INTO sales (unit_key, player_id, sold_at, stake_cents, prize_cents) VALUES (?, 999999, 0, 300, 0)',
          )
          .run(key),
      ),
    ).toBe('foreign-key')
  })
})
