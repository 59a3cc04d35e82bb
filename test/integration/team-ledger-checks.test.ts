/**
 * The checks the team-ledger and crash tests make (ledger-crash-checks.ts) can fail: a sound
 * ledger passes them, and each kind of damage two workstations could do, a player's total counted
 * twice, a day's total lost, a block's sold count ahead of its sales, an audit entry out of the
 * chain, is caught. On both engines.
 */
import { rmSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openLedger } from '../../electron/ledger/db'
import { openBackend } from '../../electron/app/backend'
import { cloneTestLedger } from '../support/test-ledgers'
import type { TestLedgerLocation } from '../support/ledger-engine'
import { expectSoundLedger } from './ledger-crash-checks'
import { openEmissionLedger, samplePlay, T0, templatePath, tempDir } from './ledger-fixture'

let dir: string
let sold: TestLedgerLocation
beforeAll(async () => {
  await templatePath()
  dir = tempDir('team-checks')
  sold = await openEmissionLedger(dir)
  const b = openBackend({ dbPath: sold.location, keyFile: sold.keyFile, threads: 1 })
  try {
    b.services.sales.sellBatch(
      Array.from({ length: 300 }, (_, i) => ({
        emission: 1,
        player: `chk-${i % 7}`,
        soldAt: T0 + i * 1000,
        saleId: `CHK-${i}`,
        play: samplePlay(i),
      })),
      { records: false },
    )
  } finally {
    await b.closeGracefully()
  }
}, 180_000)
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** A copy of the sold ledger with `damage` done to it behind the app. */
function damaged(damage: string): string {
  const copy = cloneTestLedger(sold, tempDir('team-checks-copy'))
  const db = openLedger(copy.location)
  try {
    db.exec(damage)
  } finally {
    db.close()
  }
  return copy.location
}

describe('the soundness checks of a shared ledger', () => {
  it('pass on a ledger sold on as the app sells', () => {
    expect(expectSoundLedger(sold.location).sales).toBe(300)
  })

  it.each([
    ['a player counted twice', "UPDATE players SET units = units + 1 WHERE name = 'chk-3'"],
    ['a day’s total lost', 'UPDATE daily_sales SET units = units - 1'],
    ['a block sold ahead of its sales', 'UPDATE blocks SET units_sold = units_sold + 1'],
    ['a player’s newest sale lost', "UPDATE players SET last_key = NULL WHERE name = 'chk-1'"],
    [
      'an audit entry out of the chain',
      "INSERT INTO audit (seq, at, actor, action, object, details, prev_hash, hash) SELECT max(seq) + 2, '2026-03-02T09:00:00Z', 'x', 'x', 'x', '{}', 'forked', 'forked' FROM audit",
    ],
  ])('fail on %s', (_what, damage) => {
    const at = damaged(damage) // outside the expectation: the damage itself must not be what throws
    expect(() => expectSoundLedger(at)).toThrow()
  })
})
