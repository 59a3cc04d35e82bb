/**
 * A claim is made with its sale whichever path sold it: the simulator's workers, a feed imported
 * from the app (a worker) or from the command line (careful path), one sale at a time. Each
 * emission's own threshold applies. Expectations come from the ledger with SQL.
 */
import { join } from 'node:path'
import { rmSync, writeFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Backend } from '../../electron/app/backend'
import { feedLine } from '../../electron/services/import'
import { runCli } from '../../electron/cli/main'
import { formatSerial } from '../../game-core/serial'
import { ledgerArgs } from '../support/ledger-engine'
import { actor, ledgerOf, openEmissionBackend, samplePlay, T0, tempDir } from './ledger-fixture'

const DAY = 86_400_000

describe('claims through every sales path', () => {
  let dir: string
  let b: Backend
  let low: number

  beforeAll(async () => {
    dir = tempDir('claims-paths')
    b = await openEmissionBackend(dir, { clock: () => new Date(T0 + 2 * DAY) })
    const s = b.services
    low = s.emissions.create(actor('operator'), {
      blocks: 1,
      demo: true,
      startsOn: '2026-03-01',
      claimThresholdCents: 10_000,
    }).emission
    for (const step of ['generate', 'verify'] as const) {
      const end = await s.jobs.wait(s.emissions[step](actor('operator'), low).id)
      expect(end.state, end.message).toBe('done')
    }
    s.emissions.open(actor('operator'), low)
  }, 300_000)
  afterAll(async () => {
    await b?.closeGracefully()
    rmSync(dir, { recursive: true, force: true })
  })

  /** Per emission: the sold units at or above its threshold, and its claims, both by SQL. */
  function claimsAgainstSales(): { emission: number; due: number; claims: number; same: number }[] {
    return b.services.db
      .prepare(
        `
      SELECT e.emission,
        (SELECT count(*) FROM sales s WHERE s.unit_key / 10000000000 = e.emission AND s.prize_cents >= e.claim_threshold_cents) AS due,
        (SELECT count(*) FROM claims c WHERE c.emission = e.emission) AS claims,
        (SELECT count(*) FROM claims c JOIN sales s ON s.unit_key = c.unit_key
          WHERE c.emission = e.emission AND s.player_id = c.player_id AND s.prize_cents = c.prize_cents AND s.sold_at = c.sold_at) AS same
      FROM emissions e ORDER BY e.emission`,
      )
      .all() as never
  }

  it('makes them for simulated sales, at each emission its own threshold', async () => {
    const s = b.services
    for (const emission of [1, low]) {
      const end = await s.jobs.wait(s.simulator.start(actor('operator'), { emission, sales: 6_000, seed: 3 }).id)
      expect(end.state, end.message).toBe('done')
    }
    const rows = claimsAgainstSales()
    expect(rows.find((r) => r.emission === low)!.due).toBeGreaterThan(20)
    for (const r of rows) expect(r).toEqual({ emission: r.emission, due: r.due, claims: r.due, same: r.due })
  }, 300_000)

  it('makes them for imported feeds, from the app and from the command line', async () => {
    const s = b.services
    const feed = (n: number, tag: string) => {
      const next = s.sales.nextUnit(low)!
      return (
        Array.from({ length: n }, (_, i) =>
          feedLine({
            saleId: `${tag}-${i}`,
            serial: formatSerial({ emission: low, block: next.block, unit: next.unit + i }),
            player: `feed-${i % 40}`,
            soldAt: T0 + DAY + i * 1000,
            stakeCents: 500,
            play: samplePlay(i),
          }),
        ).join('\n') + '\n'
      )
    }
    const before = claimsAgainstSales().find((r) => r.emission === low)!.claims
    await s.importer.importContent(actor('operator'), feed(3_000, 'APP'))
    s.importer.importHere(actor('operator'), feed(2_000, 'HERE'))
    const file = join(dir, 'feed.jsonl')
    writeFileSync(file, feed(2_000, 'CLI'))
    const io = { out: () => {}, err: () => {}, progress: () => {} }
    expect(await runCli([...ledgerArgs(ledgerOf(b)), 'sales', 'import', file], io)).toBe(0)
    const row = claimsAgainstSales().find((r) => r.emission === low)!
    expect(row.claims).toBeGreaterThan(before + 20)
    expect(row).toEqual({ emission: low, due: row.due, claims: row.due, same: row.due })
  }, 300_000)
})
