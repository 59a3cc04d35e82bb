/**
 * Prize liability and claim deadlines on screen, in Chromium (issue 34), on the prepared ledger
 * with claims (demonstration emission 1 claiming from 100 €, 20,000 sales): one claim paid and one
 * rejected through the api first. A manager opens Engagements de lots, includes the demonstration
 * emission and reads its parts, each as the ledger's own rows say (SQL of the test's own), adding
 * up to the prize table with no gap shown; a block's tiers open and close from the keyboard; a day
 * before the ledger has no emission. Once the emission is closed its open claims are listed near
 * their deadline (notice at 30 days), the expiry pass finds none due, and the claims list has a
 * box for the expired ones. An operator creates an
 * emission with a claim deadline of 45 days and its page says so. A tier's counter changed
 * outside the app shows as a gap, in red, under a warning that says to check the ledger.
 */
import { readFileSync } from 'node:fs'
import Database from 'better-sqlite3'
import type { Page } from 'playwright-core'
import { beforeAll, describe, expect, it } from 'vitest'
import { screenshot } from './support'
import { outsideSql } from '../support/outside-sql'
import { parseCsv } from '../support/parse-csv'
import { eur, int, norm, pageToken, signIn, useJourneyApp } from './fixtures/app'
import { axeViolations, describeViolations } from './fixtures/axe'
import { CLAIMS_LEDGER } from './fixtures/ledger'
import { CARATS } from '../../game-core/carats'
import { deriveFigures } from '../../game-core/rules'
import { formatSerial } from '../../game-core/serial'
import { splitUnitKey } from '../../electron/ledger/unit-key'

const THRESHOLD = 10_000
/** A locator's text on one line, spaces normalised. */
const text = async (page: Page, selector: string) =>
  norm((await page.locator(selector).first().innerText()).replace(/\s*\n\s*/g, ' '))

async function goTo(page: Page, hash: string): Promise<void> {
  await page.evaluate(`location.hash = ${JSON.stringify(hash)}`)
}

describe('prize liability and claim deadlines', () => {
  const app = useJourneyApp(CLAIMS_LEDGER)

  /** The ledger's own figures, by SQL: the parts of the identity and the claims each counts. */
  function ledgerParts() {
    const db = new Database(app.dbPath, { readonly: true, fileMustExist: true })
    try {
      const cents = (sql: string, ...p: unknown[]) =>
        db
          .prepare(sql)
          .pluck()
          .get(...p) as number
      const claims = (statuses: string[]) => {
        const q = `SELECT count(*) AS n, total(prize_cents) AS cents FROM claims WHERE status IN (${statuses.map(() => '?').join(',')})`
        return db.prepare(q).get(...statuses) as { n: number; cents: number }
      }
      return {
        won: cents('SELECT total(prize_cents) FROM sales'),
        credited: cents('SELECT total(prize_cents) FROM sales WHERE prize_cents < ?', THRESHOLD),
        paid: claims(['paid']),
        outstanding: claims(['pending', 'verified', 'approved']),
        void: claims(['rejected']),
        serials: (
          db.prepare('SELECT unit_key FROM claims ORDER BY sold_at, unit_key LIMIT 2').pluck().all() as number[]
        ).map((k) => formatSerial(splitUnitKey(k))),
      }
    } finally {
      db.close()
    }
  }

  beforeAll(async () => {
    const [paid, rejected] = ledgerParts().serials
    const support = await app.token('support')
    const manager = await app.token('manager')
    const steps: [string, unknown, string][] = [
      ['claims:verify', { serial: paid, identity: { document: 'passport', reference: '18AB12345' } }, support],
      ['claims:approve', { serial: paid }, manager],
      ['claims:pay', { serial: paid, reference: 'VIR-E2E-34' }, manager],
      ['claims:reject', { serial: rejected, reason: 'ticket abîmé, illisible' }, support],
    ]
    for (const [channel, args, token] of steps) {
      const r = await app.call(channel, args, token)
      if (!r.ok) throw new Error(`${channel}: ${r.error.message}`)
    }
  }, 120_000)

  it('shows a manager every part of the prize table, as the ledger says, with no gap', async () => {
    const { page, problems } = await app.open()
    await signIn(page, 'manager')
    await page.getByRole('menuitem', { name: 'Engagements de lots' }).click()
    await page.getByRole('heading', { name: 'Engagements de lots', level: 1 }).waitFor()
    expect(await page.title()).toBe('Engagements de lots — 500 000 CARATS')
    // real emissions only at first: the demonstration emission is not counted
    await page.locator('[data-test="liability-none"]').waitFor({ timeout: 15_000 })
    await page.locator('[data-test="include-demo"]').click()
    await expect.poll(() => page.url()).toContain('demo=1')
    const card = page.locator('[data-test="liability-emission-1"]')
    await card.waitFor({ timeout: 15_000 })
    expect(await card.locator('[data-test="demo-tag"]').count()).toBe(1)
    expect(await text(page, '[data-test="emission-deadline"]')).toBe(
      'Date limite de réclamation : 30 jours après la clôture',
    )

    const f = ledgerParts()
    const table = deriveFigures(CARATS).prizeTotalCents
    expect(f.paid.n).toBe(1)
    expect(f.void.n).toBe(1)
    const expected = {
      credited: eur(f.credited),
      paid: `${eur(f.paid.cents)} 1 réclamation`,
      outstanding: `${eur(f.outstanding.cents)} ${int(f.outstanding.n)} réclamations`,
      expired: `${eur(0)} aucune réclamation`,
      void: `${eur(f.void.cents)} 1 réclamation`,
      unsold: eur(table - f.won),
      table: eur(table),
    }
    for (const [part, value] of Object.entries(expected))
      expect(await text(page, `[data-test="total-${part}"] dd`), part).toBe(value)
    // what the units sold won, the five parts that are not unsold
    expect(await text(page, '[data-test="total-won"]')).toContain(eur(f.won))
    // the six parts make the prize table: no gap, no warning, no gap column
    expect(f.credited + f.paid.cents + f.outstanding.cents + f.void.cents + (table - f.won)).toBe(table)
    expect(await page.locator('[data-test="liability-gap"]').count()).toBe(0)
    expect(await page.locator('[data-test="total-gap"]').count()).toBe(0)
    expect(await card.locator('th').filter({ hasText: 'Écart' }).count()).toBe(0)
    expect(await text(page, '[data-test="liability-identity"]')).toContain(
      'Crédité + payé + à payer + expiré + annulé + dans les invendus = plan de lots',
    )

    // the block's line, then its tiers (opened at first: the emission has one block)
    const rows = card.locator('tbody tr')
    expect(await rows.count()).toBe(1 + CARATS.tiers.length)
    expect(norm(await rows.first().innerText())).toContain('Bloc 001')
    expect(norm(await rows.first().innerText())).toContain(eur(table))
    const top = Math.max(...CARATS.tiers.map((t) => t.amountCents))
    expect(norm(await rows.filter({ hasText: `Lot de ${eur(top)}` }).innerText())).toContain('en personne')
    await page.setViewportSize({ width: 1440, height: 2600 })
    await page.locator('[data-test="claim-deadlines"]').waitFor()
    await page.waitForTimeout(300)
    await page.screenshot({ path: '/tmp/liability.png', fullPage: true })
    await screenshot(page, 'liability-1-manager')
    // WCAG 2.1 AA, as every screen
    expect(describeViolations(await axeViolations(page, 'liability (fr, light)'))).toBe('no violations')

    // the CSV export of these filters, in the machine form: the total's parts in cents, no gap
    await page.locator('[data-test="liability-export"]').click()
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.locator('[data-test="export-machine-main"]').click(),
    ])
    expect(download.suggestedFilename()).toMatch(/^liability-\d{4}-\d{2}-\d{2}\.csv$/)
    const lines = parseCsv(readFileSync((await download.path())!, 'utf8'), ',')
    const head = lines.findIndex((l) => l[0] === 'emission')
    const total = Object.fromEntries(lines[head].map((id, i) => [id, lines[lines.length - 1][i]]))
    expect(total).toMatchObject({
      emission: '',
      won_cents: String(f.won),
      credited_cents: String(f.credited),
      paid_cents: String(f.paid.cents),
      outstanding_cents: String(f.outstanding.cents),
      table_cents: String(table),
      gap_cents: '0',
    })
    expect(lines.slice(0, head).join('\n')).toContain('include_demo')

    // the tiers close and open again from the keyboard
    const toggle = card.locator('[data-test="toggle-block-1"]')
    expect(await toggle.getAttribute('aria-expanded')).toBe('true')
    await toggle.focus()
    await page.keyboard.press('Enter')
    await expect.poll(() => rows.count()).toBe(1)
    expect(await toggle.getAttribute('aria-expanded')).toBe('false')
    await page.keyboard.press('Space')
    await expect.poll(() => rows.count()).toBe(1 + CARATS.tiers.length)

    // a day before the ledger existed: no emission yet
    await goTo(page, '#/liability?demo=1&asOf=2020-01-01')
    await page.locator('[data-test="liability-none"]').waitFor({ timeout: 15_000 })
    expect(await text(page, '[data-test="liability-facts"]')).toContain('à la fin du 1 janv. 2020')
    expect(problems).toEqual([])
  }, 120_000)

  it('lists the open claims near their deadline once the emission is closed; the expiry pass finds none due', async () => {
    const { page, problems } = await app.open()
    await signIn(page, 'operator')
    const closed = await app.call<{ claimDeadline: string | null }>(
      'emissions:close',
      { emission: 1 },
      await pageToken(page),
    )
    if (!closed.ok) throw new Error(closed.error.message)
    expect(closed.result.claimDeadline).not.toBeNull()

    const manager = await app.open()
    const m = manager.page
    await signIn(m, 'manager')
    await goTo(m, '#/liability?demo=1')
    const open = ledgerParts().outstanding.n
    const deadlines = m.locator('[data-test="claim-deadlines"]')
    await expect
      .poll(() => text(m, '[data-test="deadlines-count"]'), { timeout: 15_000 })
      .toBe(`${int(open)} réclamations`)
    const first = deadlines.locator('tbody tr').first()
    expect(norm(await first.innerText())).toMatch(/En attente|Identité vérifiée|Approuvée/)
    expect(norm(await first.innerText())).toContain('30 jours')
    expect(await first.locator('[data-test="notice-30"]').innerText()).toBe('30 j')
    expect(await text(m, '[data-test="emission-deadline"]')).toMatch(/^Date limite de réclamation : \d/)
    await deadlines.scrollIntoViewIfNeeded()
    await screenshot(m, 'liability-2-deadlines')
    await m.screenshot({ path: '/tmp/liability-deadlines.png' })

    // nothing is past its deadline yet: the pass says so and expires nothing
    await m.locator('[data-test="expire-claims"]').click()
    await expect
      .poll(() => text(m, '.n-message'), { timeout: 10_000 })
      .toBe('Aucune réclamation échue : rien n’a expiré.')
    expect(await text(m, '[data-test="total-expired"] dd')).toBe(`${eur(0)} aucune réclamation`)

    // a serial leads to its claim's page
    const serial = norm(await first.locator('a').innerText())
    await first.locator('a').click()
    await expect.poll(() => m.url()).toContain(`#/claims/${serial}`)
    await m.locator('[data-test="claim-status"]').waitFor({ timeout: 15_000 })

    // the claims list counts the expired ones too (none yet), as a box that filters by them
    await goTo(m, '#/claims')
    await expect
      .poll(() => text(m, '[data-test="total-expired"]'), { timeout: 15_000 })
      .toBe(`Expirée aucune ${eur(0)}`)
    await m.locator('[data-test="total-expired"]').click()
    await expect.poll(() => m.url()).toContain('status=expired')
    await screenshot(m, 'liability-3-claims-expired')
    expect([...problems, ...manager.problems]).toEqual([])
  }, 120_000)

  it('creates an emission with a claim deadline of 45 days, said on its page', async () => {
    const { page, problems } = await app.open()
    await signIn(page, 'operator')
    await page.getByRole('button', { name: 'Nouvelle émission' }).click()
    const dialog = page.getByRole('dialog')
    const days = dialog.locator('[data-test="create-claim-days"] input')
    await days.waitFor()
    expect(await days.inputValue()).toBe('30')
    expect(norm(await dialog.innerText())).toContain('Délai de réclamation (jours)')
    await dialog.locator('[data-test="create-code"] input').fill('E2E-DELAI')
    await days.fill('45')
    await dialog.locator('[data-test="create-code"] input').click()
    expect(norm(await dialog.innerText())).toContain('dans les 45 jours qui suivent la clôture')
    await screenshot(page, 'liability-4-create')
    await dialog.locator('[data-test="create-submit"]').click()
    await dialog.waitFor({ state: 'hidden' })
    const list = await app.call<{ emission: number; code: string; claimDays: number }[]>(
      'emissions:list',
      {},
      await pageToken(page),
    )
    if (!list.ok) throw new Error(list.error.message)
    const made = list.result.find((e) => e.code === 'E2E-DELAI')!
    expect(made.claimDays).toBe(45)
    await goTo(page, `#/emissions/${made.emission}`)
    await expect
      .poll(() => text(page, '[data-test="claim-deadline"]'), { timeout: 15_000 })
      .toBe('45 jours après la clôture')
    await screenshot(page, 'liability-5-emission')
    expect(problems).toEqual([])
  }, 60_000)

  it('warns, and shows the gap in red, when a counter no longer agrees with the sales', async () => {
    // the smallest tier claimed in person (block_tiers numbers the tiers from 0)
    const tier = CARATS.tiers.map((t) => t.amountCents >= THRESHOLD).lastIndexOf(true)
    const amount = CARATS.tiers[tier].amountCents
    outsideSql(app.dbPath, `UPDATE block_tiers SET sold = sold + 1 WHERE emission = 1 AND block = 1 AND tier = ${tier}`)
    const { page, problems } = await app.open()
    await signIn(page, 'auditor')
    await goTo(page, '#/liability?emission=1')
    const alert = page.locator('[data-test="liability-gap"]')
    await alert.waitFor({ timeout: 15_000 })
    expect(await text(page, '[data-test="liability-gap"]')).toContain('Les comptes ne tombent pas juste')
    expect(await text(page, '[data-test="liability-gap"]')).toContain(`pour émission 0001, bloc 001, crédité + payé`)
    expect(await text(page, '[data-test="liability-gap"]')).toContain('lancez Vérifier le registre')
    expect(await text(page, '[data-test="total-gap"] dd')).toBe(eur(-amount))
    const card = page.locator('[data-test="liability-emission-1"]')
    expect(await card.locator('th').filter({ hasText: 'Écart' }).count()).toBe(1)
    const off = card.locator('tbody .gap-off')
    expect(await off.count()).toBe(2) // the block's line and its tier's
    // in the error colour, not the text's
    const colour = (selector: string) =>
      page.evaluate(`getComputedStyle(document.querySelector(${JSON.stringify(selector)})).color`)
    expect(await colour('[data-test="liability-emission-1"] tbody .gap-off')).not.toBe(
      await colour('[data-test="liability-emission-1"] tbody td'),
    )
    // an auditor reads the figures; the expiry pass is not offered
    expect(await page.locator('[data-test="expire-claims"]').count()).toBe(0)
    await page.setViewportSize({ width: 1440, height: 1400 })
    await screenshot(page, 'liability-6-gap')
    expect(describeViolations(await axeViolations(page, 'liability, gap (fr, light)'))).toBe('no violations')

    // in English, dark: the same screen, every text translated
    await page.evaluate(`localStorage.setItem('carats.locale', 'en'); localStorage.setItem('carats.theme', 'dark')`)
    await page.reload()
    await page.getByRole('heading', { name: 'Prize liability', level: 1 }).waitFor({ timeout: 15_000 })
    await expect.poll(() => text(page, '[data-test="liability-gap"]')).toContain('The accounts do not add up')
    expect(await text(page, '[data-test="liability-identity"]')).toContain(
      'Credited + paid + to pay + expired + void + in unsold units = prize table',
    )
    // read, not reading
    await expect
      .poll(() => page.locator('[data-test="liability-refresh"]').getAttribute('class'))
      .not.toContain('loading')
    await page.waitForTimeout(400) // the spinner fades out
    await page.screenshot({ path: '/tmp/liability-en.png' })
    expect(describeViolations(await axeViolations(page, 'liability, gap (en, dark)'))).toBe('no violations')
    await page.screenshot({ path: '/tmp/liability-gap.png' })
    expect(problems).toEqual([])
  }, 60_000)
})
