/**
 * The manager's journey: sign in and read the dashboard of a ledger with 20,000 simulated sales.
 * Every figure is compared with the ledger read by SQL of its own (sales, prizes won, realised
 * payout against the theoretical 71.99975 %, prizes still to be won, top prizes remaining), and
 * both charts must have their data drawn (coloured bars and lines, not only grey axes).
 */
import type { Page } from 'playwright-core'
import { beforeAll, describe, expect, it } from 'vitest'
import { screenshot } from './support'
import { eur, int, menuEntries, norm, signIn, useJourneyApp } from './fixtures/app'
import { ledgerFacts, SALES_LEDGER } from './fixtures/ledger'
import { CARATS } from '../../game-core/carats'
import { deriveFigures } from '../../game-core/rules'

const pct = (x: number, digits: number) => norm(new Intl.NumberFormat('fr-FR', { style: 'percent', minimumFractionDigits: 0, maximumFractionDigits: digits }).format(x))

/**
 * How many pixels of a chart's canvas are painted in colour: axes, grid lines and tick labels are
 * grey, so a chart with no data drawn has (almost) none; bars and lines are coloured.
 */
async function colouredPixels(page: Page, label: string): Promise<number> {
  const canvas = page.locator(`canvas[aria-label="${label}"]`)
  await canvas.waitFor({ timeout: 15_000 })
  return canvas.evaluate((c) => {
    const el = c as unknown as { width: number; height: number; getContext(k: '2d'): { getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray } } }
    if (el.width === 0 || el.height === 0) return 0
    const d = el.getContext('2d').getImageData(0, 0, el.width, el.height).data
    let n = 0
    for (let i = 0; i < d.length; i += 4) if (d[i + 3] > 128 && Math.max(d[i], d[i + 1], d[i + 2]) - Math.min(d[i], d[i + 1], d[i + 2]) > 60) n++
    return n
  })
}

describe('manager: the dashboard', () => {
  const app = useJourneyApp(SALES_LEDGER)
  let totals: { units: number; staked: number; won: number; winners: number }
  let wonByAmount: Map<number, number>

  beforeAll(() => {
    const facts = ledgerFacts(app.dbPath)
    try {
      totals = facts.totals()
      wonByAmount = facts.wonByAmount()
    } finally {
      facts.close()
    }
  })

  it('shows sales, prizes won, payout, liability, top prizes remaining, and draws its charts', async () => {
    const { page, problems } = await app.open()
    await signIn(page, 'manager', 'manager-1-sign-in')
    // a manager lands on the dashboard, and has no operator screens
    await page.getByRole('heading', { name: 'Tableau de bord', level: 1 }).waitFor({ timeout: 15_000 })
    expect(await menuEntries(page)).not.toContain('Utilisateurs')
    const board = page.locator('[data-test="dashboard"]')
    await board.waitFor({ timeout: 30_000 })
    // the ledger's one emission is a demonstration: its simulated sales count only when asked
    expect(norm(await page.locator('.page-head').innerText())).toContain('émissions réelles seulement')
    expect(norm(await board.locator('.kpi').filter({ hasText: 'Ventes' }).innerText())).toContain('0 unités vendues')
    await page.getByRole('checkbox', { name: 'Inclure les émissions de démonstration' }).check()
    await page.locator('.page-head').getByText('émissions de démonstration comprises').waitFor()

    const kpi = async (label: string) => {
      const card = board.locator('.kpi').filter({ hasText: label })
      await card.waitFor()
      return norm(await card.innerText())
    }
    const sales = await kpi('Ventes')
    expect(sales).toContain(eur(totals.staked))
    expect(sales).toContain(`${int(totals.units)} unités vendues`)

    const won = await kpi('Lots gagnés')
    expect(won).toContain(eur(totals.won))
    expect(won).toContain(`${int(totals.winners)} unités gagnantes`)

    const figures = deriveFigures(CARATS)
    const payout = await kpi('Taux de retour')
    expect(payout).toContain(pct(totals.won / totals.staked, 2))
    // the theoretical ratio (71.99975 %), to however many decimals the card prints
    const theoretical = /théorique (\d+(?:,\d+)?) %/.exec(payout)
    expect(theoretical, payout).not.toBeNull()
    const digits = theoretical![1].split(',')[1]?.length ?? 0
    expect(Math.abs(Number(theoretical![1].replace(',', '.')) - figures.payoutRatio * 100)).toBeLessThanOrEqual(0.5 * 10 ** -digits + 1e-9)

    // the one open block's prizes, less those already won
    const liability = await kpi('Lots restant à gagner')
    expect(liability).toContain(eur(figures.prizeTotalCents - totals.won))

    // top prizes remaining, largest first, out of the block's initial count
    const top = board.locator('.n-card').filter({ hasText: 'Gros lots restants' })
    const rows = top.locator('tbody tr')
    const tops = CARATS.tiers
      .map((t) => ({ amount: t.amountCents, initial: t.count }))
      .sort((a, b) => b.amount - a.amount)
      .slice(0, 2)
    await expect.poll(() => rows.count()).toBe(tops.length)
    for (let i = 0; i < tops.length; i++) {
      const t = tops[i]
      const text = norm(await rows.nth(i).innerText())
      expect(text).toContain(eur(t.amount))
      expect(text).toContain(`${int(t.initial - (wonByAmount.get(t.amount) ?? 0))} / ${int(t.initial)}`)
    }
    expect(norm(await top.innerText())).toMatch(/au \d+ \S+ \d{4}/) // with the time the figures are as of

    // the charts are drawn, not just placed
    // (30 days of bars: tens of thousands of pixels; the tiers won, at 0.25 % of a block sold:
    // thin bars of a couple of thousand; the legend's swatches alone: a few hundred)
    await expect.poll(() => colouredPixels(page, 'Ventes par jour'), { timeout: 15_000 }).toBeGreaterThan(10_000)
    await expect.poll(() => colouredPixels(page, 'Épuisement par rang de lot'), { timeout: 15_000 }).toBeGreaterThan(1_000)
    await screenshot(page, 'manager-2-dashboard')
    await page.locator('canvas[aria-label="Épuisement par rang de lot"]').scrollIntoViewIfNeeded()
    await screenshot(page, 'manager-3-dashboard-depletion')

    expect(problems).toEqual([])
  }, 120_000)
})
