/**
 * The administrator's journey: staff accounts. A taken name is refused and the screen says why in
 * French; a new account is created and then deactivated; its owner, signing in, is told that the
 * account is deactivated (not that the password is wrong), and the administrator's refusals are
 * said in the interface's language, not in the server's English.
 *
 * Then the sign-in throttle: five wrong passwords lock an account, and the right one is then
 * refused too, saying until when; the administrator sees the lockout on the users screen (with
 * each account's last sign-in) and lifts it. A change of role is confirmed with what the new role
 * may do, and logged with the role before and after. Staff change their own password from the
 * user menu, the current one required.
 */
import { describe, expect, it } from 'vitest'
import type { Page, Response } from 'playwright-core'
import { screenshot } from './support'
import { norm, pageToken, signIn, useJourneyApp } from './fixtures/app'
import { PASSWORD, SALES_LEDGER } from './fixtures/ledger'

const NEW_PASSWORD = 'nadia-password-2024'

/** A sign-in lockout's end as the screens say it in French: the minute a new attempt is taken. */
const frenchMinute = (iso: string) =>
  new Intl.DateTimeFormat('fr-FR', { hour: '2-digit', minute: '2-digit' }).format(
    new Date(Math.ceil(Date.parse(iso) / 60_000) * 60_000),
  )

/** Clicks and waits for the api's answer to `channel`. */
async function clickFor(page: Page, channel: string, click: () => Promise<void>): Promise<Response> {
  const answered = page.waitForResponse((r) => r.url().endsWith(`/api/${channel}`))
  await click()
  return answered
}

interface AuditItems {
  items: { actor: string; action: string; object: string; details: string }[]
}

/** The users table's row of `name`. */
const rowOf = (page: Page, name: string) =>
  page.getByRole('row').filter({ has: page.locator('strong', { hasText: new RegExp(`^${name}$`) }) })

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
    // said beside the name, which is what to change, not as a passing message
    const taken = modal.locator('[data-test="user-name-item"]')
    await expect
      .poll(async () => norm(await taken.innerText()), { timeout: 15_000 })
      .toContain('L’identifiant « sophie » est déjà pris : choisissez-en un autre.')
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
    await expect
      .poll(async () => norm(await refused.innerText()), { timeout: 15_000 })
      .toMatch(/^Identifiant ou mot de passe incorrect/)

    expect(problems).toEqual([])
    expect(other.problems.filter((p) => !/status of 401/.test(p))).toEqual([])
  }, 120_000)

  it('locks an account after 5 failed sign-ins and says until when; the administrator sees it, with last sign-ins, and unlocks it; a role change is confirmed; staff change their own password', async () => {
    // marc mistypes his password five times
    const marc = await app.open()
    const m = marc.page
    await m.getByRole('heading', { name: 'Connexion' }).first().waitFor()
    await m.getByLabel(/^Identifiant/).fill('marc')
    const refused = m.getByRole('alert')
    const attempt = async (password: string) => {
      await m.getByLabel(/^Mot de passe\W*$/).fill(password)
      return (await (
        await clickFor(m, 'auth:login', () => m.getByRole('button', { name: 'Se connecter' }).click())
      ).json()) as { ok: boolean; error?: { reason?: { key: string; params: { until?: string } } } }
    }
    let logins = 0
    m.on('request', (r) => void (r.url().endsWith('/api/auth:login') && logins++))
    for (let i = 1; i <= 5; i++) {
      expect((await attempt(`not-his-password-${i}`)).error?.reason?.key).toBe('WRONG_CREDENTIALS')
      // one press, one attempt: each counts against the throttle
      expect(logins).toBe(i)
      await expect.poll(async () => norm(await refused.innerText())).toMatch(/^Identifiant ou mot de passe incorrect/)
    }
    // now his right password is refused as well, saying until when, and nothing about the password
    const locked = await attempt(PASSWORD)
    expect(locked.error?.reason?.key).toBe('SIGN_IN_LOCKED')
    const until = locked.error!.reason!.params.until!
    const when = frenchMinute(until)
    const lockedText = `Trop de tentatives de connexion infructueuses avec cet identifiant : réessayez à partir de ${when}.`
    await expect.poll(async () => norm(await refused.innerText())).toBe(lockedText)
    await screenshot(m, 'admin-4-sign-in-locked')
    // a name that is no account is refused the same way after five failures
    await m.getByLabel(/^Identifiant/).fill('personne')
    for (let i = 1; i <= 5; i++) await attempt(`guess-${i}`)
    expect((await attempt('guess-6')).error?.reason?.key).toBe('SIGN_IN_LOCKED')
    await expect
      .poll(async () => norm(await refused.innerText()))
      .toMatch(
        /^Trop de tentatives de connexion infructueuses avec cet identifiant : réessayez à partir de \d\d:\d\d\.$/,
      )

    // the administrator sees which account is locked and until when, and each last sign-in
    const { page, problems } = await app.open()
    await signIn(page, 'admin')
    await page.getByRole('menuitem', { name: 'Utilisateurs' }).click()
    await page.getByRole('heading', { name: 'Utilisateurs', level: 1 }).waitFor()
    const row = rowOf(page, 'marc')
    await row.waitFor({ timeout: 15_000 })
    expect(norm(await row.innerText())).toContain(`Verrouillé jusqu’à ${when}`)
    await page.getByRole('columnheader', { name: 'Dernière connexion' }).waitFor()
    expect(norm(await rowOf(page, 'aline').innerText())).toContain('jamais')
    expect(norm(await rowOf(page, 'admin').innerText())).not.toContain('jamais')
    expect(norm(await rowOf(page, 'aline').innerText())).not.toContain('Verrouillé')
    // the screenshot once the table's loading veil has faded out
    await expect.poll(() => page.locator('.n-data-table-loading-wrapper').count()).toBe(0)
    await screenshot(page, 'admin-5-users-locked')
    // and unlocks it
    await row.locator('[data-test="unlock-marc"]').click()
    await page.locator('.n-message').filter({ hasText: 'Le compte marc est déverrouillé' }).waitFor({ timeout: 15_000 })
    await expect.poll(async () => norm(await row.innerText())).not.toContain('Verrouillé')
    const adminToken = await pageToken(page)
    const unlocked = await app.call<AuditItems>('audit:list', { action: 'user.unlock' }, adminToken)
    expect(unlocked.ok && unlocked.result.items[0]).toMatchObject({ actor: 'admin', action: 'user.unlock' })
    expect(unlocked.ok && JSON.parse(unlocked.result.items[0].details)).toMatchObject({
      name: 'marc',
      lockedUntil: until,
      failures: 5,
    })

    // a change of role is confirmed with what the new role may do, and logged with before and after
    const sophie = rowOf(page, 'sophie')
    await sophie.locator('[data-test="role-sophie"]').click()
    await page
      .locator('.n-base-select-option')
      .filter({ hasText: /^Auditeur$/ })
      .click()
    const confirm = page.getByRole('dialog').filter({ hasText: 'sophie deviendra Auditeur.' })
    await confirm.waitFor()
    expect(norm(await confirm.innerText())).toContain(
      'sophie deviendra Auditeur. Un auditeur peut voir les unités invendues (motif à l’appui), vérifier les blocs et le registre, et lire le journal d’audit.',
    )
    await screenshot(page, 'admin-6-role-confirm')
    await confirm.getByRole('button', { name: 'Changer le rôle', exact: true }).click()
    await page.locator('.n-message').filter({ hasText: 'sophie est maintenant Auditeur.' }).waitFor({ timeout: 15_000 })
    const updated = await app.call<AuditItems>('audit:list', { action: 'user.update' }, adminToken)
    expect(updated.ok && JSON.parse(updated.result.items[0].details)).toEqual({
      name: 'sophie',
      role: { from: 'support', to: 'auditor' },
      confirmation: 'awaited',
    })

    // marc signs in, then changes his own password from the user menu
    await m.getByLabel(/^Identifiant/).fill('marc')
    expect((await attempt(PASSWORD)).ok).toBe(true)
    await expect
      .poll(
        () =>
          m
            .locator('.n-layout-header')
            .innerText()
            .catch(() => ''),
        { timeout: 15_000 },
      )
      .toContain('marc')
    await m.locator('.n-layout-header .user').click()
    await m.locator('.n-dropdown-option').filter({ hasText: 'Changer mon mot de passe' }).click()
    const modal = m.getByRole('dialog').filter({ hasText: 'Changer mon mot de passe' })
    await modal.waitFor()
    const fillPasswords = async (current: string, next: string) => {
      await modal.locator('[data-test="password-current"] input').fill(current)
      await modal.locator('[data-test="password-new"] input').fill(next)
      await modal.locator('[data-test="password-again"] input').fill(next)
    }
    await fillPasswords('not-his-password', 'marc-new-password-1')
    await clickFor(m, 'auth:changePassword', () => modal.locator('[data-test="password-submit"]').click())
    await expect
      .poll(async () => norm(await modal.locator('[data-test="password-error"]').innerText()))
      .toBe('Le mot de passe actuel est incorrect.')
    await screenshot(m, 'admin-7-own-password')
    await fillPasswords(PASSWORD, 'marc-new-password-1')
    await clickFor(m, 'auth:changePassword', () => modal.locator('[data-test="password-submit"]').click())
    await m.locator('.n-message').filter({ hasText: 'Votre mot de passe est changé' }).waitFor({ timeout: 15_000 })
    const changed = await app.call<AuditItems>('audit:list', { action: 'auth.password-change' }, adminToken)
    expect(changed.ok && changed.result.items[0]).toMatchObject({ actor: 'marc', action: 'auth.password-change' })
    // signed out, the old password no longer signs in; the new one does
    await m.locator('.n-layout-header .user').click()
    await m.locator('.n-dropdown-option').filter({ hasText: 'Se déconnecter' }).click()
    await m.getByRole('heading', { name: 'Connexion' }).first().waitFor()
    await m.getByLabel(/^Identifiant/).fill('marc')
    expect((await attempt(PASSWORD)).error?.reason?.key).toBe('WRONG_CREDENTIALS')
    expect((await attempt('marc-new-password-1')).ok).toBe(true)
    await expect
      .poll(
        () =>
          m
            .locator('.n-layout-header')
            .innerText()
            .catch(() => ''),
        { timeout: 15_000 },
      )
      .toContain('marc')

    expect(problems).toEqual([])
    expect(marc.problems.filter((p) => !/status of 401/.test(p))).toEqual([])
  }, 180_000)
})
