/**
 * The operator's journey on a brand-new ledger: the first-start admin account, then an emission
 * of one real block (8,016,000 units) created, generated and verified with progress bars, opened
 * for sale, 300,000 sales simulated, then a day's feed from the sales platform imported through
 * the import screen (and a broken one refused, its bad lines named); the list says so, and still
 * says so after a reload.
 */

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { screenshot } from './support'
import { recentFeed } from './fixtures/feeds'
import { norm, useJourneyApp } from './fixtures/app'
import { PASSWORD } from './fixtures/ledger'

/**
 * A feed from the sales platform: `count` sales of emission 1 from unit `from`, sold in the few
 * seconds before (the emission, created in the journey, has no first sale day: a sale before
 * its creation would be refused).
 */
const feed = (from: number, count: number) => recentFeed({ from, count, seed: 5, players: 20, prefix: 'PF' })

/** Follows a job's progress bar until the row leaves `untilStatus`: returns the percentages seen. */
async function followProgress(
  page: Page,
  row: ReturnType<Page['getByRole']>,
  doneStatus: string,
  shot: string,
): Promise<number[]> {
  const bar = row.locator('[data-test="job"]').getByRole('progressbar')
  await bar.waitFor({ state: 'visible', timeout: 15_000 })
  const seen: number[] = []
  let shotTaken = false
  const deadline = Date.now() + 180_000
  while (Date.now() < deadline) {
    const text = norm(await row.innerText().catch(() => ''))
    if (text.includes(doneStatus)) break
    const v = await bar.getAttribute('aria-valuenow', { timeout: 1_000 }).catch(() => null)
    if (v !== null) {
      seen.push(Number(v))
      if (!shotTaken && Number(v) > 0) {
        await screenshot(page, shot)
        shotTaken = true
      }
    }
    await page.waitForTimeout(150)
  }
  return seen
}

describe('operator: first start, then an emission created, generated, verified and opened', () => {
  const app = useJourneyApp(null)

  it('takes a new ledger to an emission on sale', async () => {
    const { page, problems } = await app.open()

    // an empty ledger asks for its first admin account
    await page
      .getByRole('heading', { name: 'Premier démarrage : compte administrateur' })
      .first()
      .waitFor({ timeout: 15_000 })
    expect(page.url()).toMatch(/#\/setup$/)
    expect(await page.getByLabel(/^Identifiant/).inputValue()).toBe('admin')
    await page.getByLabel(/^Mot de passe\W*$/).fill(PASSWORD)
    await page.getByLabel(/^Mot de passe \(confirmation\)/).fill(`${PASSWORD}-typo`)
    await page.getByRole('button', { name: 'Créer le compte administrateur' }).click()
    // two different passwords are refused on the spot
    await page.getByText('Les deux mots de passe diffèrent').waitFor()
    expect(await app.call('auth:status')).toMatchObject({ ok: true, result: { needsSetup: true } })
    await page.getByLabel(/^Mot de passe \(confirmation\)/).fill(PASSWORD)
    await screenshot(page, 'operator-1-first-start')
    await page.getByRole('button', { name: 'Créer le compte administrateur' }).click()

    // signed in as the admin, on the emissions, which greet an empty ledger
    await page.getByRole('heading', { name: 'Émissions', level: 1 }).waitFor({ timeout: 15_000 })
    expect(norm(await page.locator('.n-layout-header').innerText())).toContain('Administrateur')
    await page.getByText('Aucune émission pour l’instant').waitFor()
    await screenshot(page, 'operator-2-empty-ledger')

    // create an emission of one block
    await page.getByRole('button', { name: 'Créer une émission' }).click()
    const dialog = page.getByRole('dialog')
    await dialog.waitFor()
    expect(norm(await dialog.innerText())).toContain('8 016 000 unités, 40 080 000 € de ventes')
    await dialog.locator('[data-test="create-code"] input').fill('E2E-OP-1')
    // a demonstration emission: the only kind that takes the simulated sales below
    await dialog.getByRole('checkbox', { name: 'Émission de démonstration' }).check()
    await dialog.getByRole('button', { name: 'Créer', exact: true }).click()
    await page.getByText('Émission 1 créée : générez maintenant ses blocs.').waitFor()
    const row = page.getByRole('row').filter({ hasText: 'E2E-OP-1' })
    await row.waitFor()
    let text = norm(await row.innerText())
    expect(text).toContain('0001')
    expect(text).toContain('Créée')
    expect(text).toContain('0/1 générés · 0/1 vérifiés')
    expect(text).toContain('0 / 8 016 000')
    // a created emission can be generated (or withdrawn), not yet opened
    expect(await row.getByRole('button', { name: 'Ouvrir à la vente' }).count()).toBe(0)

    // generate: a progress bar follows the work
    await row.getByRole('button', { name: 'Générer' }).click()
    const generating = await followProgress(page, row, 'Générée', 'operator-3-generating')
    expect(generating.length).toBeGreaterThan(0)
    expect([...generating].sort((a, b) => a - b)).toEqual(generating) // never goes backwards
    await expect
      .poll(async () => norm(await row.innerText()), { timeout: 30_000 })
      .toContain('1/1 générés · 0/1 vérifiés')
    expect(norm(await row.innerText())).toContain('Générée')

    // verify: regenerates the block against its commitment, with a progress bar too
    await row.getByRole('button', { name: 'Vérifier' }).click()
    const verifying = await followProgress(page, row, 'Vérifiée', 'operator-4-verifying')
    expect(verifying.length).toBeGreaterThan(0)
    await expect
      .poll(async () => norm(await row.innerText()), { timeout: 30_000 })
      .toContain('1/1 générés · 1/1 vérifiés')
    expect(norm(await row.innerText())).toContain('Vérifiée')
    expect(generating.concat(verifying).some((v) => v > 0 && v < 100)).toBe(true) // progress was shown along the way, not only at the end

    // open for sale, after a confirmation
    await row.getByRole('button', { name: 'Ouvrir à la vente' }).click()
    const confirm = page.getByRole('dialog').filter({ hasText: 'Ouvrir l’émission 1 à la vente ?' })
    await confirm.waitFor()
    await confirm.getByRole('button', { name: 'Ouvrir à la vente' }).click()
    await page.getByText('L’émission 1 est en vente.').waitFor()
    await expect.poll(async () => norm(await row.innerText())).toContain('En vente')
    await screenshot(page, 'operator-5-open')

    // simulate sales from the screen: the built host sells them on its worker threads, with a progress bar
    await row.getByRole('button', { name: 'Simuler', exact: true }).click()
    const simulate = page.getByRole('dialog').filter({ hasText: 'Simuler des ventes sur l’émission 1' })
    await simulate.waitFor()
    const count = simulate.locator('[data-test="simulate-sales"] input')
    await count.fill('300000')
    await count.blur()
    await simulate.locator('[data-test="simulate-submit"]').click()
    await row.locator('[data-test="job"]').getByRole('progressbar').waitFor({ timeout: 15_000 })
    await screenshot(page, 'operator-6-simulating')
    await expect.poll(async () => norm(await row.innerText()), { timeout: 120_000 }).toContain('300 000 / 8 016 000')

    // import the platform's feed of the 40 units after the simulated ones, from a file
    const feeds = mkdtempSync(join(tmpdir(), 'carats-e2e-feeds-'))
    try {
      writeFileSync(join(feeds, 'ventes-jour.jsonl'), feed(300_000, 40).join('\n') + '\n')
      const broken = feed(300_040, 3)
      broken[1] = broken[1].replace('"stakeCents":500', '"stakeCents":250')
      broken[2] = broken[2].slice(0, 60)
      writeFileSync(join(feeds, 'ventes-abimees.jsonl'), broken.join('\n') + '\n')

      await page.locator('[data-test="import-sales"]').click()
      const importing = page.getByRole('dialog').filter({ hasText: 'Importer un flux de ventes' })
      await importing.waitFor()
      await importing.locator('[data-test="import-file"]').setInputFiles(join(feeds, 'ventes-jour.jsonl'))
      await importing.getByText('ventes-jour.jsonl · 40 lignes').waitFor()
      await importing.locator('[data-test="import-submit"]').click()
      await page.getByText('40 ventes importées sur 40 lignes (0 déjà importées).').waitFor({ timeout: 30_000 })
      await expect.poll(async () => norm(await row.innerText())).toContain('300 040 / 8 016 000')

      // a damaged file is refused whole, each bad line named, and nothing of it is stored
      await page.locator('[data-test="import-sales"]').click()
      await importing.waitFor()
      await importing.locator('[data-test="import-file"]').setInputFiles(join(feeds, 'ventes-abimees.jsonl'))
      await importing.getByText('ventes-abimees.jsonl · 3 lignes').waitFor()
      await importing.locator('[data-test="import-submit"]').click()
      const refused = importing.locator('[data-test="import-rejected"]')
      await refused.waitFor({ timeout: 30_000 })
      const why = norm(await refused.innerText())
      expect(why).toContain('Fichier refusé : 2 lignes à corriger')
      // in the interface's language, the money as money
      expect(why).toContain('Ligne 2 : la mise doit être le prix de l’unité, 5 €, et non 2,50 €')
      // the line cut short: where it stops, not JavaScript's English message
      expect(why).toContain('Ligne 3 : JSON incomplet : la ligne s’arrête à la colonne 61, avant la fin de l’objet')
      // the file can be chosen again once corrected: the button is ready again
      await expect
        .poll(async () => (await importing.locator('[data-test="import-submit"]').getAttribute('class')) ?? '')
        .not.toContain('loading')
      await importing.locator('[data-test="import-submit"] .n-button__icon').waitFor({ state: 'detached' })
      await screenshot(page, 'operator-7-import-refused')
      await importing.getByRole('button', { name: 'Annuler' }).click()
      await importing.waitFor({ state: 'hidden' })
      expect(norm(await row.innerText())).toContain('300 040 / 8 016 000')
    } finally {
      rmSync(feeds, { recursive: true, force: true })
    }

    // the list still shows it open after a reload (it is the ledger's state, not the screen's)
    await page.reload()
    const after = page.getByRole('row').filter({ hasText: 'E2E-OP-1' })
    await after.waitFor({ timeout: 15_000 })
    text = norm(await after.innerText())
    expect(text).toContain('En vente')
    expect(text).toContain('300 040 / 8 016 000')
    expect(text).toContain('1/1 générés · 1/1 vérifiés')
    // an open emission offers closing, no longer opening or generating
    expect(await after.getByRole('button', { name: 'Clore les ventes' }).count()).toBe(1)
    expect(await after.getByRole('button', { name: 'Générer' }).count()).toBe(0)

    // its block shows the commitment the ledger recorded
    const token = await app.call<{ token: string }>('auth:login', { name: 'admin', password: PASSWORD })
    if (!token.ok) throw new Error(token.error.message)
    const detail = await app.call<{ status: string; blockList: { commitment: string | null; status: string }[] }>(
      'emissions:get',
      { emission: 1 },
      token.result.token,
    )
    if (!detail.ok) throw new Error(detail.error.message)
    expect(detail.result.status).toBe('open')
    expect(detail.result.blockList[0].status).toBe('verified')
    const commitment = detail.result.blockList[0].commitment!
    expect(commitment).toMatch(/^[0-9a-f]{64}$/)
    await after.getByRole('button', { name: 'Blocs' }).click()
    await page.getByRole('heading', { name: /Émission 0*1/, level: 1 }).waitFor()
    const blockRow = page.getByRole('row').filter({ hasText: commitment.slice(0, 8) })
    await blockRow.waitFor()
    expect(norm(await blockRow.innerText())).toContain(commitment.slice(-8))
    // a block ("un bloc") is "Vérifié", the emission "Vérifiée"
    expect(norm(await blockRow.innerText())).toMatch(/\bVérifié(?!e)/)
    await screenshot(page, 'operator-8-emission-blocks')

    expect(problems).toEqual([])
  }, 300_000)
})
