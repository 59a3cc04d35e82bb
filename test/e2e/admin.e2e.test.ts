/**
 * The administrator's journey: staff accounts. A taken name is refused and the screen says why in
 * French; a new account is created and then deactivated; its owner, signing in, is told that the
 * account is deactivated (not that the password is wrong), and the administrator's refusals are
 * said in the interface's language, not in the server's English.
 */
import { describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { screenshot } from './support'
import { norm, signIn, useJourneyApp } from './fixtures/app'
import { SALES_LEDGER } from './fixtures/ledger'

const NEW_PASSWORD = 'nadia-password-2024'

/** The users table's row of `name`. */
const rowOf = (page: Page, name: string) => page.getByRole('row').filter({ has: page.locator('strong', { hasText: new RegExp(`^${name}$`) }) })

describe('admin: staff accounts', () => {
  const app = useJourneyApp(SALES_LEDGER)

  it('refuses a taken name in French, creates and deactivates an account, whose owner is told so at sign-in', async () => {
    const { page, problems } = await app.open()
    await signIn(page, 'admin')
    await page.getByRole('menuitem', { name: 'Utilisateurs' }).click()
    await page.getByRole('heading', { name: 'Utilisateurs', level: 1 }).waitFor()
    await rowOf(page, 'sophie').waitFor({ timeout: 15_000 })

    // a name already taken: refused, and said in French with the name
    const modal = page.getByRole('dialog').filter({ hasText: 'Nouvel utilisateur' })
    const create = async (name: string) => {
      await page.locator('[data-test="new-user"]').click()
      await modal.waitFor()
      await modal.locator('[data-test="user-name"] input').fill(name)
      await modal.locator('[data-test="user-password"] input').fill(NEW_PASSWORD)
      await modal.locator('[data-test="user-submit"]').click()
    }
    await create('sophie')
    const taken = page.locator('.n-message').filter({ hasText: 'sophie' })
    await taken.waitFor({ timeout: 15_000 })
    expect(norm(await taken.innerText())).toBe('Déjà fait ou déjà existant : un utilisateur nommé « sophie » existe déjà. Actualisez pour voir l’état actuel.')
    // the screenshot once the message has faded in
    const opacity = () =>
      taken.evaluate((el) => {
        // in the page (the tests' TypeScript has no DOM types)
        const page = globalThis as unknown as { getComputedStyle(e: unknown): { opacity: string } }
        return page.getComputedStyle((el as unknown as { closest(s: string): unknown }).closest('.n-message-wrapper') ?? el).opacity
      })
    await expect.poll(opacity).toBe('1')
    await screenshot(page, 'admin-1-name-taken')
    await modal.getByRole('button', { name: 'Annuler' }).click()
    await modal.waitFor({ state: 'hidden' })

    // a new account, then deactivated after confirmation
    await create('nadia')
    await page.locator('.n-message').filter({ hasText: 'Compte nadia créé.' }).waitFor({ timeout: 15_000 })
    const row = rowOf(page, 'nadia')
    await row.waitFor()
    await row.locator('[data-test="toggle-nadia"]').click()
    const confirm = page.getByRole('dialog').filter({ hasText: 'Désactiver nadia ?' })
    await confirm.getByRole('button', { name: 'Désactiver' }).click()
    await confirm.waitFor({ state: 'detached' })
    await page.locator('.n-message').filter({ hasText: 'nadia est désactivé.' }).waitFor({ timeout: 15_000 })
    // the row now offers to reactivate the account
    await expect.poll(async () => norm(await row.innerText())).toContain('Réactiver')
    await screenshot(page, 'admin-2-deactivated')

    // nadia, with her right password, is told that her account is deactivated
    const other = await app.open()
    await other.page.getByRole('heading', { name: 'Connexion' }).first().waitFor()
    await other.page.getByLabel(/^Identifiant/).fill('nadia')
    await other.page.getByLabel(/^Mot de passe\W*$/).fill(NEW_PASSWORD)
    await other.page.getByRole('button', { name: 'Se connecter' }).click()
    const refused = other.page.getByRole('alert')
    await refused.waitFor({ timeout: 15_000 })
    expect(norm(await refused.innerText())).toBe('Ce compte est désactivé : adressez-vous à un administrateur.')
    await screenshot(other.page, 'admin-3-deactivated-sign-in')

    // whereas a wrong password is said to be wrong
    await other.page.getByLabel(/^Mot de passe\W*$/).fill('not-her-password')
    await other.page.getByRole('button', { name: 'Se connecter' }).click()
    await expect.poll(async () => norm(await refused.innerText()), { timeout: 15_000 }).toMatch(/^Identifiant ou mot de passe incorrect/)

    expect(problems).toEqual([])
    expect(other.problems.filter((p) => !/status of 401/.test(p))).toEqual([])
  }, 120_000)
})
