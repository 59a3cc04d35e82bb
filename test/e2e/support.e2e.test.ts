/**
 * Customer support's journey, on a ledger with 20,000 simulated sales: sign in, find a player,
 * see the player's last unit first (with its outcome) and the 9 before it, replay the last unit:
 * it plays by itself, pauses, steps one reveal at a time, and shows the outcome at the end.
 * Expectations come from the ledger file read with SQL, not from the api the screens use.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { screenshot } from './support'
import { eur, norm, signIn, useJourneyApp } from './fixtures/app'
import { ledgerFacts, SALES_LEDGER, type PlayerFacts } from './fixtures/ledger'

describe('support: a player’s last unit and its replay', () => {
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

  it('finds the player, shows the last unit first with its outcome, and replays it to the outcome', async () => {
    const { page, problems } = await app.open()
    await signIn(page, 'support', 'support-1-sign-in')
    // support lands on its own screen
    await page.getByRole('heading', { name: 'Service client', level: 1 }).waitFor()
    expect(page.url()).toMatch(/#\/support$/)

    // find the player by the start of the account id: several accounts may match, pick ours
    const query = page.locator('[data-test="player-query"] input')
    await query.fill(player.player.slice(0, 5))
    await page.getByRole('button', { name: 'Rechercher' }).click()
    const row = page.getByRole('row').filter({ hasText: player.player })
    await row.first().waitFor({ timeout: 15_000 })
    // the match lists the player's totals
    expect(norm(await row.first().innerText())).toContain(eur(player.stakedCents))
    await screenshot(page, 'support-2-search-results')
    await row.first().click()

    // the player's card: totals, then the last unit first
    const card = page.locator('[data-test="player"]')
    await card.getByRole('heading', { name: player.player }).waitFor({ timeout: 15_000 })
    expect(norm(await card.locator('.n-descriptions').first().innerText())).toContain(eur(player.wonCents))
    const last = player.lastUnits[0]
    const lastCard = page.locator('[data-test="last-unit"]')
    await lastCard.waitFor()
    const lastText = norm(await lastCard.innerText())
    expect(lastText).toContain('Dernière unité jouée')
    expect(lastText).toContain(last.serial)
    expect(lastText).toContain(eur(last.prizeCents)) // the outcome: a win of this amount
    expect(lastText).toContain('Jouer (à la main)')

    // then the 9 before it, newest first, each with its outcome
    const previous = page.locator('.n-card').filter({ has: page.getByText('Les 9 unités précédentes') })
    const prevRows = previous.locator('tbody tr')
    await expect.poll(() => prevRows.count()).toBe(9)
    for (let i = 0; i < 9; i++) {
      const u = player.lastUnits[i + 1]
      const text = norm(await prevRows.nth(i).innerText())
      expect(text).toContain(u.serial)
      expect(text).toContain(u.prizeCents > 0 ? eur(u.prizeCents) : 'Perdant')
      expect(text).toContain(u.status === 'interrupted' ? 'Interrompue' : 'Terminée')
    }
    // and the full history, paged on the server: the count of all the player's units
    const history = page.locator('[data-test="history"]')
    await expect
      .poll(async () => norm(await history.locator('.n-data-table__pagination').innerText()))
      .toContain(String(player.units))
    await screenshot(page, 'support-3-player-last-unit')

    // replay the last unit
    await page.locator('[data-test="last-replay"]').click()
    await page.getByRole('heading', { name: /Rejeu du grattage/ }).waitFor()
    expect(decodeURIComponent(page.url())).toContain(`#/tickets/${last.serial}/replay`)
    const count = page.locator('[data-test="count"]')
    const reveals = async () => {
      const m = /(\d+) \/ (\d+) découvertes/.exec(norm(await count.innerText()))
      if (!m) throw new Error(`no reveal count in "${await count.innerText()}"`)
      return { shown: Number(m[1]), total: Number(m[2]) }
    }
    // it plays by itself at the original pace: reveals come one after another
    await expect.poll(async () => (await reveals()).shown, { timeout: 15_000 }).toBeGreaterThan(0)
    const total = (await reveals()).total
    expect(total).toBe(30) // a complete hand play reveals the 6 diamonds and the 24 gems
    await screenshot(page, 'support-4-replay-playing')

    const toggle = page.locator('[data-test="toggle"]')
    const hidden = () => page.locator('svg.ticket [aria-label="?"]').count()
    const outcome = page.locator('[data-test="outcome"]')

    // back to the start: paused, every cell under its coating, and it holds still
    await page.getByRole('button', { name: 'Depuis le début' }).click()
    await expect.poll(async () => (await reveals()).shown).toBe(0)
    expect(await toggle.getAttribute('aria-label')).toBe('Lecture')
    await page.waitForTimeout(1000)
    expect((await reveals()).shown).toBe(0)
    expect(await hidden()).toBe(total)
    expect(await outcome.count()).toBe(0)

    // step forward and back one reveal at a time
    for (let i = 1; i <= 3; i++) {
      await page.getByRole('button', { name: 'Découverte suivante' }).click()
      await expect.poll(async () => (await reveals()).shown).toBe(i)
    }
    expect(await hidden()).toBe(total - 3)
    await page.getByRole('button', { name: 'Découverte précédente' }).click()
    await expect.poll(async () => (await reveals()).shown).toBe(2)
    expect(await hidden()).toBe(total - 2)
    expect(await outcome.count()).toBe(0) // no outcome before the end

    // play from there, then pause: the count moves, then holds still
    await toggle.click()
    await expect.poll(async () => (await reveals()).shown, { timeout: 15_000 }).toBeGreaterThan(2)
    if ((await toggle.getAttribute('aria-label')) === 'Pause') await toggle.click()
    await expect.poll(() => toggle.getAttribute('aria-label')).toBe('Lecture')
    const paused = (await reveals()).shown
    await page.waitForTimeout(800)
    expect((await reveals()).shown).toBe(paused)

    // step to the end: every cell revealed, and the outcome is shown
    for (let shown = paused; shown < total; shown++)
      await page.getByRole('button', { name: 'Découverte suivante' }).click()
    await expect.poll(async () => (await reveals()).shown).toBe(total)
    await outcome.waitFor({ timeout: 10_000 })
    expect(norm(await outcome.innerText())).toContain(`Gagnant : ${eur(last.prizeCents)}`)
    expect(await hidden()).toBe(0)
    // the matching gems are highlighted, and their amounts add up to the prize
    const matched = await page
      .locator('svg.ticket g.gem.match')
      .evaluateAll((gs) => gs.map((g) => g.getAttribute('aria-label') ?? ''))
    expect(matched.length).toBeGreaterThan(0)
    const sum = matched.reduce(
      (s, label) => s + Number(norm(label).split(' ').slice(1).join('').replace(/[^\d]/g, '')) * 100,
      0,
    )
    expect(sum).toBe(last.prizeCents)
    await outcome.scrollIntoViewIfNeeded()
    await screenshot(page, 'support-5-replay-outcome')
    expect(problems).toEqual([])

    // a serial mistyped in a link (a player's e-mail, a note): the inspector's field holds it and
    // says why in French, as it says it while a serial is typed, without asking the server
    const typo = last.serial.slice(0, -1) + String((Number(last.serial.slice(-1)) + 1) % 10)
    await page.goto(new URL(`#/tickets/${typo}`, app.host.url).toString())
    const refused = page.locator('[data-test="serial-feedback"][data-state="error"]')
    await refused.waitFor({ timeout: 15_000 })
    expect(await page.locator('[data-test="serial"] input').inputValue()).toBe(typo)
    expect(norm(await refused.innerText())).toBe(
      'La clé de contrôle ne correspond pas : un chiffre a été mal saisi ou deux chiffres ont été inversés. Comparez avec le ticket.',
    )
    expect(problems).toEqual([])
  }, 120_000)
})
