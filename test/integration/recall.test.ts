/**
 * Last-game recall after a late feed, as support and the command line read it: the afternoon's
 * feed is imported first, the morning's after it; the player's last unit and the nine before it,
 * and the full history, come in the order of sale (then serial), through the contract and
 * through `carats player last`. Expectations come from the ledger with SQL.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ledgerArgs, type TestLedgerLocation } from '../support/ledger-engine'
import { withTestLedger } from '../support/test-ledgers'
import { runCli } from '../../electron/cli/main'
import type { CliIo } from '../../electron/cli/io'
import { openBackend, type Backend } from '../../electron/app/backend'
import { feedLine } from '../../electron/services/import'
import { formatSerial } from '../../game-core/serial'
import { ledgerOf, openEmissionBackend, PASSWORD, samplePlay, T0, tempDir, USERS } from './ledger-fixture'

const H = 3_600_000
const PLAYER = 'recall-player'

/** Units from..from+n-1 of emission 1, every other one to PLAYER, sold at hour(i). */
function feed(from: number, n: number, hour: (i: number) => number): string {
  return (
    Array.from({ length: n }, (_, i) =>
      feedLine({
        saleId: `R-${from + i}`,
        serial: formatSerial({ emission: 1, block: 1, unit: from + i }),
        player: i % 2 ? 'someone-else' : PLAYER,
        soldAt: T0 + hour(i) * H + i,
        stakeCents: 500,
        play: samplePlay(i),
      }),
    ).join('\n') + '\n'
  )
}

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = ''
  let err = ''
  const io: CliIo = { out: (t) => void (out += t), err: (t) => void (err += t), progress: () => {} }
  const code = await runCli(argv, io)
  return { code, out, err }
}

describe('last-game recall after a late feed', () => {
  let dir: string
  let ledger: TestLedgerLocation
  let b: Backend

  beforeAll(async () => {
    dir = tempDir('recall')
    mkdirSync(dir, { recursive: true })
    b = await openEmissionBackend(dir, { clock: () => new Date(T0 + 10 * 24 * H) })
    ledger = ledgerOf(b)
    await b.closeGracefully()
    // the afternoon first (units 0–29 from 14:00), then the morning (units 30–49 from 08:00)
    writeFileSync(
      join(dir, 'afternoon.jsonl'),
      feed(0, 30, (i) => 14 + i / 10),
    )
    writeFileSync(
      join(dir, 'morning.jsonl'),
      feed(30, 20, (i) => 8 + i / 10),
    )
    for (const f of ['afternoon', 'morning']) {
      const r = await cli(...ledgerArgs(ledger), 'sales', 'import', join(dir, `${f}.jsonl`))
      expect(r.code, r.err).toBe(0)
    }
    b = openBackend({ dbPath: ledger.location, keyFile: ledger.keyFile, threads: 1 })
  }, 300_000)
  afterAll(async () => {
    await b?.closeGracefully()
    rmSync(dir, { recursive: true, force: true })
  })

  const expected = () => {
    return withTestLedger(
      ledger,
      (db) =>
        db
          .prepare(
            `SELECT s.sold_at FROM sales s JOIN players p ON p.id = s.player_id WHERE p.name = ?
        ORDER BY s.sold_at DESC, s.unit_key DESC`,
          )
          .pluck()
          .all(PLAYER) as number[],
    )
  }

  it('the command line reads the last unit sold, then the nine sold before it', async () => {
    const r = await cli(...ledgerArgs(ledger), '--json', 'player', 'last', PLAYER)
    expect(r.code, r.err).toBe(0)
    const units = JSON.parse(r.out).units as { soldAt: string }[]
    const want = expected()
    expect(want).toHaveLength(25)
    expect(units.map((u) => Date.parse(u.soldAt))).toEqual(want.slice(0, 10))
  })

  it('the contract gives support the same last ten, and the full history in the same order page by page', async () => {
    const token = (await b.services.users.login(USERS.support, PASSWORD)).token
    const last = await b.dispatch('players:last', { player: PLAYER }, token)
    if (!last.ok) throw new Error(last.error.message)
    const soldAt = (units: { soldAt: string }[]) => units.map((u) => Date.parse(u.soldAt))
    const want = expected()
    expect(soldAt((last.result as { lastUnits: { soldAt: string }[] }).lastUnits)).toEqual(want.slice(0, 10))
    const pages: { soldAt: string }[] = []
    for (let page = 1; page <= 3; page++) {
      const r = await b.dispatch('players:history', { player: PLAYER, page, pageSize: 10 }, token)
      if (!r.ok) throw new Error(r.error.message)
      pages.push(...(r.result as { items: { soldAt: string }[] }).items)
    }
    expect(soldAt(pages)).toEqual(want)
  })
})
