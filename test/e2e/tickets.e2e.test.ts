/**
 * The ticket inspector and the replay, as support uses them on a ledger with 20,000 sales: the
 * ticket shown always belongs to the serial in the field, and the field's check never disagrees
 * with the lookup's answer; the replay's controls fit a 1366×768 screen, and each ticket's
 * replay starts at 1×. The side menu folds from a labelled button.
 */
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { beforeAll, describe, expect, it } from 'vitest'
import { CARATS } from '../../game-core/carats'
import { formatSerial } from '../../game-core/serial'
import { RESULTS_DIR, screenshot } from './support'
import { norm, signIn, useJourneyApp } from './fixtures/app'
import { ledgerFacts, SALES_LEDGER, type UnitFacts } from './fixtures/ledger'

const serialOf = (unit: number, block = 1) => formatSerial({ emission: 1, block, unit }, CARATS.blockSize)

describe('the ticket inspector and the replay', () => {
  const app = useJourneyApp(SALES_LEDGER)
  let played: UnitFacts[]

  beforeAll(() => {
    const facts = ledgerFacts(app.dbPath)
    try {
      played = facts.playerWithWinningLastUnit().lastUnits.filter((u) => u.mode !== null)
    } finally {
      facts.close()
    }
  })

  it('never shows a previous ticket under a new serial, and the field agrees with the answer', async () => {
    const { page, problems } = await app.open()
    await signIn(page, 'support')
    await page.getByRole('menuitem', { name: 'Inspecteur de tickets' }).click()
    const input = page.locator('[data-test="serial"] input')
    const feedback = page.locator('[data-test="serial-feedback"]')
    const ticket = page.locator('[data-test="ticket"]')
    const state = () => feedback.getAttribute('data-state')
    const said = async () => norm(await feedback.innerText())
    const fieldRed = () => page.locator('[data-test="serial"].n-input--error-status').count()
    let lookups = 0
    page.on('request', (r) => void (new URL(r.url()).pathname === '/api/tickets:get' && lookups++))

    const real = played[0].serial
    async function lookUpReal(first = false) {
      await input.fill(real)
      // typed for the first time: the form only; later, the answer already given for it
      if (first) await expect.poll(said).toMatch(/^Format correct : émission 0001, bloc 001, unité [\d\s]+\.$/)
      await input.press('Enter')
      await expect.poll(() => ticket.getAttribute('data-serial'), { timeout: 15_000 }).toBe(real)
      expect(await state()).toBe('found')
      expect(await said()).toContain('Unité trouvée : émission 0001, bloc 001')
    }

    await lookUpReal(true)
    await screenshot(page, 'tickets-1-found')

    // a mistyped serial: the previous ticket goes as soon as the field holds another serial,
    // the field is red with what is wrong, and nothing is asked of the server
    const before = lookups
    const typo = real.slice(0, -1) + String((Number(real.slice(-1)) + 1) % 10)
    await input.fill(typo)
    await expect.poll(() => ticket.count()).toBe(0)
    expect(await state()).toBe('error')
    expect(await said()).toContain('La clé de contrôle ne correspond pas')
    expect(await fieldRed()).toBe(1)
    await input.press('Enter')
    await page.waitForTimeout(500)
    expect(lookups).toBe(before)
    expect(await ticket.count()).toBe(0)
    await screenshot(page, 'tickets-2-mistyped')

    // a well-formed serial of a block that does not exist: well formed while typed, then red with
    // the answer, never "valid" beside a "not found"
    await lookUpReal()
    const noBlock = serialOf(5, 2)
    await input.fill(noBlock)
    await expect.poll(() => ticket.count()).toBe(0)
    expect(await said()).toMatch(/^Format correct : émission 0001, bloc 002, unité 5\.$/)
    expect(await fieldRed()).toBe(0)
    await input.press('Enter')
    await expect.poll(state, { timeout: 15_000 }).toBe('refused')
    expect(await said()).toBe(
      'Introuvable : l’émission 1 n’a pas de bloc 2 (elle en a 1). Vérifiez le numéro et réessayez.',
    )
    expect(await fieldRed()).toBe(1)
    expect(await ticket.count()).toBe(0)
    await screenshot(page, 'tickets-3-unknown-block')

    // an unsold unit, which support may not see: refused, said in the field, nothing shown
    await lookUpReal()
    const unsold = serialOf(7_000_000)
    await input.fill(unsold)
    await input.press('Enter')
    await expect.poll(state, { timeout: 15_000 }).toBe('refused')
    expect(await said()).toContain(`L’unité ${unsold} n’est pas vendue`)
    expect(await said()).toContain('seul un auditeur peut l’inspecter')
    expect(await fieldRed()).toBe(1)
    expect(await ticket.count()).toBe(0)
    await screenshot(page, 'tickets-4-refused')

    // the same through the address bar: the field shows the serial the answer is for
    await lookUpReal()
    await page.goto(new URL(`#/tickets/${noBlock}`, app.host.url).toString())
    await expect.poll(state, { timeout: 15_000 }).toBe('refused')
    expect(await input.inputValue()).toBe(noBlock)
    expect(await ticket.count()).toBe(0)
    await page.goto(new URL(`#/tickets/${typo}`, app.host.url).toString())
    await expect.poll(state).toBe('error')
    expect(await input.inputValue()).toBe(typo)
    expect(await ticket.count()).toBe(0)
    // refused lookups answer 4xx, which the browser logs; nothing else went wrong
    expect(problems.filter((p) => !/status of 40\d/.test(p))).toEqual([])
  }, 120_000)

  it('shows the replay controls at 1366×768 and starts each ticket’s replay at 1×', async () => {
    expect(played.length).toBeGreaterThanOrEqual(2)
    const { page } = await app.open()
    await page.setViewportSize({ width: 1366, height: 768 })
    await signIn(page, 'support')
    const replay = (serial: string) => page.goto(new URL(`#/tickets/${serial}/replay`, app.host.url).toString())
    await replay(played[0].serial)
    await page.getByRole('heading', { name: /Rejeu du grattage/ }).waitFor({ timeout: 15_000 })
    await page.locator('[data-test="toggle"]').waitFor()
    await page.waitForTimeout(500) // the layout settles once the drawing is in
    await expectOnScreen(page, [
      '[data-test="restart"]',
      '[data-test="step-back"]',
      '[data-test="toggle"]',
      '[data-test="step-forward"]',
      '.speed',
      '.timeline .n-slider',
      '[data-test="count"]',
    ])
    // what the screen shows, not the whole page
    mkdirSync(RESULTS_DIR, { recursive: true })
    await page.screenshot({ path: join(RESULTS_DIR, 'tickets-5-replay-1366x768.png') })

    // 4× on this ticket, then another ticket's replay (the same screen, another serial): 1× again
    const speed = (label: string) => page.getByRole('radio', { name: label, exact: true })
    await page.locator('.speed').getByText('4×').click()
    await expect.poll(() => speed('4×').isChecked()).toBe(true)
    await replay(played[1].serial)
    await expect.poll(() => page.locator('h1 .serial').innerText(), { timeout: 15_000 }).toBe(played[1].serial)
    await expect.poll(() => speed('1×').isChecked()).toBe(true)
    expect(await speed('4×').isChecked()).toBe(false)
  }, 120_000)

  it('folds the side menu from a labelled button, not a bar beside it', async () => {
    const { page } = await app.open()
    await signIn(page, 'support')
    const sider = page.locator('.n-layout-sider')
    expect(await page.locator('.n-layout-toggle-bar').count()).toBe(0)
    const fold = page.getByRole('button', { name: 'Replier le menu' })
    await fold.click()
    await expect.poll(async () => (await sider.boundingBox())?.width).toBe(64)
    await screenshot(page, 'tickets-6-menu-folded')
    await page.getByRole('button', { name: 'Déplier le menu' }).click()
    await expect.poll(async () => (await sider.boundingBox())?.width).toBe(232)
    await screenshot(page, 'tickets-7-menu-unfolded')
  }, 60_000)
})

/** Each element lies wholly inside the viewport, without scrolling. */
async function expectOnScreen(page: Page, selectors: string[]): Promise<void> {
  const view = page.viewportSize()!
  const scrolled = await page.evaluate(
    '[window.scrollY, document.querySelector(".content .n-layout-scroll-container")?.scrollTop ?? 0]',
  )
  expect(scrolled).toEqual([0, 0])
  for (const s of selectors) {
    const box = await page.locator(s).first().boundingBox()
    expect(box, s).not.toBeNull()
    expect({
      s,
      top: box!.y >= 0,
      left: box!.x >= 0,
      bottom: box!.y + box!.height <= view.height,
      right: box!.x + box!.width <= view.width,
    }).toEqual({ s, top: true, left: true, bottom: true, right: true })
  }
}
