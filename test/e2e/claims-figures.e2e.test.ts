/**
 * The claims' figures on screen, in Chromium: the new-emission form takes the claim threshold in
 * euros (5 000 € by default) and the emission is created with it; the certificate prints it; the
 * dashboard splits the liability into prizes won but not yet paid and prizes still in unsold
 * units, and counts claims by status, as the ledger says (SQL of the test's own).
 *
 * The prepared ledger with claims (emission 1 at 100 €, 20,000 sales); one claim is verified and
 * approved through the api first.
 */
import Database from 'better-sqlite3'
import { beforeAll, describe, expect, it } from 'vitest'
import { screenshot } from './support'
import { eur, int, norm, pageToken, signIn, useJourneyApp } from './fixtures/app'
import { CLAIMS_LEDGER } from './fixtures/ledger'
import { CARATS } from '../../game-core/carats'
import { deriveFigures } from '../../game-core/rules'
import { formatSerial } from '../../game-core/serial'
import { splitUnitKey } from '../../electron/ledger/unit-key'

const LOW = 10_000

describe('claims on the dashboard, the certificate and the new-emission form', () => {
  const app = useJourneyApp(CLAIMS_LEDGER)
  let first = ''

  beforeAll(() => {
    const db = new Database(app.dbPath, { readonly: true, fileMustExist: true })
    try {
      first = formatSerial(
        splitUnitKey(
          db.prepare('SELECT unit_key FROM claims ORDER BY sold_at, unit_key LIMIT 1').pluck().get() as number,
        ),
      )
    } finally {
      db.close()
    }
  })

  /** Claims per status and the unpaid amount, by SQL. */
  function claimFacts() {
    const db = new Database(app.dbPath, { readonly: true, fileMustExist: true })
    try {
      const rows = db
        .prepare('SELECT status, count(*) AS n, total(prize_cents) AS cents FROM claims GROUP BY status')
        .all() as { status: string; n: number; cents: number }[]
      const won = db.prepare('SELECT total(prize_cents) FROM sales').pluck().get() as number
      const by = new Map(rows.map((r) => [r.status, r]))
      const unpaid = ['pending', 'verified', 'approved'].reduce((s, k) => s + (by.get(k)?.cents ?? 0), 0)
      return { by, unpaid, won }
    } finally {
      db.close()
    }
  }

  it("splits the dashboard's liability and counts the claims by status", async () => {
    const { page, problems } = await app.open()
    await signIn(page, 'manager')
    const token = await pageToken(page)
    for (const [channel, args] of [
      ['claims:verify', { serial: first, identity: { document: 'passport', reference: '18AB12345' } }],
    ] as const) {
      // the support desk verifies; the manager approves (never the same person)
      const support = await app.token('support')
      const r = await app.call(channel, args, support)
      if (!r.ok) throw new Error(r.error.message)
    }
    const approved = await app.call('claims:approve', { serial: first }, token)
    if (!approved.ok) throw new Error(approved.error.message)
    await page.goto(new URL('#/dashboard?demo=1', page.url()).toString())
    const board = page.locator('[data-test="dashboard"]')
    await board.waitFor({ timeout: 30_000 })
    const facts = claimFacts()
    expect(facts.by.get('pending')!.n).toBeGreaterThan(10)
    // the page may first show the figures of the filters it had (real emissions only: 0 €)
    await expect
      .poll(async () => norm(await board.locator('[data-test="liability-won-unpaid"]').innerText()), {
        timeout: 15_000,
      })
      .toContain(eur(facts.unpaid))
    expect(await board.getAttribute('aria-busy')).toBe('false')
    expect(norm(await board.locator('[data-test="liability-unsold"]').innerText())).toContain(
      eur(deriveFigures(CARATS).prizeTotalCents - facts.won),
    )
    const claims = board.locator('[data-test="dashboard-claims"]')
    for (const [status, word] of [
      ['pending', 'En attente'],
      ['verified', 'Identité vérifiée'],
      ['approved', 'Approuvée'],
      ['paid', 'Payée'],
      ['rejected', 'Rejetée'],
    ] as const) {
      const row = norm(await claims.locator(`[data-test="claims-${status}"]`).innerText())
      const f = facts.by.get(status)
      expect(row).toBe(`${word} ${int(f?.n ?? 0)} ${eur(f?.cents ?? 0)}`)
    }
    expect(facts.by.get('approved')!.n).toBe(1)
    await board.locator('[data-test="liability"]').scrollIntoViewIfNeeded()
    await screenshot(page, 'claims-figures-1-dashboard')
    expect(problems).toEqual([])
  }, 120_000)

  it('prints the threshold on the certificate', async () => {
    const { page } = await app.open()
    await signIn(page, 'operator')
    await page.goto(new URL('#/emissions/1/certificate', page.url()).toString())
    const line = page.locator('[data-test="claim-threshold"]')
    await line.waitFor({ timeout: 15_000 })
    expect(norm(await line.innerText())).toMatch(
      new RegExp(`^${eur(LOW)} \\(à partir de ce lot, le gagnant le réclame en personne`),
    )
    await line.scrollIntoViewIfNeeded()
    await screenshot(page, 'claims-figures-2-certificate')
  }, 60_000)

  it('creates an emission with the threshold typed in euros, 5 000 € by default', async () => {
    const { page } = await app.open()
    await signIn(page, 'operator')
    await page.getByRole('button', { name: 'Nouvelle émission' }).click()
    const dialog = page.getByRole('dialog')
    const field = dialog.locator('[data-test="create-claim-threshold"] input')
    await field.waitFor()
    expect(norm(await field.inputValue())).toMatch(/^5 ?000$/)
    expect(norm(await dialog.innerText())).toContain('Seuil de réclamation (€)')
    await dialog.locator('[data-test="create-code"] input').fill('E2E-SEUIL')
    await field.fill('2500')
    await dialog.locator('[data-test="create-code"] input').click()
    await screenshot(page, 'claims-figures-3-create')
    await dialog.locator('[data-test="create-submit"]').click()
    await dialog.waitFor({ state: 'hidden' })
    const list = await app.call<{ code: string; claimThresholdCents: number }[]>(
      'emissions:list',
      {},
      await pageToken(page),
    )
    if (!list.ok) throw new Error(list.error.message)
    expect(list.result.find((e) => e.code === 'E2E-SEUIL')?.claimThresholdCents).toBe(250_000)
  }, 60_000)
})
