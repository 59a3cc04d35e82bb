/**
 * Last-game recall on support's screen after a late feed: a player's sale, sold between the
 * player's last two, arrives after them (imported with the command line while the app runs).
 * The screen still shows the unit sold last first, then the late one in its place, as the sales
 * ordered by time in the ledger file say.
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { beforeAll, describe, expect, it } from 'vitest'
import { runCli } from '../../electron/cli/main'
import type { CliIo } from '../../electron/cli/io'
import { splitUnitKey } from '../../electron/ledger/unit-key'
import { feedLine } from '../../electron/services/import'
import { CARATS } from '../../game-core/carats'
import { formatSerial } from '../../game-core/serial'
import { screenshot } from './support'
import { norm, signIn, useJourneyApp } from './fixtures/app'
import { SALES_LEDGER } from './fixtures/ledger'

interface Sale {
  serial: string
  soldAt: number
}

function salesOf(dbPath: string, player: string): Sale[] {
  const db = new Database(dbPath, { readonly: true })
  try {
    const rows = db
      .prepare(
        `SELECT s.unit_key, s.sold_at FROM sales s JOIN players p ON p.id = s.player_id
      WHERE p.name = ? ORDER BY s.sold_at DESC, s.unit_key DESC`,
      )
      .raw()
      .all(player) as [number, number][]
    return rows.map(([key, soldAt]) => ({ serial: formatSerial(splitUnitKey(key), CARATS.blockSize), soldAt }))
  } finally {
    db.close()
  }
}

describe('support: the last unit after a late feed', () => {
  const app = useJourneyApp(SALES_LEDGER)
  let player = ''
  let next = 0
  let from = 0

  beforeAll(async () => {
    const db = new Database(app.dbPath, { readonly: true })
    try {
      player = db
        .prepare('SELECT name FROM players WHERE units >= 12 ORDER BY units DESC, name LIMIT 1')
        .pluck()
        .get() as string
      next = db.prepare('SELECT units_sold FROM blocks WHERE emission = 1 AND block = 1').pluck().get() as number
      from = Math.max(
        Date.parse(db.prepare('SELECT created_at FROM emissions WHERE emission = 1').pluck().get() as string),
        db.prepare('SELECT max(sold_at) FROM sales').pluck().get() as number,
      )
    } finally {
      db.close()
    }
    // between the emission's creation (or its last sale) and now: the afternoon's feed (the
    // player's sales at 20 % and 80 % of that time) arrives first, then the morning's with a
    // sale at 50 %, sold between them
    const at = (share: number) => Math.floor(from + (Date.now() - from) * share)
    await importFeed([at(0.2), at(0.8)], 'afternoon')
    await importFeed([at(0.5)], 'morning')
  })

  async function importFeed(times: number[], name: string): Promise<void> {
    const lines = times.map((soldAt) =>
      feedLine({
        saleId: `${name}-${next}`,
        serial: formatSerial({ emission: 1, block: 1, unit: next++ }),
        player,
        soldAt,
        stakeCents: 500,
        play: null,
      }),
    )
    const file = join(app.dbPath, '..', `${name}.jsonl`)
    writeFileSync(file, lines.join('\n') + '\n')
    let err = ''
    const io: CliIo = { out: () => {}, err: (t) => void (err += t), progress: () => {} }
    expect(await runCli(['--db', app.dbPath, 'sales', 'import', file], io), err).toBe(0)
  }

  it('shows the unit sold last first, and the late sales in their place among the previous ones', async () => {
    const want = salesOf(app.dbPath, player)
    expect(want.length).toBeGreaterThanOrEqual(12)
    const { page, problems } = await app.open()
    await signIn(page, 'support')
    // the whole account id: the only match opens at once
    await page.locator('[data-test="player-query"] input').fill(player)
    await page.getByRole('button', { name: 'Rechercher' }).click()
    const lastCard = page.locator('[data-test="last-unit"]')
    await lastCard.waitFor({ timeout: 15_000 })
    expect(norm(await lastCard.innerText())).toContain(want[0].serial)
    const previous = page
      .locator('.n-card')
      .filter({ has: page.getByText(/unités précédentes/) })
      .locator('tbody tr')
    await expect.poll(() => previous.count()).toBe(9)
    const shown = await previous.allInnerTexts()
    shown.forEach((text, i) => expect(norm(text)).toContain(want[i + 1].serial))
    // the morning's sale, written last, comes second: between the afternoon's two
    const unit = (u: number) => formatSerial({ emission: 1, block: 1, unit: u }, CARATS.blockSize)
    expect(want.slice(0, 3).map((s) => s.serial)).toEqual([unit(next - 2), unit(next - 1), unit(next - 3)])
    await screenshot(page, 'recall-after-late-feed')
    expect(problems).toEqual([])
  }, 120_000)
})
