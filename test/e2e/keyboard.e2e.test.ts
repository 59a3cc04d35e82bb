/**
 * The keyboard alone (Tab, Shift+Tab, Enter, Space, arrows; text typed into fields): the support
 * desk's journey (sign in, find a player, open the last unit, replay it, open the ticket) and the
 * operator's (sign in, create an emission, generate, verify, open it), with the focus drawn at
 * every stop, the window's title naming each screen, and the landmarks in place. The operator
 * creates a demonstration emission (the form's demo box): one person may generate it alone,
 * where a real emission's generation waits for a two-person key ceremony.
 */
import type { Locator, Page } from 'playwright-core'
import { beforeAll, describe, expect, it } from 'vitest'
import type { Role } from '../../electron/contract/define'
import { screenshot } from './support'
import { norm, useJourneyApp } from './fixtures/app'
import { byLabel, byTest, byText, tabTo } from './fixtures/keys'
import { ledgerFacts, PASSWORD, SALES_LEDGER, STAFF, type PlayerFacts } from './fixtures/ledger'

const APP = '500 000 CARATS'

async function h1(page: Page, text: string | RegExp): Promise<void> {
  await page.getByRole('heading', { level: 1, name: text }).waitFor({ timeout: 20_000 })
}

async function signInByKeys(page: Page, role: Role): Promise<void> {
  await page.getByRole('heading', { name: 'Connexion' }).first().waitFor()
  expect(await page.title()).toBe(`Connexion — ${APP}`)
  await tabTo(page, 'the name field', `el.id === 'login-name'`)
  await page.keyboard.type(STAFF[role])
  await page.keyboard.press('Tab')
  await page.keyboard.type(PASSWORD)
  await page.keyboard.press('Enter')
  await expect
    .poll(
      () =>
        page
          .locator('[role="banner"]')
          .innerText()
          .catch(() => ''),
      { timeout: 15_000 },
    )
    .toContain(STAFF[role])
}

/**
 * Tabs to the row's `step` button and presses Enter, until its task shows it started (the button
 * no longer offered) or has ended (`done`). On a busy machine the list may be drawn again between
 * the focus and the key (its button briefly disabled): such a press starts nothing and is made
 * again, at most three times, each after 15 s without a start.
 */
async function pressToStart(page: Page, row: Locator, step: string, n: number, done: string): Promise<void> {
  const offered = row.locator(`[data-test="${step}-${n}"]:not([disabled])`)
  const started = async () => norm(await row.innerText()).includes(done) || (await offered.count()) === 0
  for (let press = 1; press <= 3; press++) {
    await offered.waitFor({ timeout: 60_000 })
    await tabTo(page, step, byTest(`${step}-${n}`))
    await page.keyboard.press('Enter')
    const ok = await expect
      .poll(started, { timeout: 15_000, interval: 250 })
      .toBe(true)
      .then(
        () => true,
        () => false,
      )
    if (ok) return
  }
  throw new Error(`${step}: three presses of Enter started nothing; the row says: ${norm(await row.innerText())}`)
}

describe('keyboard only', () => {
  const app = useJourneyApp(SALES_LEDGER)
  let player: PlayerFacts

  beforeAll(() => {
    const facts = ledgerFacts(app.dbPath)
    try {
      player = facts.playerWithWinningLastUnit()
    } finally {
      facts.close()
    }
  })

  it('support: signs in, finds a player, opens and replays the last unit, opens its ticket', async () => {
    const { page, problems } = await app.open()
    // an error is tied to its field: the empty form says what is missing, on the field itself
    await page.getByRole('heading', { name: 'Connexion' }).first().waitFor()
    await tabTo(page, 'the sign-in button', byText('Se connecter'))
    await page.keyboard.press('Enter')
    const name = page.locator('#login-name')
    await expect.poll(() => name.getAttribute('aria-invalid')).toBe('true')
    const describedBy = await name.getAttribute('aria-describedby')
    expect(norm(await page.locator(`[id="${describedBy}"]`).innerText())).toBe('Saisissez votre identifiant.')
    await signInByKeys(page, 'support')
    await h1(page, 'Service client')
    expect(await page.title()).toBe(`Service client — ${APP}`)
    // landmarks: one banner, one navigation, one main
    expect(
      await page.evaluate(
        `[document.querySelectorAll('[role="banner"], header.n-layout-header').length, document.querySelectorAll('nav').length, document.querySelectorAll('main').length]`,
      ),
    ).toEqual([1, 1, 1])

    await tabTo(page, 'the player search field', byTest('player-query'))
    await page.keyboard.type(player.player.slice(0, 5))
    await page.keyboard.press('Enter')
    await page.getByRole('link', { name: player.player, exact: true }).waitFor({ timeout: 15_000 })
    await tabTo(
      page,
      `the player ${player.player}`,
      `el.tagName === 'A' && el.innerText.trim() === ${JSON.stringify(player.player)}`,
    )
    await screenshot(page, 'keyboard-support-1-found')
    await page.keyboard.press('Enter')

    const lastCard = page.locator('[data-test="last-unit"]')
    await lastCard.waitFor({ timeout: 15_000 })
    expect(norm(await lastCard.innerText())).toContain(player.lastUnits[0].serial)
    await tabTo(page, 'the last unit’s replay', byTest('last-replay'))
    await screenshot(page, 'keyboard-support-2-last-unit')
    await page.keyboard.press('Enter')

    await h1(page, /Rejeu du grattage/)
    expect(await page.title()).toBe(`Rejeu du grattage — ${APP}`)
    const count = page.locator('[data-test="count"]')
    await count.waitFor({ timeout: 15_000 }) // the unit's play has loaded
    const shown = async () => Number(/(\d+) \//.exec(norm(await count.innerText()))?.[1] ?? NaN)
    // back to the start with Enter, then one reveal at a time with Space
    await tabTo(page, 'restart', byLabel('Depuis le début'))
    await page.keyboard.press('Enter')
    await expect.poll(shown).toBe(0)
    await tabTo(page, 'next reveal', byLabel('Découverte suivante'))
    for (let i = 1; i <= 3; i++) {
      await page.keyboard.press('Space')
      await expect.poll(shown).toBe(i)
    }
    // the timeline is a named slider the arrow keys move
    await tabTo(page, 'the timeline', `el.getAttribute('role') === 'slider'`, { back: true })
    expect(await page.evaluate('document.activeElement.getAttribute("aria-label")')).toBe('Chronologie')
    const before = Number(await page.evaluate('document.activeElement.getAttribute("aria-valuenow")'))
    for (let i = 0; i < 5; i++) await page.keyboard.press('ArrowRight')
    await expect
      .poll(async () => Number(await page.evaluate('document.activeElement.getAttribute("aria-valuenow")')))
      .toBeGreaterThan(before)
    await screenshot(page, 'keyboard-support-3-replay')

    // back to the player, then the ticket of the last unit
    await tabTo(page, 'the back link', byText('← Retour'), { back: true })
    await page.keyboard.press('Enter')
    await lastCard.waitFor({ timeout: 15_000 })
    await tabTo(
      page,
      'inspect the last unit',
      `el.closest('[data-test="last-unit"]') && el.innerText.trim() === 'Inspecter'`,
    )
    await page.keyboard.press('Enter')
    await h1(page, 'Inspecteur de tickets')
    expect(decodeURIComponent(page.url())).toContain(`#/tickets/${player.lastUnits[0].serial}`)
    expect(await page.title()).toBe(`Inspecteur de tickets — ${APP}`)
    await screenshot(page, 'keyboard-support-4-ticket')
    expect(problems).toEqual([])
  }, 180_000)

  it('operator: creates a demonstration emission, generates, verifies and opens it', async () => {
    const { page, problems } = await app.open()
    await signInByKeys(page, 'operator')
    await h1(page, 'Émissions')
    expect(await page.title()).toBe(`Émissions — ${APP}`)

    await tabTo(page, 'new emission', byTest('new-emission'))
    await page.keyboard.press('Enter')
    await page.getByRole('dialog').waitFor()
    await tabTo(page, 'the code field', byTest('create-code'))
    await page.keyboard.type('KEYS-1')
    await tabTo(page, 'the demo box', byTest('create-demo'))
    await page.keyboard.press('Space')
    await expect.poll(() => page.locator('[data-test="create-demo"]').getAttribute('aria-checked')).toBe('true')
    // the demo box's hint is tied to it
    const hint = await page.evaluate(
      `document.getElementById(document.activeElement.getAttribute('aria-describedby')).innerText`,
    )
    expect(norm(String(hint))).toMatch(/démonstration/i)
    await tabTo(page, 'create', byTest('create-submit'))
    await screenshot(page, 'keyboard-operator-1-create')
    await page.keyboard.press('Enter')

    const row = page.getByRole('row').filter({ hasText: 'KEYS-1' })
    await row.waitFor({ timeout: 15_000 })
    const generate = row.locator('[data-test^="generate-"]')
    await generate.waitFor({ timeout: 15_000 })
    const n = Number((await generate.getAttribute('data-test'))?.replace('generate-', ''))
    expect(n).toBeGreaterThan(1)

    for (const [step, done] of [
      ['generate', 'Générée'],
      ['verify', 'Vérifiée'],
    ] as const) {
      await pressToStart(page, row, step, n, done)
      await expect.poll(async () => norm(await row.innerText()), { timeout: 240_000, interval: 500 }).toContain(done)
    }
    await screenshot(page, 'keyboard-operator-2-verified')

    await tabTo(page, 'the emission’s details', byTest(`details-${n}`))
    await page.keyboard.press('Enter')
    await h1(page, new RegExp(`Émission 0*${n}`))
    expect(await page.title()).toMatch(new RegExp(`^Émission 0*${n} — ${APP}$`))
    // its first block opens from its number, a link
    await tabTo(page, 'block 001', `el.tagName === 'A' && el.innerText.trim() === '001'`)
    await page.keyboard.press('Enter')
    await h1(page, /Bloc 001/)
    await screenshot(page, 'keyboard-operator-3-block')
    expect(problems).toEqual([])
  }, 420_000)
})
