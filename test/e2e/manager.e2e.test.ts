/**
 * The manager's journey: sign in and read the dashboard of a ledger with 20,000 simulated sales.
 * Every figure is compared with the ledger read by SQL of its own (sales, prizes won, realised
 * payout against the theoretical 71.99975 %, with as many decimals, prizes still to be won, top
 * prizes remaining), and both charts must have their data drawn (coloured bars and lines, not
 * only grey axes), each legend swatch in its bars' colour. Then the filters (an emission, a range
 * of sale days, a range without sales: "Aucune activité"), the office-form export opened and
 * read back, a sale made through the api seen on coming back, and the block's depletion chart
 * (whole-number ticks for a tier of 2 prizes, the expected line on top).
 */
import { readFileSync } from 'node:fs'
import Database from 'better-sqlite3'
import type { Page } from 'playwright-core'
import { beforeAll, describe, expect, it } from 'vitest'
import { screenshot } from './support'
import { eur, int, menuEntries, norm, signIn, useJourneyApp } from './fixtures/app'
import { drawnChart, near, rgbOf } from './fixtures/charts'
import { ledgerFacts, SALES_LEDGER } from './fixtures/ledger'
import { parseCsv } from '../support/parse-csv'
import { version } from '../../package.json'
import { CARATS } from '../../game-core/carats'
import { deriveFigures } from '../../game-core/rules'
import { formatSerial } from '../../game-core/serial'
import { feedLine } from '../../electron/services/import'

const pct = (x: number, digits: number, min = 0) =>
  norm(
    new Intl.NumberFormat('fr-FR', {
      style: 'percent',
      minimumFractionDigits: min,
      maximumFractionDigits: digits,
    }).format(x),
  )

/** The sales of emission 1 on the sale days from…to (UTC), by SQL of the test's own. */
function salesBetween(dbPath: string, from: string, to: string) {
  const db = new Database(dbPath, { readonly: true, fileMustExist: true })
  try {
    const day = "strftime('%Y-%m-%d', sold_at / 1000, 'unixepoch')"
    return db
      .prepare(
        `SELECT count(*) AS units, coalesce(sum(stake_cents), 0) AS staked, coalesce(sum(prize_cents), 0) AS won, count(DISTINCT ${day}) AS days,
                              min(${day}) AS first, max(${day}) AS last FROM sales WHERE ${day} BETWEEN ? AND ?`,
      )
      .get(from, to) as {
      units: number
      staked: number
      won: number
      days: number
      first: string | null
      last: string | null
    }
  } finally {
    db.close()
  }
}

/**
 * How many pixels of a chart's canvas are painted in colour: axes, grid lines and tick labels are
 * grey, so a chart with no data drawn has (almost) none; bars and lines are coloured.
 */
async function colouredPixels(page: Page, label: string): Promise<number> {
  const canvas = page.locator(`canvas[aria-label="${label}"]`)
  await canvas.waitFor({ timeout: 15_000 })
  return canvas.evaluate((c) => {
    const el = c as unknown as {
      width: number
      height: number
      getContext(k: '2d'): { getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray } }
    }
    if (el.width === 0 || el.height === 0) return 0
    const d = el.getContext('2d').getImageData(0, 0, el.width, el.height).data
    let n = 0
    for (let i = 0; i < d.length; i += 4)
      if (d[i + 3] > 128 && Math.max(d[i], d[i + 1], d[i + 2]) - Math.min(d[i], d[i + 1], d[i + 2]) > 60) n++
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
    // no real sale: the period says so, rather than zeros that look like figures
    await board.locator('[data-test="no-activity"]').getByText('Aucune activité').waitFor()
    expect(await board.locator('.kpi').filter({ hasText: 'Ventes' }).count()).toBe(0)
    await screenshot(page, 'manager-1b-dashboard-no-activity')
    await page.getByRole('checkbox', { name: 'Inclure les émissions de démonstration' }).check()
    await page.locator('.page-head').getByText('émissions de démonstration comprises').waitFor()
    expect(page.url()).toContain('demo=1')
    // what the reading is: its time, the software's version, its filters
    const facts = norm(await page.locator('[data-test="report-facts"]').innerText())
    expect(facts).toMatch(/^au \d+ \S+ \d{4}(,| à)? \d{2}:\d{2}:\d{2} · Lu par Carats back-office /)
    expect(facts).toContain(`Carats back-office ${version}`)
    expect(norm(await page.locator('[data-test="report-filters"]').innerText())).toBe(
      'Toutes les émissions · tous les jours de vente · émissions de démonstration comprises',
    )

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
    // the theoretical ratio, 71,99975 %, and the realised one with as many decimals
    expect(payout).toContain('théorique 71,99975 %')
    expect(norm(await board.locator('[data-test="payout-realised"]').innerText())).toBe(
      pct(totals.won / totals.staked, 5, 5),
    )
    // French typography: a narrow no-break space before the sign
    expect(await board.locator('[data-test="payout-theoretical"]').innerText()).toContain('71,99975\u202f%')

    // the one open block's prizes, less those already won
    const liability = await kpi('Encore dans les unités invendues')
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
    // (30 days of bars: tens of thousands of pixels; the tiers won, at 0.25 % of a block sold, on
    // the whole 0–100 % axis: hardly a line until zoomed, then thin bars of a couple of thousand;
    // the legend's swatches alone: a few hundred)
    await expect.poll(() => colouredPixels(page, 'Ventes par jour'), { timeout: 15_000 }).toBeGreaterThan(10_000)
    const depletionCard = board
      .locator('.n-card')
      .filter({ has: page.locator('canvas[aria-label="Épuisement par rang de lot"]') })
    expect((await drawnChart(page, 'Épuisement par rang de lot')).yTicks.at(-1)).toMatch(/^100\s?%$/)
    await depletionCard.locator('[data-test="chart-zoom"]').click()
    await expect
      .poll(() => colouredPixels(page, 'Épuisement par rang de lot'), { timeout: 15_000 })
      .toBeGreaterThan(1_000)
    // each legend swatch has the colour of the bars it names, as chart.js holds it and as painted
    for (const label of ['Ventes par jour', 'Épuisement par rang de lot']) {
      const drawn = await drawnChart(page, label)
      const bars = drawn.datasets.filter((d) => d.type === 'bar')
      // a day's sales and prizes side by side; each tier's share won
      expect(bars.length, label).toBe(label === 'Ventes par jour' ? 2 : 1)
      for (const bar of bars) {
        const entry = drawn.legend.find((e) => e.text === bar.label)!
        expect(new Set(bar.colors), `${label}: ${bar.label}`).toEqual(new Set([entry.fill]))
        expect(near(entry.painted, rgbOf(entry.fill)), `${label}: swatch ${entry.painted} against ${entry.fill}`).toBe(
          true,
        )
        expect(bar.painted, label).not.toBeNull()
        expect(near(bar.painted!, entry.painted), `${label}: bar ${bar.painted} against swatch ${entry.painted}`).toBe(
          true,
        )
      }
    }
    await screenshot(page, 'manager-2-dashboard')
    await page.locator('canvas[aria-label="Épuisement par rang de lot"]').scrollIntoViewIfNeeded()
    await screenshot(page, 'manager-3-dashboard-depletion')

    expect(problems).toEqual([])
  }, 120_000)

  /** A manager signed in on the dashboard at `query` (#/dashboard?…). */
  async function dashboardAt(query: string) {
    const watched = await app.open()
    await signIn(watched.page, 'manager')
    await watched.page.locator('[data-test="dashboard"]').waitFor({ timeout: 30_000 })
    if (query) await watched.page.evaluate(`location.hash = ${JSON.stringify(`#/dashboard?${query}`)}`)
    return watched
  }
  const kpiText = async (page: Page, label: string) =>
    norm(await page.locator('[data-test="dashboard"] .kpi').filter({ hasText: label }).innerText())
  const addDays = (day: string, n: number) =>
    new Date(Date.parse(`${day}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10)
  const frDay = (day: string) =>
    norm(
      new Intl.DateTimeFormat('fr-FR', { dateStyle: 'medium', timeZone: 'UTC' }).format(new Date(`${day}T00:00:00Z`)),
    )

  /** A range of sale days inside the ledger's: from its third day, a week long. */
  function someDays() {
    const all = salesBetween(app.dbPath, '0000-01-01', '9999-12-31')
    const from = addDays(all.first!, 2)
    const to = addDays(from, 6)
    const period = salesBetween(app.dbPath, from, to)
    expect(period.units).toBeGreaterThan(0)
    expect(period.units).toBeLessThan(all.units)
    return { from, to, period }
  }

  it('filters by emission and by sale days, as the ledger says; a range without sales says "Aucune activité"', async () => {
    const { page, problems } = await dashboardAt('')
    // the emission, chosen in its menu: a demonstration emission chosen counts
    await page.locator('[data-test="filter-emission"]').click()
    await page.getByText(/^Émission 0001 · /).click()
    await expect.poll(() => page.url()).toContain('emission=1')
    await expect.poll(() => kpiText(page, 'Ventes').catch(() => '')).toContain(eur(totals.staked))
    expect(await page.locator('[data-test="include-demo"]').getAttribute('class')).toContain('n-checkbox--disabled')

    // a week of sale days: the figures are those of the week, read from the sales table
    const { from, to, period } = someDays()
    await page.evaluate(`location.hash = ${JSON.stringify(`#/dashboard?emission=1&from=${from}&to=${to}`)}`)
    await expect.poll(() => kpiText(page, 'Ventes').catch(() => '')).toContain(eur(period.staked))
    expect(await kpiText(page, 'Ventes')).toContain(`${int(period.units)} unités vendues`)
    expect(await kpiText(page, 'Lots gagnés')).toContain(eur(period.won))
    expect(await kpiText(page, 'Taux de retour')).toContain(pct(period.won / period.staked, 5, 5))
    expect(norm(await page.locator('[data-test="report-filters"]').innerText())).toBe(
      `émission 0001 · du ${frDay(from)} au ${frDay(to)} · émissions de démonstration comprises`,
    )
    await expect
      .poll(async () => (await drawnChart(page, 'Ventes par jour')).datasets[0].colors.length)
      .toBe(period.days)
    // the state's figures stay those of every sale so far
    expect(await kpiText(page, 'Encore dans les unités invendues')).toContain(
      eur(deriveFigures(CARATS).prizeTotalCents - totals.won),
    )
    await screenshot(page, 'manager-4-dashboard-filtered')

    // a month without a sale says so, and draws no empty chart
    await page.evaluate(`location.hash = ${JSON.stringify('#/dashboard?emission=1&from=2001-01-01&to=2001-01-31')}`)
    const none = page.locator('[data-test="no-activity"]')
    await none.waitFor()
    expect(norm(await none.innerText())).toContain('Aucune activité')
    expect(norm(await none.innerText())).toContain(`du ${frDay('2001-01-01')} au ${frDay('2001-01-31')}`)
    expect(await page.locator('canvas[aria-label="Ventes par jour"]').count()).toBe(0)
    expect(await page.locator('[data-test="dashboard"] .kpi').filter({ hasText: 'Ventes' }).count()).toBe(0)
    await screenshot(page, 'manager-5-dashboard-no-activity')
    expect(problems).toEqual([])
  }, 120_000)

  it('exports the filtered sales for a French spreadsheet: BOM, semicolons, decimal commas, its filters, version and time', async () => {
    const { from, to, period } = someDays()
    const { page, problems } = await dashboardAt(`emission=1&from=${from}&to=${to}`)
    await expect.poll(() => kpiText(page, 'Ventes').catch(() => '')).toContain(eur(period.staked))
    await page.locator('[data-test="dashboard-export"]').click()
    await screenshot(page, 'manager-6-dashboard-export-menu')
    await page.locator('[data-test="export-office-days"]').waitFor()
    await screenshot(page, 'manager-6-dashboard-export-menu')
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.locator('[data-test="export-office-days"]').click(),
    ])
    expect(download.suggestedFilename()).toMatch(
      new RegExp(`^dashboard-E0001-${from}_${to}-\\d{4}-\\d{2}-\\d{2}\\.csv$`),
    )
    const bytes = readFileSync((await download.path())!)
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf])
    const text = bytes.toString('utf8').slice(1)
    const [about, head, ...rows] = parseCsv(text, ';')
    const dd = (day: string) => day.split('-').reverse().join('/')
    expect(about[0]).toBe(`# Logiciel\u00a0: Carats back-office ${version}`)
    expect(about[1]).toMatch(/^Données au\u00a0: \d\d\/\d\d\/\d{4} \d\d:\d\d:\d\d \(.+\)$/)
    expect(about.slice(2)).toEqual([
      'Émission\u00a0: 1',
      `Du\u00a0: ${dd(from)}`,
      `Au\u00a0: ${dd(to)}`,
      'Émissions de démonstration\u00a0: —',
    ])
    expect(head).toEqual([
      'Jour',
      'Émission',
      'Démonstration',
      'Unités vendues',
      'Ventes (€)',
      'Unités gagnantes',
      'Lots gagnés (€)',
      'Taux de retour réalisé (%)',
      'Taux de retour théorique (%)',
    ])
    expect(rows.length).toBe(period.days)
    for (const r of rows) {
      expect(r).toHaveLength(9)
      expect(r[4]).toMatch(/^\d+,\d\d$/)
      expect(r[8]).toBe('71,99975')
    }
    const cents = (cell: string) => Math.round(Number(cell.replace(',', '.')) * 100)
    expect(rows.reduce((n, r) => n + Number(r[3]), 0)).toBe(period.units)
    expect(rows.reduce((n, r) => n + cents(r[4]), 0)).toBe(period.staked)
    expect(rows.reduce((n, r) => n + cents(r[6]), 0)).toBe(period.won)
    expect(problems).toEqual([])
  }, 120_000)

  it('shows the new figures on coming back after a sale made elsewhere (through the api)', async () => {
    const { page, problems } = await dashboardAt('demo=1')
    const before = salesBetween(app.dbPath, '0000-01-01', '9999-12-31')
    await expect.poll(() => kpiText(page, 'Ventes').catch(() => '')).toContain(`${int(before.units)} unités vendues`)
    await page.getByRole('menuitem', { name: 'Émissions' }).click()
    await page.getByRole('heading', { name: 'Émissions', level: 1 }).waitFor()

    // the sales platform's next sale of the block, imported by an operator meanwhile
    const facts = ledgerFacts(app.dbPath)
    const unit = facts.unitsSold(1, 1)
    facts.close()
    const line = feedLine({
      saleId: `E2E-MANAGER-${unit}`,
      serial: formatSerial({ emission: 1, block: 1, unit }, CARATS.blockSize),
      player: 'E2E-MANAGER',
      soldAt: new Date().toISOString(),
      stakeCents: CARATS.unitPriceCents,
      play: null,
    })
    const imported = await app.call('sales:import', { content: `${line}\n` }, await app.token('operator'))
    expect(imported, JSON.stringify(imported)).toMatchObject({ ok: true, result: { imported: 1 } })
    const after = salesBetween(app.dbPath, '0000-01-01', '9999-12-31')
    expect(after.units).toBe(before.units + 1)

    // back through the menu: the filters come back with the figures read again
    await page.getByRole('menuitem', { name: 'Tableau de bord' }).click()
    await expect
      .poll(() => kpiText(page, 'Ventes').catch(() => ''), { timeout: 15_000 })
      .toContain(`${int(after.units)} unités vendues`)
    expect(await kpiText(page, 'Ventes')).toContain(eur(after.staked))
    expect(page.url()).toContain('demo=1')
    await screenshot(page, 'manager-7-dashboard-after-sale')

    // another sale while the window is behind another one: the figures are read again when it comes back to the front
    const next = feedLine({
      saleId: `E2E-MANAGER-${unit + 1}`,
      serial: formatSerial({ emission: 1, block: 1, unit: unit + 1 }, CARATS.blockSize),
      player: 'E2E-MANAGER',
      soldAt: new Date().toISOString(),
      stakeCents: CARATS.unitPriceCents,
      play: null,
    })
    expect(await app.call('sales:import', { content: `${next}\n` }, await app.token('operator'))).toMatchObject({
      ok: true,
      result: { imported: 1 },
    })
    await page.evaluate("window.dispatchEvent(new Event('focus'))")
    await expect
      .poll(() => kpiText(page, 'Ventes').catch(() => ''), { timeout: 15_000 })
      .toContain(`${int(after.units + 1)} unités vendues`)
    expect(problems).toEqual([])
  }, 120_000)

  it('says its alerts in one box, one line each', async () => {
    const db = new Database(app.dbPath)
    try {
      const add = db.prepare(
        "INSERT INTO alerts (kind, emission, block, amount_cents, message, at) VALUES ('top-prizes-sold-out', 1, ?, ?, 'sold out', ?)",
      )
      add.run(1, 50_000_000, '2026-12-01T10:00:00.000Z')
      add.run(null, 50_000_000, '2026-12-01T10:00:01.000Z')
    } finally {
      db.close()
    }
    const { page, problems } = await dashboardAt('')
    const box = page.locator('[data-test="alerts"]')
    await box.waitFor({ timeout: 15_000 })
    expect(await box.count()).toBe(1)
    const lines = (await box.locator('[data-test="alert"]').allInnerTexts()).map(norm)
    expect(lines).toHaveLength(2)
    expect(lines.join(' | ')).toContain('Tous les lots de 500 000 € du bloc 1/1 sont vendus')
    expect(lines.join(' | ')).toContain('Tous les lots de 500 000 € de l’émission 1 sont vendus')
    await screenshot(page, 'manager-10-dashboard-alerts')
    expect(problems).toEqual([])
  }, 120_000)

  it("draws a block's depletion in whole prizes for a small tier, and the expected line on top of all tiers", async () => {
    const { page, problems } = await app.open()
    await signIn(page, 'manager')
    await page.evaluate(`location.hash = '#/emissions/1/blocks/1'`)
    await page.locator('canvas[aria-label="Épuisement des lots"]').waitFor({ timeout: 30_000 })
    // the top tier: 2 prizes a block
    await page.getByRole('radio', { name: '500 000 €' }).check({ force: true })
    await expect.poll(async () => (await drawnChart(page, 'Épuisement des lots')).yTicks).toEqual(['0', '1', '2'])
    await page.locator('canvas[aria-label="Épuisement des lots"]').scrollIntoViewIfNeeded()
    await screenshot(page, 'manager-8-block-top-tier')
    await page.getByRole('radio', { name: 'Tous les lots (%)' }).check({ force: true })
    await expect.poll(async () => (await drawnChart(page, 'Épuisement des lots')).drawOrder.at(-1)).toBe('Attendu')
    const all = await drawnChart(page, 'Épuisement des lots')
    expect(all.datasets.length).toBe(CARATS.tiers.length + 1)
    // no two ticks of the percentages read alike
    expect(new Set(all.yTicks).size, all.yTicks.join(' | ')).toBe(all.yTicks.length)
    // the whole axis, 0 to 100 %, until the zoom fits it to the lines (they stay near 100 % early on)
    expect(all.yTicks[0]).toMatch(/^0\s?%$/)
    expect(all.yTicks.at(-1)).toMatch(/^100\s?%$/)
    await page.locator('canvas[aria-label="Épuisement des lots"]').scrollIntoViewIfNeeded()
    await screenshot(page, 'manager-9-block-all-tiers')
    await page.locator('[data-test="chart-zoom"]').click()
    await expect.poll(async () => (await drawnChart(page, 'Épuisement des lots')).yTicks[0]).not.toMatch(/^0\s?%$/)
    await screenshot(page, 'manager-9b-block-all-tiers-zoomed')
    expect(problems).toEqual([])
  }, 120_000)
})
