/**
 * Imports that leave a trace, as an operator meets them: the import window
 * offers a sample feed, made by the app, which imports as it is into the open demonstration
 * emission; a good feed's row keeps what it sold and the prize claims it opened; a refused feed
 * whose play breaks one rule on each of its 30 events says that reason once, "(30 fois)", and its
 * history row opens its reasons grouped by kind, exported as CSV for a spreadsheet, in French and
 * then in English.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, describe, expect, it } from 'vitest'
import { formatSerial } from '../../game-core/serial'
import type { ImportRecord, Page as ListPage } from '../../electron/contract'
import { screenshot } from './support'
import { recentFeed } from './fixtures/feeds'
import { norm, pageToken, signIn, useJourneyApp } from './fixtures/app'
import { CLAIMS_LEDGER } from './fixtures/ledger'

/** `count` sales of emission 1 from unit `from`, sold in the few seconds before, as objects (to spoil some). */
function sales(from: number, count: number): Record<string, unknown>[] {
  const lines = recentFeed({ from, count, seed: 11, players: 40, prefix: 'TRACE' })
  return lines.map((line) => JSON.parse(line) as Record<string, unknown>)
}
const feedOf = (lines: Record<string, unknown>[]) => lines.map((l) => JSON.stringify(l)).join('\n') + '\n'

/** An auto play whose 30 reveals are each a drag: one rule broken 30 times on one line. */
const DRAGGED_AUTO = {
  mode: 'auto',
  status: 'complete',
  events: [
    ...Array.from({ length: 6 }, (_, c) => ({ t: c * 90, zone: 'winning', cell: c, gesture: 'drag' })),
    ...Array.from({ length: 24 }, (_, c) => ({ t: 600 + c * 90, zone: 'yours', cell: c, gesture: 'drag' })),
  ],
}

const dir = mkdtempSync(join(tmpdir(), 'carats-e2e-import-trace-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** Opens the import window and sends the file at `path`. */
async function importFile(page: Page, path: string): Promise<void> {
  await page.locator('[data-test="import-sales"]').click()
  const importing = page.getByRole('dialog').filter({ hasText: 'Importer un flux de ventes' })
  await importing.waitFor()
  const chooser = page.waitForEvent('filechooser')
  await importing.getByRole('button', { name: 'Choisir un fichier…' }).click()
  await (await chooser).setFiles(path)
  await importing.locator('[data-test="import-submit"]').click()
}

/** The office CSV of the reasons shown, downloaded from the reasons window. */
async function exportReasons(page: Page, reasons: ReturnType<Page['locator']>) {
  await reasons.locator('[data-test="import-reasons-export"]').click()
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.locator('[data-test="export-office-main"]').click(),
  ])
  return { name: download.suggestedFilename(), text: readFileSync((await download.path())!, 'utf8') }
}

describe('operator: imports that leave a trace', () => {
  const app = useJourneyApp(CLAIMS_LEDGER)

  it('offers a sample feed, keeps a success’s result and a refusal’s grouped reasons on the history rows, with their CSV', async () => {
    const next = CLAIMS_LEDGER.sales
    const { page, problems } = await app.open()
    await signIn(page, 'operator')
    await page.getByRole('heading', { name: 'Émissions', level: 1 }).waitFor()
    const history = page.locator('[data-test="import-history"]')
    await history.getByText('Historique des importations').first().waitFor()

    // the sample, made by the app: the demonstration emission's next three units
    await page.locator('[data-test="import-sales"]').click()
    const importing = page.getByRole('dialog').filter({ hasText: 'Importer un flux de ventes' })
    await importing.waitFor()
    await importing.getByText('Un petit flux de trois ventes au format exact').waitFor()
    await screenshot(page, 'import-trace-1-sample-offered')
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      importing.locator('[data-test="import-sample"]').click(),
    ])
    expect(download.suggestedFilename()).toBe('sample-feed-E0001.jsonl')
    const samplePath = join(dir, download.suggestedFilename())
    await download.saveAs(samplePath)
    await page.getByText('les trois prochaines unités de l’émission de démonstration 0001').waitFor()
    const sample = readFileSync(samplePath, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { serial: string })
    expect(sample.map((l) => l.serial)).toEqual(
      [0, 1, 2].map((i) => formatSerial({ emission: 1, block: 1, unit: next + i })),
    )
    await importing.getByRole('button', { name: 'Annuler' }).click()
    await importing.waitFor({ state: 'hidden' })
    await importFile(page, samplePath)
    await page.getByText('3 ventes importées sur 3 lignes (0 déjà importées).').waitFor({ timeout: 30_000 })

    // a good feed of 300 sales: its row says what it sold and the claims it opened (from 100 € here)
    writeFileSync(join(dir, 'ventes-du-jour.jsonl'), feedOf(sales(next + 3, 300)))
    await importFile(page, join(dir, 'ventes-du-jour.jsonl'))
    await page.getByText('300 ventes importées sur 300 lignes (0 déjà importées).').waitFor({ timeout: 30_000 })
    const rows = history.locator('tbody tr')
    await expect.poll(async () => norm(await rows.first().innerText()), { timeout: 15_000 }).toContain('ventes-du-jour')
    const listed = await app.call<ListPage<ImportRecord>>('sales:imports', { pageSize: 2 }, await pageToken(page))
    if (!listed.ok) throw new Error(listed.error.message)
    const [good, sampleRow] = listed.result.items
    expect(good.claims).not.toBeNull()
    const claimsWords =
      good.claims === 0
        ? 'aucune réclamation de lot ouverte'
        : `${good.claims} réclamation${good.claims! > 1 ? 's' : ''} de lot ouverte${good.claims! > 1 ? 's' : ''}`
    const goodRow = rows.nth(0).locator('[data-test="import-result"]')
    expect(norm(await goodRow.innerText())).toBe(`300 ventes importées\n${claimsWords}`)
    expect(norm(await rows.nth(1).innerText())).toContain('sample-feed-E0001.jsonl')
    expect(sampleRow.claims).not.toBeNull()

    // a broken feed: line 2 drags in an auto play 30 times, lines 3–6 stake 2,50 €, line 7 has no player
    const lines = sales(next + 303, 7)
    lines[1] = { ...lines[1], play: DRAGGED_AUTO }
    for (let i = 2; i < 6; i++) lines[i] = { ...lines[i], stakeCents: 250 }
    delete lines[6].player
    writeFileSync(join(dir, 'ventes-abimees.jsonl'), feedOf(lines))
    await importFile(page, join(dir, 'ventes-abimees.jsonl'))
    const refused = importing.locator('[data-test="import-rejected"]')
    await refused.waitFor({ timeout: 30_000 })
    const said = (await refused.locator('li').allInnerTexts()).map(norm)
    expect(said).toHaveLength(6)
    expect(said[0]).toBe(
      'Ligne 2 : partie, événement 1 : une partie automatique est révélée par le jeu, jamais par un glissé (30 fois)',
    )
    expect(norm(await refused.innerText())).toContain('Ces raisons restent dans l’historique des importations')
    await screenshot(page, 'import-trace-2-refused-in-window')
    await importing.getByRole('button', { name: 'Annuler' }).click()
    await importing.waitFor({ state: 'hidden' })

    // its history row: the reasons, grouped
    await expect.poll(async () => norm(await rows.first().innerText()), { timeout: 15_000 }).toContain('ventes-abimees')
    expect(norm(await rows.first().innerText())).toContain('Refusé : 6 lignes à corriger')
    await rows.first().locator('[data-test="import-show-reasons"]').click()
    const reasons = page.locator('[data-test="import-reasons"]')
    await reasons.waitFor()
    const head = norm(await reasons.innerText())
    expect(head).toMatch(/Refusé le \d+ déc\. \d{4}, [\d:]+, fichier importé par oscar\. 6 lignes à corriger sur 7\./)
    expect(head).toContain('3 sortes de problème, regroupées :')
    const groups = (await reasons.locator('[data-test="import-reason-group"]').allInnerTexts()).map(norm)
    expect(groups).toEqual([
      '30 fois sur 1 ligne · ligne 2\nPremier cas : partie, événement 1 : une partie automatique est révélée par le jeu, jamais par un glissé',
      '4 fois sur 4 lignes · lignes 3, 4, 5, 6\nPremier cas : la mise doit être le prix de l’unité, 5 €, et non 2,50 €',
      '1 fois sur 1 ligne · ligne 7\nPremier cas : il manque l’identifiant du joueur (champ « player »)',
    ])
    // the window's opening animation over before the picture
    await page.waitForTimeout(500)
    await screenshot(page, 'import-trace-3-reasons-fr')

    // exported for a spreadsheet in French: `;`, a byte-order mark, the kinds in words
    const fr = await exportReasons(page, reasons)
    expect(fr.name).toMatch(/^import-\d+-refus\.csv$/)
    const frLines = fr.text.split('\n')
    expect(frLines[0]).toMatch(
      /^\ufeff# Logiciel\u00a0: .*;Importation n°\u00a0: \d+;Fichier\u00a0: ventes-abimees\.jsonl$/,
    )
    expect(frLines.slice(1, 5)).toEqual([
      'Problème;Champ;Occurrences;Lignes concernées;Premières lignes;Premier cas (en anglais)',
      'Glissé dans une partie automatique;;30;1;2;the play breaks the rules: event 1: an auto play is revealed by the game, not by a drag',
      'Mise différente du prix de l’unité;;4;4;3, 4, 5, 6;stakeCents must be the unit price, 500, not 250',
      'Champ manquant;player;1;1;7;"missing field ""player"""',
    ])
    await reasons.getByRole('button', { name: 'Fermer' }).click()
    await reasons.waitFor({ state: 'hidden' })

    // in English
    await page.evaluate('localStorage.setItem("carats.locale", "en")')
    await page.reload()
    await history.getByText('Import history').first().waitFor()
    await rows.first().locator('[data-test="import-show-reasons"]').click()
    await reasons.waitFor()
    const enHead = norm(await reasons.innerText())
    expect(enHead).toContain('file imported by oscar. 6 lines to fix out of 7.')
    expect(enHead).toContain('3 kinds of problem, grouped:')
    const enGroups = (await reasons.locator('[data-test="import-reason-group"]').allInnerTexts()).map(norm)
    expect(enGroups[1]).toBe(
      '4 times on 4 lines · lines 3, 4, 5, 6\nFirst case: the stake must be the unit price, €5, not €2.50',
    )
    // the window's opening animation over before the picture
    await page.waitForTimeout(500)
    await screenshot(page, 'import-trace-4-reasons-en')
    const en = await exportReasons(page, reasons)
    expect(en.name).toMatch(/^import-\d+-reasons\.csv$/)
    expect(en.text.split('\n')[1]).toBe('Problem,Field,Occurrences,Lines,First lines,First case')
    expect(en.text.split('\n')[3]).toBe(
      'Stake other than the unit price,,4,4,"3, 4, 5, 6","stakeCents must be the unit price, 500, not 250"',
    )
    expect(problems).toEqual([])
  }, 240_000)
})
