/**
 * A prize claim from the win to its payment, in Chromium, on a ledger whose emission claims from
 * 100 € (about 200 claims among 20,000 sales): support finds the claim and verifies the winner's
 * identity, and is offered no approval; a manager approves, then pays with a reference; the claim
 * shows every step's who, the list's counts move, a second payment is not offered. A bad or used
 * reference is said beside its field. A related party's claim asks an auditor's sign-off before
 * it is paid. Expectations come from the ledger file read with SQL.
 */
import type { Page } from 'playwright-core'
import { beforeAll, describe, expect, it } from 'vitest'
import { screenshot } from './support'
import { eur, int, norm, signIn, useJourneyApp } from './fixtures/app'
import { CLAIMS_LEDGER, ledgerFacts, STAFF, type ClaimFacts } from './fixtures/ledger'

const text = async (page: Page, selector: string) => norm(await page.locator(selector).first().innerText())
const status = (page: Page) => page.locator('[data-test="claim-status"]').getAttribute('data-status')

async function goTo(page: Page, hash: string): Promise<void> {
  await page.evaluate(`location.hash = ${JSON.stringify(hash)}`)
}

/** Opens a step's form from the claim's page, fills it, sends it, and waits for the claim's new status. */
async function takeStep(page: Page, step: string, fill: () => Promise<void>, then: string): Promise<void> {
  await page.locator(`[data-test="claim-${step}"]`).click()
  await fill()
  await page.locator(`[data-test="claim-${step}-submit"]`).click()
  await expect.poll(() => status(page), { timeout: 15_000 }).toBe(then)
  await formClosed(page)
}

/** The step's form gone (it fades out), and its message with it: the page as the user then sees it. */
async function formClosed(page: Page): Promise<void> {
  await page.locator('.n-modal').waitFor({ state: 'detached', timeout: 10_000 })
  await page
    .locator('.n-message')
    .first()
    .waitFor({ state: 'detached', timeout: 10_000 })
    .catch(() => {})
}

/** Types a date of birth into the verify form's picker (as the user's locale writes it), then leaves the field. */
async function birthDate(page: Page, day: string): Promise<void> {
  const input = page.locator('[data-test="claim-birth-date"] input')
  await input.fill(day)
  // the calendar opened below the field: a click on the form's title closes it, the typed day kept
  await page.locator('.n-modal .n-card-header').click()
  await page.locator('.n-date-panel').waitFor({ state: 'detached', timeout: 5_000 })
}

/** Opens the assign form of the claim shown and sends a typed name. */
async function assign(page: Page, name: string): Promise<void> {
  if ((await page.locator('.n-modal').count()) === 0) await page.locator('[data-test="claim-assign"]').click()
  await page.locator('[data-test="claim-assignee"] input').fill(name)
  await page.locator('[data-test="claim-assign-submit"]').click()
}

/** The winner's receipt of the claim paid: its facts, the winner masked, the signatures, Print. */
async function receipt(page: Page, claim: ClaimFacts): Promise<void> {
  await page.locator('[data-test="claim-receipt-link"]').click()
  await page.locator('[data-test="receipt"]').waitFor({ timeout: 15_000 })
  const whole = await text(page, '[data-test="receipt"]')
  expect(whole).toContain('500 000 CARATS')
  expect(await text(page, '[data-test="receipt-serial"]')).toBe(claim.serial)
  expect(await text(page, '[data-test="receipt-amount"]')).toBe(eur(claim.prizeCents))
  expect(await text(page, '[data-test="receipt-method"]')).toBe('Virement')
  expect(await text(page, '[data-test="receipt-reference"]')).toBe('VIR-2026-0001')
  expect(await text(page, '[data-test="receipt-winner"]')).toBe('J. M., né(e) en 1980')
  expect(await text(page, '[data-test="receipt-paid-by"]')).toBe(STAFF.manager)
  expect(whole).not.toContain('Jeanne')
  expect(whole).not.toContain('18AB12345')
  expect(await page.locator('[data-test="signatures"] .box').count()).toBe(2)
  // the journey's emission is a demonstration (simulated sales): said on the receipt, and watermarked
  expect(await text(page, '[data-test="receipt-demo"]')).toContain('ne vaut pas paiement d’un gain réel')
  expect(await page.locator('[data-test="receipt"] .watermark').count()).toBe(1)
  await page.evaluate('window.__printed = 0; window.print = () => { window.__printed++ }')
  await page.locator('[data-test="print"]').click()
  expect(await page.evaluate('window.__printed')).toBe(1)
  await screenshot(page, 'claims-3b-receipt')
  await page.screenshot({ path: '/tmp/claim-receipt.png', fullPage: true })
  await page.goBack()
  await expect.poll(() => status(page), { timeout: 15_000 }).toBe('paid')
}

async function look(page: Page, locale: 'fr' | 'en', theme: 'light' | 'dark'): Promise<void> {
  await page.evaluate(
    `localStorage.setItem('carats.locale', '${locale}'); localStorage.setItem('carats.theme', '${theme}')`,
  )
  await page.reload()
  // the screen shown again, before the test moves on (a change of address during the reload's start is lost)
  await page.locator('h1').first().waitFor({ timeout: 15_000 })
}

describe('prize claims: from a win to its payment', () => {
  const app = useJourneyApp(CLAIMS_LEDGER)
  let claims: ClaimFacts[]
  /** The newest claim (paid through the screens), another (its reference taken), a third (a related party's). */
  let won: ClaimFacts
  let other: ClaimFacts
  let related: ClaimFacts

  beforeAll(() => {
    const facts = ledgerFacts(app.dbPath)
    try {
      claims = facts.claims()
    } finally {
      facts.close()
    }
    expect(claims.length).toBeGreaterThan(50)
    expect(claims.every((c) => c.status === 'pending' && c.prizeCents >= 10_000)).toBe(true)
    won = claims[0]
    other = claims.find((c) => c.player !== won.player)!
    related = claims.find((c) => c.player !== won.player && c.player !== other.player)!
  })

  it('support verifies, a manager approves and pays; every step says who', async () => {
    const pending = claims.length
    const { page, problems } = await app.open()
    await signIn(page, 'support')
    await page.getByRole('menuitem', { name: 'Réclamations' }).click()
    await page.getByRole('heading', { name: 'Réclamations de gains', level: 1 }).waitFor()
    // the counts per status, each a filter
    await expect.poll(() => text(page, '[data-test="total-pending"]')).toContain(`${int(pending)} réclamations`)
    await page.locator('[data-test="total-pending"]').click()
    await expect.poll(() => page.url()).toContain('status=pending')
    await page.locator('[data-test="filter-player"] input').fill(won.player)
    await page.locator('[data-test="filter-player"] input').press('Enter')
    await expect.poll(() => page.url()).toContain(`player=${encodeURIComponent(won.player)}`)
    const row = page.locator('[data-test="claims-table"] tbody tr').filter({ hasText: won.serial })
    await row.waitFor({ timeout: 15_000 })
    expect(norm(await row.innerText())).toContain(eur(won.prizeCents))
    await screenshot(page, 'claims-1-list-fr')
    await row.click()

    // the claim's page: its facts, its ticket, what it waits for
    await expect.poll(() => status(page), { timeout: 15_000 }).toBe('pending')
    expect(await text(page, '[data-test="claim-prize"]')).toBe(eur(won.prizeCents))
    await page.locator('[data-test="claim-ticket"]').waitFor({ timeout: 15_000 })
    expect(await text(page, '[data-test="claim-ticket"]')).toContain(won.serial)
    expect(await text(page, '[data-test="note-next"]')).toContain('le service client vérifie l’identité')
    expect(await page.locator('[data-test="winner-figures"]').count()).toBe(1)

    // a document number too short is said beside its field, and the form is not sent
    await page.locator('[data-test="claim-verify"]').click()
    await page.locator('[data-test="claim-document"]').click()
    await page.locator('.n-base-select-option').filter({ hasText: 'Passeport' }).click()
    await page.locator('[data-test="claim-reference"] input').fill('12')
    await expect.poll(() => text(page, '[data-test="claim-reference-item"]')).toContain('Au moins 4 caractères')
    expect(await page.locator('[data-test="claim-verify-submit"]').isDisabled()).toBe(true)
    await screenshot(page, 'claims-2-verify-form')
    await page.locator('[data-test="claim-reference"] input').fill('18AB12345')
    // the winner's name and date of birth are asked too
    expect(await page.locator('[data-test="claim-verify-submit"]').isDisabled()).toBe(true)
    await page.locator('[data-test="claim-winner-name"] input').fill('Jeanne Martin')
    // a minor is refused by the ledger, said beside the date; nothing is recorded
    await birthDate(page, '01/01/2015')
    await page.locator('[data-test="claim-verify-submit"]').click()
    await expect
      .poll(() => text(page, '[data-test="claim-birth-date-item"]'), { timeout: 15_000 })
      .toContain('le gagnant a moins de 18 ans')
    expect(await status(page)).toBe('pending')
    await screenshot(page, 'claims-2b-verify-minor')
    await birthDate(page, '14/05/1980')
    await expect.poll(() => text(page, '[data-test="claim-birth-date-item"]')).not.toContain('moins de 18 ans')
    await page.locator('[data-test="claim-verify-submit"]').click()
    await expect.poll(() => status(page), { timeout: 15_000 }).toBe('verified')
    await formClosed(page)
    expect(await text(page, '[data-test="step-verified"]')).toContain(`par ${STAFF.support}`)
    // the document's number masked to its last four characters, for everyone; the winner by initials and year
    expect(await text(page, '[data-test="step-verified"]')).toContain('Passeport n° …2345')
    expect(await text(page, '[data-test="step-verified"]')).not.toContain('18AB12345')
    expect(await text(page, '[data-test="claim-document-masked"]')).toBe('Passeport n° …2345')
    expect(await text(page, '[data-test="claim-winner"]')).toBe('J. M., né(e) en 1980')
    expect(await text(page, '[data-test="claim"]')).not.toContain('Jeanne')
    expect(await text(page, '[data-test="claim-days-pending"]')).toMatch(/jour|aujourd’hui/)
    // support neither assigns nor sees the whole identity
    expect(await page.locator('[data-test="claim-assign"]').count()).toBe(0)
    expect(await page.locator('[data-test="claim-identity"]').count()).toBe(0)
    // the person who verified is offered no approval: a manager, someone else, approves
    expect(await page.locator('[data-test="claim-approve"]').count()).toBe(0)
    expect(await text(page, '[data-test="note-next"]')).toContain(
      `un responsable, autre que ${STAFF.support}, approuve`,
    )

    // the manager approves, then pays
    const manager = await app.open()
    await signIn(manager.page, 'manager')
    const m = manager.page
    await goTo(m, `#/claims/${won.serial}`)
    await expect.poll(() => status(m), { timeout: 15_000 }).toBe('verified')
    await takeStep(m, 'approve', async () => {}, 'approved')
    await m.locator('[data-test="claim-pay"]').click()
    await m.locator('[data-test="claim-payment"] input').fill('ab')
    await expect.poll(() => text(m, '[data-test="claim-payment-item"]')).toContain('Au moins 3 caractères')
    expect(await m.locator('[data-test="claim-pay-submit"]').isDisabled()).toBe(true)
    await m.locator('[data-test="claim-payment"] input').fill('VIR-2026-0001')
    // the method is asked too
    expect(await m.locator('[data-test="claim-pay-submit"]').isDisabled()).toBe(true)
    await m.locator('[data-test="claim-method-transfer"]').click()
    await m.locator('[data-test="claim-pay-submit"]').click()
    await expect.poll(() => status(m), { timeout: 15_000 }).toBe('paid')
    await formClosed(m)

    // paid, with who took each step; nothing more offered
    expect(await text(m, '[data-test="step-approved"]')).toContain(`par ${STAFF.manager}`)
    expect(await text(m, '[data-test="step-paid"]')).toContain(`par ${STAFF.manager}`)
    expect(await text(m, '[data-test="step-paid"]')).toContain('VIR-2026-0001')
    expect(await text(m, '[data-test="step-verified"]')).toContain(`par ${STAFF.support}`)
    expect(await m.locator('[data-test="claim-pay"]').count()).toBe(0)
    expect(await m.locator('[data-test="claim-actions"] button').count()).toBe(0)
    expect(await text(m, '[data-test="note-closed"]')).toContain('la réclamation est close')
    expect(await text(m, '[data-test="claim-method-paid"]')).toBe('Virement')
    expect(await m.locator('[data-test="claim-status"] [data-test="demo-tag"]').count()).toBe(1)
    expect(await m.locator('[data-test="claim-days-pending"]').count()).toBe(0)
    await screenshot(m, 'claims-3-paid-fr')
    await m.screenshot({ path: '/tmp/claim-page.png', fullPage: true })
    await receipt(m, won)
    await look(m, 'fr', 'dark')
    await expect.poll(() => status(m), { timeout: 15_000 }).toBe('paid')
    await m.waitForTimeout(400)
    await screenshot(m, 'claims-4-paid-dark')
    await look(m, 'fr', 'light')

    // the list's counts moved
    await goTo(m, '#/claims')
    await expect.poll(() => text(m, '[data-test="total-paid"]'), { timeout: 15_000 }).toContain('1 réclamation')
    expect(await text(m, '[data-test="total-paid"]')).toContain(eur(won.prizeCents))
    expect(await text(m, '[data-test="total-pending"]')).toContain(`${int(pending - 1)} réclamations`)

    // a reference already used is said beside its field
    const [support, mgr] = [await app.token('support'), await app.token('manager')]
    expect(
      (
        await app.call(
          'claims:verify',
          { serial: other.serial, identity: { document: 'id-card', reference: 'X9876543' } },
          support,
        )
      ).ok,
    ).toBe(true)
    expect((await app.call('claims:approve', { serial: other.serial }, mgr)).ok).toBe(true)
    await goTo(m, `#/claims/${other.serial}`)
    await expect.poll(() => status(m), { timeout: 15_000 }).toBe('approved')
    await m.locator('[data-test="claim-pay"]').click()
    await m.locator('[data-test="claim-payment"] input').fill('VIR-2026-0001')
    await m.locator('[data-test="claim-method-cheque"]').click()
    await m.locator('[data-test="claim-pay-submit"]').click()
    await expect
      .poll(() => text(m, '[data-test="claim-payment-item"]'), { timeout: 15_000 })
      .toContain(`Déjà utilisée pour la réclamation ${won.serial}`)
    expect(await status(m)).toBe('approved')
    await screenshot(m, 'claims-5-reference-used')
    await m.locator('.n-modal [data-test="claim-pay-submit"]').waitFor()
    await m.keyboard.press('Escape')
    await formClosed(m)

    // the manager assigns the open claim (typed: a manager does not read the accounts), refused for an auditor
    await assign(m, STAFF.auditor)
    await expect
      .poll(() => text(m, '[data-test="claim-assignee-item"]'), { timeout: 15_000 })
      .toContain(`${STAFF.auditor} n’est pas un compte actif`)
    await assign(m, STAFF.support)
    await m.locator('.n-modal').waitFor({ state: 'detached', timeout: 10_000 })
    await expect.poll(() => text(m, '[data-test="claim-assigned"]'), { timeout: 15_000 }).toContain(STAFF.support)
    await goTo(m, `#/claims?player=${encodeURIComponent(other.player)}`)
    const assignedRow = m.locator('[data-test="claims-table"] tbody tr').filter({ hasText: other.serial })
    await assignedRow.waitFor({ timeout: 15_000 })
    expect(norm(await assignedRow.innerText())).toContain(STAFF.support)
    expect(await text(m, '[data-test="claims-table"] thead')).toContain('Confiée à')
    expect(await text(m, '[data-test="claims-table"] thead')).toContain('Jours en attente')
    expect(problems).toEqual([])
    expect(manager.problems).toEqual([])
  }, 180_000)

  it('a related party’s claim needs an auditor’s sign-off before its payment', async () => {
    const admin = await app.token('admin')
    const added = await app.call(
      'parties:add',
      { player: related.player, relation: 'staff', linkedTo: 'Jean Dupont', reason: 'Frère d’un guichetier' },
      admin,
    )
    expect(added.ok).toBe(true)
    expect(
      (
        await app.call(
          'claims:verify',
          { serial: related.serial, identity: { document: 'passport', reference: 'P1234567' } },
          await app.token('support'),
        )
      ).ok,
    ).toBe(true)

    const { page: m, problems } = await app.open()
    await signIn(m, 'manager')
    await goTo(m, `#/claims/${related.serial}`)
    await expect.poll(() => status(m), { timeout: 15_000 }).toBe('verified')
    expect(await text(m, '[data-test="claim-status"]')).toContain('Personne liée')
    expect(await text(m, '[data-test="note-signOffNeeded"]')).toContain(
      'un auditeur doit viser cette réclamation avant son paiement',
    )
    expect(await text(m, '[data-test="claim-parties"]')).toContain('lié à Jean Dupont')
    await takeStep(m, 'approve', async () => {}, 'approved')
    // approved, not signed off: no payment yet
    expect(await m.locator('[data-test="claim-pay"]').count()).toBe(0)
    expect(await m.locator('[data-test="note-signOffNeeded"]').count()).toBe(1)
    expect(await text(m, '[data-test="note-next"]')).toContain('un auditeur la vise, puis')
    await screenshot(m, 'claims-6-related-manager')

    const auditor = await app.open()
    await signIn(auditor.page, 'auditor')
    const a = auditor.page
    await goTo(a, `#/claims/${related.serial}`)
    await expect.poll(() => status(a), { timeout: 15_000 }).toBe('approved')
    await a.locator('[data-test="claim-signOff"]').click()
    await a.locator('[data-test="claim-signOff-submit"]').click()
    await a.locator('[data-test="step-signedOff"]').waitFor({ timeout: 15_000 })
    expect(await text(a, '[data-test="step-signedOff"]')).toContain(`par ${STAFF.auditor}`)
    expect(await a.locator('[data-test="claim-signOff"]').count()).toBe(0)

    // the auditor looks at the whole identity of the claim paid in the first test, with a reason
    await goTo(a, `#/claims/${won.serial}`)
    await expect.poll(() => status(a), { timeout: 15_000 }).toBe('paid')
    await a.locator('[data-test="claim-identity"]').click()
    await a.locator('[data-test="claim-identity-reason"] input').fill('ok')
    expect(await a.locator('[data-test="claim-identity-submit"]').isDisabled()).toBe(true)
    await a.locator('[data-test="claim-identity-reason"] input').fill('Contrôle du paiement')
    await a.locator('[data-test="claim-identity-submit"]').click()
    const whole = a.locator('[data-test="claim-identity-whole"]')
    await whole.waitFor({ timeout: 15_000 })
    expect(await text(a, '[data-test="identity-name"]')).toBe('Jeanne Martin')
    expect(await text(a, '[data-test="identity-birth-date"]')).toContain('1980')
    expect(await text(a, '[data-test="identity-reference"]')).toBe('18AB12345')
    expect(await text(a, '[data-test="claim-identity-logged"]')).toContain('Contrôle du paiement')
    await screenshot(a, 'claims-6b-identity')
    await a.locator('[data-test="claim-identity-close"]').click()
    await whole.waitFor({ state: 'detached', timeout: 10_000 })
    // the page itself still shows it masked
    expect(await text(a, '[data-test="claim"]')).not.toContain('18AB12345')
    const looked = await app.call('audit:list', { action: 'claim.identity-view' }, await app.token('auditor'))
    expect(JSON.stringify(looked)).toContain(won.serial)

    // signed off: the manager may pay it now
    await m.reload()
    await expect.poll(() => status(m), { timeout: 15_000 }).toBe('approved')
    await m.locator('[data-test="claim-pay"]').waitFor()
    expect(await m.locator('[data-test="note-signOffNeeded"]').count()).toBe(0)
    expect(problems).toEqual([])
    expect(auditor.problems).toEqual([])
  }, 120_000)

  it('shows a player’s claims and figures to support, and the list in English', async () => {
    const { page, problems } = await app.open()
    await signIn(page, 'support')
    await goTo(page, `#/support?player=${encodeURIComponent(won.player)}`)
    const section = page.locator('[data-test="player-claims"]')
    await section.waitFor({ timeout: 15_000 })
    await expect.poll(async () => norm(await section.innerText()), { timeout: 15_000 }).toContain(won.serial)
    const figures = norm(await section.locator('[data-test="winner-figures"]').innerText())
    expect(figures).toContain('Unités achetées')
    await screenshot(page, 'claims-7-support-player')
    await section.getByRole('link', { name: won.serial }).click()
    await expect.poll(() => status(page), { timeout: 15_000 }).toBe('paid')

    await look(page, 'en', 'light')
    await goTo(page, '#/claims')
    await page.getByRole('heading', { name: 'Prize claims', level: 1 }).waitFor({ timeout: 15_000 })
    await expect.poll(() => text(page, '[data-test="total-paid"]'), { timeout: 15_000 }).toContain('1 claim')
    await screenshot(page, 'claims-8-list-en')
    expect(problems).toEqual([])
  }, 120_000)
})
