/**
 * The admin's "Réglage du registre" screen: it shows the ledger this workstation uses now (here
 * chosen by --db, which the screen says overrides the setting), tests a connection to a team
 * database on the local PostgreSQL server (reached, empty, the key file to be made), says what is
 * wrong with a database that does not exist, in French, and saves the setting with the notice
 * that it applies at the next start. The saved file holds the password; the screen never shows it.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir, userInfo } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { screenshot } from './support'
import { menuEntries, norm, signIn, useJourneyApp } from './fixtures/app'
import { PASSWORD, STAFF } from './fixtures/ledger'
import { withoutPostgres } from '../support/ledger-engine'

const SERVER = 'postgresql:///postgres?host=/var/run/postgresql'
const DATABASE = `carats_setting_e2e_${process.pid}`
const psql = (sql: string) => execFileSync('psql', [SERVER, '-XtAc', sql], { encoding: 'utf8' })

// the host reads and writes its setting in this per-user folder (XDG_DATA_HOME/carats)
const dataHome = mkdtempSync(join(tmpdir(), 'carats-setting-e2e-'))
process.env.XDG_DATA_HOME = dataHome
const skipped = withoutPostgres()
if (!skipped) {
  psql(`DROP DATABASE IF EXISTS ${DATABASE}`)
  psql(`CREATE DATABASE ${DATABASE}`)
}

afterAll(() => {
  if (!skipped) psql(`DROP DATABASE IF EXISTS ${DATABASE} WITH (FORCE)`)
  rmSync(dataHome, { recursive: true, force: true })
})

describe.skipIf(skipped)('admin: the ledger setting (needs PostgreSQL: skipped by npm run test:sqlite)', () => {
  const app = useJourneyApp(null)

  it('tests the team database, says what is wrong in French, and saves for the next start', async () => {
    expect(await app.call('auth:setup', { name: STAFF.admin, password: PASSWORD })).toMatchObject({ ok: true })
    const { page, problems } = await app.open()
    await signIn(page, 'admin')
    await page.getByRole('menuitem', { name: 'Réglage du registre' }).click()
    await page.getByRole('heading', { name: 'Réglage du registre', level: 1 }).waitFor()

    // the ledger in use now, and that --db decides instead of the setting
    const current = page.locator('[data-test="setting-current"]')
    await expect.poll(async () => norm(await current.innerText()), { timeout: 15_000 }).toContain(app.dbPath)
    expect(norm(await current.innerText())).toContain('Fichier de ce poste (SQLite)')
    expect(norm(await page.locator('[data-test="setting-overridden"]').innerText())).toContain(
      'Ce poste a été démarré avec --db',
    )
    await screenshot(page, 'ledger-setting-1-current')

    await page.locator('[data-test="choose-team"]').click()
    // a relative key file is refused on the screen, before any call
    const keyDir = mkdtempSync(join(tmpdir(), 'carats-setting-key-'))
    await page
      .locator('[data-test="team-url"] input')
      .fill(`postgresql:///carats_setting_never_made?host=/var/run/postgresql`)
    await page.locator('[data-test="team-key"] input').fill('equipe.key')
    await page.locator('[data-test="team-test"]').click()
    await expect
      .poll(() => page.locator('.setting-form').innerText().then(norm))
      .toContain('Le chemin doit être absolu')

    // a database that does not exist: said in French
    await page.locator('[data-test="team-key"] input').fill(join(keyDir, 'equipe.key'))
    await page.locator('[data-test="team-test"]').click()
    const server = page.locator('[data-test="test-server"]')
    await expect
      .poll(() => server.innerText().then(norm), { timeout: 15_000 })
      .toContain('Cette base n’existe pas sur le serveur')
    expect(norm(await page.locator('[data-test="test-verdict"]').innerText())).toBe(
      'La connexion ne fonctionne pas : voyez ci-dessous ce qui ne va pas.',
    )
    await screenshot(page, 'ledger-setting-2-no-database')

    // the empty database made for the test: reached, empty, the key file to be made
    // a password in the URL (the local socket's peer sign-in does not ask for it): never shown again
    const url = `postgresql://${userInfo().username}:s3cret@localhost/${DATABASE}?host=/var/run/postgresql`
    await page.locator('[data-test="team-url"] input').fill(url)
    await page.locator('[data-test="team-test"]').click()
    await expect
      .poll(() => page.locator('[data-test="test-verdict"]').innerText().then(norm), { timeout: 15_000 })
      .toBe('La connexion fonctionne : ce poste pourra ouvrir ce registre.')
    expect(norm(await page.locator('[data-test="test-server"]').innerText())).toContain(
      `Serveur joint : base ${DATABASE}`,
    )
    expect(norm(await page.locator('[data-test="test-database"]').innerText())).toContain(
      'Base vide : un nouveau registre y sera créé au prochain démarrage.',
    )
    expect(norm(await page.locator('[data-test="test-keyFile"]').innerText())).toContain(
      'il sera créé au prochain démarrage',
    )
    await page.locator('[data-test="test-result"]').scrollIntoViewIfNeeded()
    await screenshot(page, 'ledger-setting-3-test-ok')

    // saved, applying at the next start; the running ledger stays the same
    await page.locator('[data-test="setting-save"]').click()
    const saved = page.locator('[data-test="setting-saved"]')
    await expect
      .poll(() => saved.innerText().then(norm), { timeout: 15_000 })
      .toContain('Il s’appliquera au prochain démarrage de l’application')
    const file = join(dataHome, 'carats', 'ledger.json')
    expect(norm(await saved.innerText())).toContain(file)
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ ledger: 'team', url, keyFile: join(keyDir, 'equipe.key') })
    expect(norm(await current.innerText())).toContain(app.dbPath)
    expect(await page.locator('[data-test="team-url"] input').inputValue()).toBe(url.replace(':s3cret@', ':***@'))
    expect(await page.locator('body').innerText()).not.toContain('s3cret')
    await saved.scrollIntoViewIfNeeded()
    await screenshot(page, 'ledger-setting-4-saved')

    // saved again with the masked password: the saved password is kept
    await page.locator('[data-test="setting-save"]').click()
    await expect.poll(() => saved.innerText().then(norm), { timeout: 15_000 }).toContain('Réglage enregistré')
    expect(JSON.parse(readFileSync(file, 'utf8')).url).toBe(url)
    expect(problems).toEqual([])
    rmSync(keyDir, { recursive: true, force: true })
  })

  it("is the admin's alone: another role has neither the menu entry nor the channel", async () => {
    const admin = await app.call<{ token: string }>('auth:login', { name: STAFF.admin, password: PASSWORD })
    if (!admin.ok) throw new Error(admin.error.message)
    const made = await app.call(
      'users:create',
      { name: STAFF.auditor, role: 'auditor', password: PASSWORD },
      admin.result.token,
    )
    expect(made.ok).toBe(true)
    const auditor = await app.call<{ token: string }>('auth:login', { name: STAFF.auditor, password: PASSWORD })
    if (!auditor.ok) throw new Error(auditor.error.message)
    expect(await app.call('settings:ledger', {}, auditor.result.token)).toMatchObject({
      ok: false,
      error: { code: 'FORBIDDEN' },
    })
    const { page } = await app.open()
    await signIn(page, 'auditor')
    expect(await menuEntries(page)).not.toContain('Réglage du registre')
  })
})
