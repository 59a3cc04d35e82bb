/**
 * Accessibility: axe-core's WCAG 2.0/2.1 A and AA rules on every screen, in French and English,
 * light and dark, must find nothing. An admin sees every screen; the prepared ledger gives an
 * emission with a verified block, sales, players and tickets to show, and prize claims (its
 * emission claims from 100 €: the same sales as SALES_LEDGER's).
 */
import type { Page } from 'playwright-core'
import { beforeAll, describe, expect, it } from 'vitest'
import { screenshot, transitionsEnded } from './support'
import { signIn, useJourneyApp } from './fixtures/app'
import { axeViolations, describeViolations, type Violation } from './fixtures/axe'
import { CLAIMS_LEDGER, ledgerFacts } from './fixtures/ledger'

type Locale = 'fr' | 'en'
type Theme = 'light' | 'dark'
const LOOKS: { locale: Locale; theme: Theme }[] = [
  { locale: 'fr', theme: 'light' },
  { locale: 'en', theme: 'light' },
  { locale: 'fr', theme: 'dark' },
  { locale: 'en', theme: 'dark' },
]

/** Language and theme as the switches in the header remember them, then a reload. */
async function look(page: Page, locale: Locale, theme: Theme): Promise<void> {
  await page.evaluate(
    `localStorage.setItem('carats.locale', '${locale}'); localStorage.setItem('carats.theme', '${theme}')`,
  )
  await page.reload()
}

/** A screen is ready once its heading shows and nothing is loading any more. */
export async function settled(page: Page, heading = 'h1'): Promise<void> {
  await page.locator(heading).first().waitFor({ timeout: 20_000 })
  // (a polled evaluate: waitForFunction evals a string, which the app's CSP refuses)
  const loading = '!!document.querySelector(".n-spin-container .n-spin, .n-skeleton, .n-data-table--loading")'
  await expect.poll(() => page.evaluate(loading), { timeout: 20_000 }).toBe(false)
  // Naive UI fades things in: colours are measured once the transitions have ended
  await transitionsEnded(page)
}

describe('accessibility: axe-core finds nothing on any screen', () => {
  const app = useJourneyApp(CLAIMS_LEDGER)
  let screens: { name: string; hash: string }[]

  beforeAll(() => {
    const facts = ledgerFacts(app.dbPath)
    try {
      const p = facts.playerWithWinningLastUnit()
      const serial = encodeURIComponent(p.lastUnits[0].serial)
      const claim = encodeURIComponent(facts.claims()[0].serial)
      screens = [
        { name: 'todo', hash: '#/todo' },
        { name: 'emissions', hash: '#/emissions' },
        { name: 'emission', hash: '#/emissions/1' },
        { name: 'block', hash: '#/emissions/1/blocks/1' },
        { name: 'certificate', hash: '#/emissions/1/certificate' },
        { name: 'verification', hash: '#/emissions/1/verification' },
        // the prepared ledger's emission is a demonstration: its sales show with the demo filter on
        { name: 'dashboard', hash: '#/dashboard?demo=1' },
        { name: 'users', hash: '#/users' },
        { name: 'audit', hash: '#/audit' },
        { name: 'ledger', hash: '#/ledger' },
        { name: 'watch', hash: '#/watch' },
        { name: 'parties', hash: '#/parties' },
        { name: 'support', hash: '#/support' },
        { name: 'player', hash: `#/support?player=${encodeURIComponent(p.player)}` },
        { name: 'tickets', hash: '#/tickets' },
        { name: 'ticket', hash: `#/tickets/${serial}` },
        { name: 'replay', hash: `#/tickets/${serial}/replay` },
        { name: 'claims', hash: '#/claims' },
        { name: 'claim', hash: `#/claims/${claim}` },
      ]
    } finally {
      facts.close()
    }
  })

  const counts: Record<string, number> = {}

  for (const { locale, theme } of LOOKS) {
    it(`sign-in and every signed-in screen, ${locale}, ${theme}`, async () => {
      const { page, problems } = await app.open()
      const found: Violation[] = []
      await look(page, locale, theme)
      await settled(page, '.n-card-header')
      found.push(...(await axeViolations(page, `sign-in (${locale}, ${theme})`)))
      await screenshot(page, `a11y-${locale}-${theme}-sign-in`)

      await look(page, 'fr', theme)
      await signIn(page, 'admin')
      await look(page, locale, theme)
      for (const s of screens) {
        // a fresh load of each screen: the one left behind cannot be measured by mistake
        await page.evaluate(`location.hash = ${JSON.stringify(s.hash)}`)
        await page.reload()
        await settled(page)
        // the window's title names the screen in the interface's language
        expect(await page.title()).toMatch(/^.+ — 500 000 CARATS$/)
        found.push(...(await axeViolations(page, `${s.name} (${locale}, ${theme})`)))
        await screenshot(page, `a11y-${locale}-${theme}-${s.name}`)
      }
      // a chart's figures, once shown, are checked too
      await page.evaluate(`location.hash = '#/dashboard?demo=1'`)
      await page.reload()
      await settled(page)
      await page.locator('[data-test="chart-data-toggle"]').first().press('Enter')
      await page.locator('[data-test="chart-data"].figures').first().waitFor()
      found.push(...(await axeViolations(page, `dashboard, data shown (${locale}, ${theme})`)))
      await screenshot(page, `a11y-${locale}-${theme}-dashboard-data`)
      // the title follows a change of language at once
      const other = locale === 'fr' ? 'English' : 'Français'
      await page.locator('.prefs .n-base-selection').click()
      await page.locator('.n-base-select-option').filter({ hasText: other }).click()
      expect(await page.title()).toBe(
        locale === 'fr' ? 'Dashboard — 500 000 CARATS' : 'Tableau de bord — 500 000 CARATS',
      )
      counts[`${locale}-${theme}`] = found.length
      console.log(`axe, ${locale} ${theme}: ${found.length} violation(s)`)
      expect(describeViolations(found)).toBe('no violations')
      expect(problems).toEqual([])
    }, 240_000)
  }
})
