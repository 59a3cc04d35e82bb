/**
 * The vault screen ("Coffre", issue 33): an administrator attaches the regulator's vault to a
 * ledger of 20,000 sales and sees it catch up; an auditor verifies it, reconciles a day against
 * the platform's feed, in which one sale the ledger lacks is named by its serial, and finds that
 * sale's day among the events the vault received.
 */
import Database from 'better-sqlite3'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { splitUnitKey } from '../../electron/ledger/unit-key'
import { formatSerial } from '../../game-core/serial'
import { screenshot } from './support'
import { menuEntries, signIn, textOf, useJourneyApp } from './fixtures/app'
import { SALES_LEDGER } from './fixtures/ledger'

const dir = mkdtempSync(join(tmpdir(), 'carats-e2e-vault-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** The platform's feed of the ledger's busiest day, plus one sale of a unit the ledger never sold. */
function platformFeed(dbPath: string): { day: string; file: string; lacking: string } {
  const db = new Database(dbPath, { readonly: true, fileMustExist: true })
  try {
    const day = db
      .prepare("SELECT date(sold_at / 1000, 'unixepoch') AS d FROM sales GROUP BY d ORDER BY count(*) DESC LIMIT 1")
      .pluck()
      .get() as string
    const from = Date.parse(`${day}T00:00:00Z`)
    const rows = db
      .prepare(
        `SELECT s.unit_key, s.sale_id, p.name AS player, s.sold_at, s.stake_cents FROM sales s
           JOIN players p ON p.id = s.player_id WHERE s.sold_at >= ? AND s.sold_at < ? ORDER BY s.unit_key`,
      )
      .all(from, from + 86_400_000) as {
      unit_key: number
      sale_id: string
      player: string
      sold_at: number
      stake_cents: number
    }[]
    const line = (key: number, saleId: string, player: string, soldAt: number, stakeCents: number) =>
      JSON.stringify({
        saleId,
        serial: formatSerial(splitUnitKey(key)),
        player,
        soldAt: new Date(soldAt).toISOString(),
        stakeCents,
      })
    const last = db.prepare('SELECT max(unit_key) FROM sales').pluck().get() as number
    const lacking = formatSerial(splitUnitKey(last + 1))
    const lines = [
      ...rows.map((r) => line(r.unit_key, r.sale_id, r.player, r.sold_at, r.stake_cents)),
      line(last + 1, 'PLATFORM-ONLY-1', 'someone', from + 3_600_000, rows[0].stake_cents),
    ]
    const file = join(dir, `platform-${day}.jsonl`)
    writeFileSync(file, lines.join('\n') + '\n')
    return { day, file, lacking }
  } finally {
    db.close()
  }
}

describe('vault screen', () => {
  const app = useJourneyApp(SALES_LEDGER)

  it('is attached by an administrator, verified and reconciled by an auditor', async () => {
    const admin = await app.open()
    await signIn(admin.page, 'admin')
    await admin.page.getByRole('menuitem', { name: 'Coffre', exact: true }).click()
    await admin.page.getByRole('heading', { name: 'Coffre du régulateur', level: 1 }).waitFor()
    expect(await textOf(admin.page, '[data-test="vault-status"]')).toContain('Ce registre n’a pas encore de coffre.')
    await admin.page.locator('[data-test="vault-folder"] input').fill(join(dir, 'vault'))
    await admin.page.locator('[data-test="vault-attach"]').click()
    await admin.page.getByText('Coffre rattaché : les événements y sont envoyés.').waitFor()
    // the host sends in rounds: 20,000 sales and the log reach the vault within seconds
    await expect
      .poll(
        async () => {
          await admin.page.getByRole('button', { name: 'Actualiser' }).click()
          return textOf(admin.page, '[data-test="vault-verdict"]')
        },
        { timeout: 60_000, interval: 1_000 },
      )
      .toBe('Le coffre a reçu tout ce que le registre contient.')
    expect(await textOf(admin.page, '[data-test="vault-size"]')).toMatch(
      /^20 000 ventes et \d+ entrées du journal, en \d+ lignes$/,
    )
    await screenshot(admin.page, 'vault-attached')

    const auditor = await app.open()
    const page = auditor.page
    await signIn(page, 'auditor')
    await page.getByRole('menuitem', { name: 'Coffre', exact: true }).click()
    await page.locator('[data-test="vault-verify"]').click()
    await expect
      .poll(() => textOf(page, '[data-test="vault-verification"]'), { timeout: 30_000 })
      .toMatch(/^Coffre intègre : [\d  ]+ événements, [\d  ]+ points de contrôle vérifiés\.$/)

    const { day, file, lacking } = platformFeed(app.dbPath)
    const dayField = page.locator('[data-test="recon-day"] input')
    await dayField.click()
    await dayField.fill(day)
    // left for another field: the panel closes, the day typed stays
    await page.getByRole('heading', { name: 'Rapprochement d’une journée' }).click()
    await page.locator('.n-date-panel').waitFor({ state: 'hidden' })
    expect(await dayField.inputValue()).toBe(day)
    await page.locator('[data-test="recon-feed"]').setInputFiles(file)
    await page.locator('[data-test="recon-run"]').click()
    await page.locator('[data-test="recon-differences"]').waitFor({ timeout: 30_000 })
    expect(await textOf(page, '[data-test="recon-report"]')).toMatch(
      /: 1 différence \(scellé : entrée \d+ du journal\)/,
    )
    expect(await textOf(page, '[data-test="recon-differences"]')).toContain(lacking)
    expect(await textOf(page, '[data-test="recon-differences"]')).toContain('absente du registre')
    await page.locator('[data-test="recon-report"]').scrollIntoViewIfNeeded()
    await screenshot(page, 'vault-reconciled')
  }, 240_000)

  it('shows a regulator the vault and nothing else', async () => {
    const { page } = await app.open()
    await signIn(page, 'regulator')
    await page.getByRole('heading', { name: 'Coffre du régulateur', level: 1 }).waitFor()
    expect(await menuEntries(page)).toEqual(['Coffre'])
    expect(await page.locator('[data-test="vault-verify"]').count()).toBe(1)
    expect(await page.locator('[data-test="vault-reconcile"]').count()).toBe(0)
    await page.locator('[data-test="events-search"]').click()
    await expect.poll(() => textOf(page, '[data-test="events-count"]')).toMatch(/^[1-9][\d  ]* événements?$/)
    await screenshot(page, 'vault-regulator')
  }, 120_000)
})
