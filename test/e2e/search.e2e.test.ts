/**
 * The header's search and the keyboard shortcuts, in Chromium, on the ledger
 * whose emission claims from 100 €: a serial, a player, an emission's code and a claim's payment
 * reference typed in the box each land on their screen; a code that is also the start of player
 * ids lists both to choose from; nothing found is said. Ctrl+K and `/` focus the box, Escape
 * leaves it, `?` lists the shortcuts. The ticket inspector shows a winning ticket's claim and its
 * status. A role sees only what it may reach. Expectations come from the ledger read with SQL.
 */
import Database from 'better-sqlite3'
import type { Page } from 'playwright-core'
import { beforeAll, describe, expect, it } from 'vitest'
import { CARATS } from '../../game-core/carats'
import { formatSerial } from '../../game-core/serial'
import { splitUnitKey } from '../../electron/ledger/unit-key'
import { screenshot } from './support'
import { norm, signIn, useJourneyApp } from './fixtures/app'
import { axeViolations, describeViolations } from './fixtures/axe'
import { CLAIMS_LEDGER, ledgerFacts, type ClaimFacts } from './fixtures/ledger'

const REFERENCE = 'VIR-2026-0042'
const INPUT = '[data-test="global-search-input"] input'
const OPTION = '[data-test="global-search-option"]'

const hash = (page: Page) => page.evaluate('decodeURIComponent(location.hash)') as Promise<string>
const inBox = (page: Page) => page.evaluate(`document.activeElement?.matches(${JSON.stringify(INPUT)}) ?? false`)
const panelText = async (page: Page) => norm(await page.locator('[data-test="global-search-panel"]').innerText())

/** Ctrl+K, the text typed over whatever the box held, then Enter. */
async function search(page: Page, text: string): Promise<void> {
  await page.keyboard.press('Control+k')
  await expect.poll(() => inBox(page)).toBe(true)
  await page.keyboard.type(text)
  await page.keyboard.press('Enter')
}

async function landsOn(page: Page, text: string, where: string): Promise<void> {
  await search(page, text)
  await expect.poll(() => hash(page), { timeout: 15_000 }).toBe(where)
  await page.locator('h1').first().waitFor()
}

/** What the search needs from the ledger, read with SQL of its own. */
function ledgerWords(dbPath: string) {
  const db = new Database(dbPath, { readonly: true, fileMustExist: true })
  try {
    const serial = (key: number) => formatSerial(splitUnitKey(key), CARATS.blockSize)
    // a prefix shared by a few player ids (to be an emission's code too): the shortest there is
    const prefixOf = (length: number) =>
      db
        .prepare(
          'SELECT substr(name, 1, ?) AS p FROM players GROUP BY p HAVING count(*) BETWEEN 2 AND 4 ORDER BY p LIMIT 1',
        )
        .pluck()
        .get(length) as string | undefined
    const prefix = [4, 5, 6, 7].map(prefixOf).find((p) => p !== undefined)!
    const sharing = db.prepare('SELECT name FROM players WHERE substr(name, 1, ?) = ? ORDER BY name').pluck()
    const belowThreshold = db
      .prepare('SELECT unit_key FROM sales WHERE prize_cents BETWEEN 1 AND 9999 ORDER BY unit_key LIMIT 1')
      .pluck()
      .get() as number
    return { prefix, players: sharing.all(prefix.length, prefix) as string[], smallWin: serial(belowThreshold) }
  } finally {
    db.close()
  }
}

describe('searching from anywhere, and the keyboard shortcuts', () => {
  const app = useJourneyApp(CLAIMS_LEDGER)
  let paid: ClaimFacts
  let player: string
  let words: ReturnType<typeof ledgerWords>

  beforeAll(async () => {
    const facts = ledgerFacts(app.dbPath)
    try {
      paid = facts.claims()[0]
      player = facts.playerWithWinningLastUnit().player
    } finally {
      facts.close()
    }
    words = ledgerWords(app.dbPath)
    expect(words.players.length).toBeGreaterThanOrEqual(2)
    // one claim paid with a reference, through the api as the screens would
    const support = await app.token('support')
    const manager = await app.token('manager')
    const steps: [string, unknown, string][] = [
      ['claims:verify', { serial: paid.serial, identity: { document: 'passport', reference: '18AB12345' } }, support],
      ['claims:approve', { serial: paid.serial }, manager],
      ['claims:pay', { serial: paid.serial, reference: REFERENCE, method: 'transfer' }, manager],
    ]
    for (const [channel, args, token] of steps) expect(await app.call(channel, args, token)).toMatchObject({ ok: true })
    // an emission whose code is also the start of some player ids
    const operator = await app.token('operator')
    expect(await app.call('emissions:create', { blocks: 1, code: words.prefix, demo: true }, operator)).toMatchObject({
      ok: true,
      result: { emission: 2 },
    })
  })

  it('focuses the box with Ctrl+K or /, leaves it with Escape, lists the shortcuts with ?', async () => {
    const { page, problems } = await app.open()
    await signIn(page, 'support')
    await page.locator('[data-test="player-query"] input').waitFor()
    await page.keyboard.press('Control+k')
    await expect.poll(() => inBox(page)).toBe(true)
    await page.keyboard.press('Escape')
    await expect.poll(() => inBox(page)).toBe(false)
    // `/` outside a text field goes to the box, and is not typed into it
    await page.locator('h1').first().click()
    await page.keyboard.press('/')
    await expect.poll(() => inBox(page)).toBe(true)
    expect(await page.locator(INPUT).inputValue()).toBe('')
    await page.keyboard.press('Escape')
    // inside a text field, `/` and `?` are characters
    const query = page.locator('[data-test="player-query"] input')
    await query.click()
    await page.keyboard.type('a/b?')
    expect(await query.inputValue()).toBe('a/b?')
    expect(await inBox(page)).toBe(false)
    expect(await page.locator('[role="dialog"]').count()).toBe(0)
    // `?` elsewhere: the shortcuts, the replay's among them
    await page.locator('h1').first().click()
    await page.keyboard.press('?')
    const dialog = page.locator('[role="dialog"]')
    await dialog.waitFor()
    const listed = norm(await dialog.innerText())
    for (const words of ['Raccourcis clavier', 'Ctrl', 'K', '⌘', 'Aller à la recherche', 'Échap', 'Espace', 'Début'])
      expect(listed).toContain(words)
    expect(listed).toContain('Lecture ou pause')
    await page.waitForTimeout(300)
    await screenshot(page, 'search-1-shortcuts')
    const violations = await axeViolations(page, 'shortcuts dialog')
    expect(violations, describeViolations(violations)).toEqual([])
    await page.keyboard.press('Escape')
    await dialog.waitFor({ state: 'detached' })
    // the header's button opens it too
    await page.locator('[data-test="shortcuts-button"]').click()
    await dialog.waitFor()
    await page.keyboard.press('Escape')
    await dialog.waitFor({ state: 'detached' })
    expect(problems).toEqual([])
  })

  it('lands on the ticket, the player, the emission and the claim; the inspector shows the claim', async () => {
    const { page, problems } = await app.open()
    await signIn(page, 'support')
    // a serial: the ticket inspector, which shows the winning ticket's claim, paid
    await landsOn(page, paid.serial, `#/tickets/${paid.serial}`)
    const claim = page.locator('[data-test="ticket-claim"]')
    await claim.waitFor({ timeout: 15_000 })
    expect(await claim.getAttribute('data-status')).toBe('paid')
    expect(norm(await claim.innerText())).toMatch(/^Réclamation\s+Payée\s+Voir la réclamation$/)
    await screenshot(page, 'search-2-ticket-claim')
    await page.locator('[data-test="ticket-claim-link"]').click()
    await expect.poll(() => hash(page), { timeout: 15_000 }).toBe(`#/claims/${paid.serial}`)
    // a prize credited with its sale (under the threshold) has no claim, and none is asked for
    await landsOn(page, words.smallWin, `#/tickets/${words.smallWin}`)
    await page.locator(`[data-test="ticket"][data-serial="${words.smallWin}"]`).waitFor({ timeout: 15_000 })
    await page.waitForTimeout(500)
    expect(await claim.count()).toBe(0)
    // a player's id: support's view of that player
    await landsOn(page, player, `#/support?player=${player}`)
    await page.locator('[data-test="player"]').waitFor({ timeout: 15_000 })
    // an emission's code, whatever its case: its page
    await landsOn(page, 'e2e-claims', '#/emissions/1')
    // a payment reference, with spaces around it: the claim paid with it
    await landsOn(page, `  ${REFERENCE} `, `#/claims/${paid.serial}`)
    await page.locator('[data-test="claim-status"]').waitFor({ timeout: 15_000 })
    expect(problems).toEqual([])
  })

  it('lists a code that is also the start of player ids, and says when nothing matches', async () => {
    const { page, problems } = await app.open()
    await signIn(page, 'support')
    await search(page, words.prefix)
    const options = page.locator(OPTION)
    await expect.poll(() => options.count(), { timeout: 15_000 }).toBe(1 + words.players.length)
    expect(await options.nth(0).getAttribute('data-kind')).toBe('emission')
    expect(norm(await options.nth(1).innerText())).toContain(words.players[0])
    // the first is chosen; the arrows move the choice, which the field names for screen readers
    const input = page.locator(INPUT)
    expect(await input.getAttribute('aria-expanded')).toBe('true')
    await page.keyboard.press('ArrowDown')
    const second = await options.nth(1).getAttribute('id')
    expect(await input.getAttribute('aria-activedescendant')).toBe(second)
    expect(await options.nth(1).getAttribute('aria-selected')).toBe('true')
    await page.setViewportSize({ width: 1366, height: 768 })
    await screenshot(page, 'search-3-choose-1366')
    const violations = await axeViolations(page, 'search list')
    expect(violations, describeViolations(violations)).toEqual([])
    await page.keyboard.press('Enter')
    await expect.poll(() => hash(page), { timeout: 15_000 }).toBe(`#/support?player=${words.players[0]}`)

    // nothing: said, with what was looked for
    await search(page, 'zzz-nothing')
    await expect
      .poll(() => panelText(page), { timeout: 15_000 })
      .toBe(
        'Aucun résultat pour « zzz-nothing ». Cherché : numéro de série, identifiant de joueur, référence de paiement ou émission (numéro ou code).',
      )
    expect(await input.getAttribute('aria-expanded')).toBe('false')
    await screenshot(page, 'search-4-none')
    // a serial mistyped: why it is none
    const typo = paid.serial.slice(0, -1) + String((Number(paid.serial.slice(-1)) + 1) % 10)
    await search(page, typo)
    await expect
      .poll(() => panelText(page), { timeout: 15_000 })
      .toContain('Numéro de série : la clé de contrôle ne correspond pas')
    // Escape closes the list, then leaves the box
    await page.keyboard.press('Escape')
    await expect.poll(() => page.locator('[data-test="global-search-panel"]').isVisible()).toBe(false)
    expect(await inBox(page)).toBe(true)
    await page.keyboard.press('Escape')
    await expect.poll(() => inBox(page)).toBe(false)

    // the dark theme: the list reads as well
    await page.evaluate(`localStorage.setItem('carats.theme', 'dark')`)
    await page.reload()
    await page.locator('h1').first().waitFor()
    await search(page, words.prefix)
    await expect.poll(() => options.count(), { timeout: 15_000 }).toBe(1 + words.players.length)
    await screenshot(page, 'search-5-choose-dark')
    const dark = await axeViolations(page, 'search list, dark')
    expect(dark, describeViolations(dark)).toEqual([])
    expect(problems).toEqual([])
  })

  it('offers a role only what it may reach', async () => {
    // an operator: no claims, no players; the emission still
    const { page, problems } = await app.open()
    await signIn(page, 'operator')
    await search(page, REFERENCE)
    await expect
      .poll(() => panelText(page), { timeout: 15_000 })
      .toBe(`Aucun résultat pour « ${REFERENCE} ». Cherché : numéro de série ou émission (numéro ou code).`)
    await search(page, player)
    await expect.poll(() => panelText(page), { timeout: 15_000 }).toContain(`Aucun résultat pour « ${player} »`)
    await landsOn(page, 'E2E-CLAIMS', '#/emissions/1')
    // the inspector shows no claim to a role that does not read claims
    await landsOn(page, paid.serial, `#/tickets/${paid.serial}`)
    await page.locator(`[data-test="ticket"][data-serial="${paid.serial}"]`).waitFor({ timeout: 15_000 })
    await page.waitForTimeout(500)
    expect(await page.locator('[data-test="ticket-claim"]').count()).toBe(0)
    // a manager finds the claim by its reference, not the players (support's screen)
    const manager = await app.open()
    await signIn(manager.page, 'manager')
    await landsOn(manager.page, REFERENCE, `#/claims/${paid.serial}`)
    await search(manager.page, player)
    await expect.poll(() => panelText(manager.page), { timeout: 15_000 }).toContain('Aucun résultat pour')
    // in English
    await manager.page.evaluate(`localStorage.setItem('carats.locale', 'en')`)
    await manager.page.reload()
    await manager.page.locator('h1').first().waitFor()
    await search(manager.page, 'zzz')
    await expect
      .poll(() => panelText(manager.page), { timeout: 15_000 })
      .toBe('No result for “zzz”. Searched: serial, payment reference, or emission (number or code).')
    expect(problems).toEqual([])
    expect(manager.problems).toEqual([])
  })
})
