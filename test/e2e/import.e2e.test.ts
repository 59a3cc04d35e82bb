/**
 * An operator imports sales feeds through the import screen (the file chooser): a broken feed
 * is refused with every bad line said in French (no English word, no ISO time, no "block 0"),
 * then a good feed (with a byte order mark and CRLF line ends, as a Windows export writes it) is
 * imported; the import history beside the emissions lists both, the good one with the SHA-256 of
 * the file's bytes.
 */
import { createHash } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { leftovers } from '../../renderer/src/views/emissions/importProblems.fixtures'
import { screenshot } from './support'
import { recentFeed } from './fixtures/feeds'
import { norm, signIn, useJourneyApp } from './fixtures/app'
import { SALES_LEDGER } from './fixtures/ledger'
import { axeInBothThemes, describeViolations } from './fixtures/axe'

/** `count` sales of emission 1 from unit `from`, sold in the few seconds before. */
const feed = (from: number, count: number) => recentFeed({ from, count, seed: 8, players: 20, prefix: 'IMP' })

const dir = mkdtempSync(join(tmpdir(), 'carats-e2e-import-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('operator: importing sales feeds through the screen', () => {
  const app = useJourneyApp(SALES_LEDGER)

  it('refuses a broken feed in French, imports a good one, and lists both in the history with their SHA-256', async () => {
    const next = SALES_LEDGER.sales
    // a broken feed: one line of each common mistake
    const lines = feed(next, 8)
    const edit = (i: number, over: Record<string, unknown>) => JSON.stringify({ ...JSON.parse(lines[i]), ...over })
    const broken = [
      lines[0],
      edit(1, { stakeCents: 'cinq' }),
      edit(2, { soldAt: '2099-01-01T00:00:00Z' }),
      edit(3, { serial: `0001-000-0000504-0` }),
      lines[4].slice(0, 50),
      edit(5, { player: undefined }),
      edit(6, { soldAt: '2025-13-01 10:00' }),
      edit(7, { saleId: ' espace', stakeCents: 250 }),
    ]
    const brokenBytes = Buffer.from(broken.join('\n') + '\n')
    writeFileSync(join(dir, 'ventes-abimees.jsonl'), brokenBytes)
    const good = feed(next, 12)
    const goodBytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(good.join('\r\n') + '\r\n')])
    writeFileSync(join(dir, 'ventes-du-jour.jsonl'), goodBytes)

    const { page, problems } = await app.open()
    await signIn(page, 'operator')
    await page.getByRole('heading', { name: 'Émissions', level: 1 }).waitFor()
    const history = page.locator('[data-test="import-history"]')
    await history.getByText('Historique des importations').first().waitFor()

    // the broken feed, through the file chooser
    await page.locator('[data-test="import-sales"]').click()
    const importing = page.getByRole('dialog').filter({ hasText: 'Importer un flux de ventes' })
    await importing.waitFor()
    const chooser = page.waitForEvent('filechooser')
    await importing.getByRole('button', { name: 'Choisir un fichier…' }).click()
    await (await chooser).setFiles(join(dir, 'ventes-abimees.jsonl'))
    await importing.getByText('ventes-abimees.jsonl · 8 lignes').waitFor()
    await importing.locator('[data-test="import-submit"]').click()
    const refused = importing.locator('[data-test="import-rejected"]')
    await refused.waitFor({ timeout: 30_000 })
    expect(norm(await refused.innerText())).toContain('Fichier refusé : 7 lignes à corriger')
    const reasons = (await refused.locator('li').allInnerTexts()).map(norm)
    expect(reasons).toHaveLength(7)
    for (const r of reasons) expect(leftovers(r), r).toEqual([])
    const all = reasons.join('\n')
    expect(all).toContain('Ligne 2 : la mise doit être un nombre ; la ligne porte « "cinq" »')
    expect(all).toMatch(/Ligne 3 : l’heure de vente, 1 janv\. 2099.*, est dans le futur \(il est /)
    expect(all).toContain('Ligne 4 : numéro de série « 0001-000-0000504-0 » :')
    expect(all).toContain('Ligne 6 : il manque l’identifiant du joueur (champ « player »)')
    expect(all).toContain('Ligne 8 : l’identifiant de vente commence ou finit par une espace')
    // a serial's block as the serial writes it, never "block 0"
    expect(all).toContain('Numéro hors limites : bloc 000 (de 001 à 999)')
    await screenshot(page, 'import-1-refused-in-french')
    await importing.getByRole('button', { name: 'Annuler' }).click()
    await importing.waitFor({ state: 'hidden' })

    // the good feed
    await page.locator('[data-test="import-sales"]').click()
    await importing.waitFor()
    const chooser2 = page.waitForEvent('filechooser')
    await importing.getByRole('button', { name: 'Choisir un fichier…' }).click()
    await (await chooser2).setFiles(join(dir, 'ventes-du-jour.jsonl'))
    await importing.getByText('ventes-du-jour.jsonl · 12 lignes').waitFor()
    await importing.locator('[data-test="import-submit"]').click()
    await page.getByText('12 ventes importées sur 12 lignes (0 déjà importées).').waitFor({ timeout: 30_000 })

    // the history: the good file with its SHA-256, then the refused one with its count
    const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex')
    const rows = history.locator('tbody tr')
    await expect
      .poll(async () => norm(await rows.first().innerText()), { timeout: 15_000 })
      .toContain('ventes-du-jour.jsonl')
    const first = norm(await rows.nth(0).innerText())
    expect(first).toContain(sha(goodBytes))
    expect(first).toContain('12 ventes importées')
    expect(first).toContain('oscar')
    expect(first).not.toMatch(/\d{4}-\d{2}-\d{2}T/)
    const second = norm(await rows.nth(1).innerText())
    expect(second).toContain('ventes-abimees.jsonl')
    expect(second).toContain(sha(brokenBytes))
    expect(second).toContain('Refusé : 7 lignes à corriger')
    await history.scrollIntoViewIfNeeded()
    await screenshot(page, 'import-2-history')
    // the files' SHA-256 and a refusal legible in both themes (axe once found them dim in the dark)
    const found = await axeInBothThemes(page, 'import history', () => rows.nth(1).waitFor())
    expect(describeViolations(found)).toBe('no violations')
    expect(problems).toEqual([])
  }, 180_000)
})
