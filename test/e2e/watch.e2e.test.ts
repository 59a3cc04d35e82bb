/**
 * Insiders watched: an auditor adds an account to the register of related parties (a reason too
 * short is refused beside its field), sees its claimant flagged, removes the entry with a reason
 * and finds it again among the removed; the improbable winners' screen lists a player who holds
 * five claims for five units, with figures worked out here from the prize table. A support user
 * sees both screens and no button that changes the register.
 */
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { screenshot } from './support'
import { eur, norm, signIn, useJourneyApp } from './fixtures/app'
import { axeViolations, describeViolations, type Violation } from './fixtures/axe'
import { SALES_LEDGER, STAFF, staffActor } from './fixtures/ledger'
import { openBackend } from '../../electron/app/backend'
import { LOSING } from '../../game-core/block'

const THRESHOLD_CENTS = 10_000 // 100 €: about one unit in a hundred reaches it
const LUCKY = 'lucky-lou'
const COUSIN = 'cousin-cam'
const CLAIMS = 5
const REASON = 'Cousin d’une conseillère du service client'
const REMOVAL = 'Lien vérifié : homonyme, sans parenté'

/** What the backend sold, for the test to check the screen against. */
const sold = { luckyCents: 0, expected: 0 }

/**
 * On the copy of the prepared ledger, before the host opens it: an emission whose claim threshold
 * is 100 €, and its first units sold in order, every one that reaches the threshold to LUCKY
 * (up to five) or COUSIN (the sixth), the others to a few fillers.
 */
async function prepare(dbPath: string): Promise<void> {
  const b = openBackend({ dbPath, threads: 2, actorName: 'e2e-setup' })
  try {
    const s = b.services
    const op = staffActor('operator')
    const e = s.emissions.create(op, {
      blocks: 1,
      code: 'E2E-WATCH',
      demo: true,
      claimThresholdCents: THRESHOLD_CENTS,
    }).emission
    for (const start of [() => s.emissions.generate(op, e), () => s.emissions.verify(op, e)]) {
      const job = await s.jobs.wait(start().id)
      if (job.state !== 'done') throw new Error(`${job.kind} ended ${job.state}: ${job.message}`)
    }
    s.emissions.open(op, e)
    const def = s.catalog.definition(e)
    const tiers = s.catalog.deriver(e, 1).tiers
    const prizeOf = (unit: number) => (tiers[unit] === LOSING ? 0 : def.tiers[tiers[unit]].amountCents)
    const batch: { emission: number; player: string; soldAt: number }[] = []
    const t0 = Date.now()
    let wins = 0
    for (let unit = 0; wins <= CLAIMS; unit++) {
      const win = prizeOf(unit) >= THRESHOLD_CENTS
      if (win && ++wins <= CLAIMS) sold.luckyCents += prizeOf(unit)
      const player = !win ? `filler-${unit % 7}` : wins <= CLAIMS ? LUCKY : COUSIN
      batch.push({ emission: e, player, soldAt: t0 + unit * 10 })
    }
    const r = s.sales.sellBatch(batch)
    if (!r.ok) throw new Error(JSON.stringify(r.errors.slice(0, 3)))
    // λ: five units, each reaching 100 € with the prize table's odds
    const reaching = def.tiers.filter((t) => t.amountCents >= THRESHOLD_CENTS).reduce((n, t) => n + t.count, 0)
    sold.expected = (CLAIMS * reaching) / def.blockSize
  } finally {
    await b.closeGracefully()
  }
}

/** P(X ≥ 5) for X Poisson of mean λ, its terms written out (λ is tiny: the rest is negligible). */
function byHand(lambda: number): number {
  const first = (Math.exp(-lambda) * lambda ** 5) / 120
  return first * (1 + lambda / 6 + lambda ** 2 / 42 + lambda ** 3 / 336)
}

/** Text with every run of white space (tabs and line breaks between cells too) as one space. */
const flat = (s: string) => norm(s).replace(/\s+/g, ' ')
const firstWords = async (page: Page, table: string) =>
  (await rows(page, table).allInnerTexts()).map((r) => flat(r).split(' ')[0])
const rows = (page: Page, table: string) => page.locator(`[data-test="${table}"] tbody tr`)
const rowOf = (page: Page, table: string, text: string) => rows(page, table).filter({ hasText: text })

/** axe-core's findings on the screen as it is, once Naive UI's transitions have ended. */
async function axe(page: Page, found: Violation[], name: string): Promise<void> {
  await page.waitForTimeout(400)
  found.push(...(await axeViolations(page, name)))
}

async function look(page: Page, locale: 'fr' | 'en', theme: 'light' | 'dark'): Promise<void> {
  await page.evaluate(
    `localStorage.setItem('carats.locale', '${locale}'); localStorage.setItem('carats.theme', '${theme}')`,
  )
  await page.reload()
}

describe('insiders and improbable winners', () => {
  const app = useJourneyApp(SALES_LEDGER, { prepare })

  it('lets an auditor keep the register and read the flagged claimants with their figures', async () => {
    const { page, problems } = await app.open()
    // the screens with rows (the accessibility test's ledger has none to flag), light and dark
    const found: Violation[] = []
    await signIn(page, 'auditor')

    // the register, empty, from the side menu
    await page.getByRole('menuitem', { name: 'Personnes liées' }).click()
    await page.getByRole('heading', { name: 'Personnes liées', level: 1 }).waitFor()
    await expect.poll(() => page.locator('[data-test="table-count"]').innerText()).toBe('aucune entrée')

    // an entry, its reason first too short: refused beside its field
    await page.locator('[data-test="party-add"]').click()
    await page.locator('[data-test="party-player"] input').fill(COUSIN)
    await page.locator('[data-test="party-relation"]').click()
    await page.locator('.n-base-select-option', { hasText: 'Famille' }).click()
    await page.locator('[data-test="party-linked-to"] input').fill(STAFF.support)
    const reason = page.locator('[data-test="party-reason"] textarea')
    await reason.fill('ok')
    await expect
      .poll(() => page.locator('[data-test="party-reason-item"]').innerText())
      .toContain('Donnez un motif d’au moins 3 caractères.')
    const submit = page.locator('[data-test="party-submit"]')
    expect(await submit.isDisabled()).toBe(true)
    // nor does the form's keyboard submit send it
    await reason.press('Control+Enter')
    expect(await page.locator('[data-test="party-reason-item"]').isVisible()).toBe(true)
    await screenshot(page, 'watch-1-reason-too-short')
    await reason.fill(REASON)
    expect(await submit.isDisabled()).toBe(false)
    await submit.click()

    const entry = rowOf(page, 'parties-table', COUSIN)
    await entry.waitFor()
    const entryText = flat(await entry.innerText())
    for (const part of ['Famille', STAFF.support, REASON, STAFF.auditor, 'en vigueur'])
      expect(entryText).toContain(part)
    await screenshot(page, 'watch-2-register-fr-light')
    await axe(page, found, 'register (fr, light)')

    // the flagged claimants, least probable first: LUCKY's five claims, then the related cousin
    await page.getByRole('menuitem', { name: 'Gagnants improbables' }).click()
    await page.getByRole('heading', { name: 'Gagnants improbables', level: 1 }).waitFor()
    await expect.poll(() => firstWords(page, 'watch-table')).toEqual([LUCKY, COUSIN])
    const lucky = rowOf(page, 'watch-table', LUCKY)
    const cells = (await lucky.locator('td').allInnerTexts()).map(flat)
    const p = byHand(sold.expected)
    expect(cells.slice(0, 5)).toEqual([
      LUCKY,
      '5',
      '5',
      eur(sold.luckyCents),
      norm(new Intl.NumberFormat('fr-FR', { maximumSignificantDigits: 2 }).format(sold.expected)),
    ])
    expect(cells[5]).toMatch(/^1 chance sur \d+ millions$/)
    expect(await lucky.locator('[data-test="watch-probability"]').getAttribute('title')).toBe(
      `P = ${p.toExponential(2)}`,
    )
    // one in 1/p, to two significant digits
    expect(Number(/sur (\d+) millions/.exec(cells[5])?.[1])).toBe(Number((1 / p / 1e6).toPrecision(2)))
    expect(cells[6]).toBe('improbable nombreuses réclamations')
    expect(flat(await rowOf(page, 'watch-table', COUSIN).locator('td').last().innerText())).toBe('personne liée')

    // how the probability is computed, folded until asked for
    const how = page.locator('[data-test="watch-how"]')
    expect(await how.getByText('λ = Σ nₑ × pₑ').isVisible()).toBe(false)
    await how.locator('summary').click()
    expect(flat(await how.innerText())).toContain(
      'à partir de 2 réclamations quand cette probabilité est inférieure à 1 chance sur 1 million',
    )
    await screenshot(page, 'watch-3-flags-fr-light')
    await axe(page, found, 'flags (fr, light)')

    // a claimant's name opens the claims list filtered by that player
    await lucky.getByRole('link', { name: `Réclamations de ${LUCKY}` }).click()
    await expect.poll(() => page.url()).toContain(`#/claims?player=${LUCKY}`)
    await expect.poll(() => rows(page, 'claims-table').filter({ hasText: LUCKY }).count()).toBe(CLAIMS)
    expect(await rows(page, 'claims-table').count()).toBe(CLAIMS)

    // the entry removed, with a reason: gone from the register in force, kept among the removed
    await page.getByRole('menuitem', { name: 'Personnes liées' }).click()
    await rowOf(page, 'parties-table', COUSIN)
      .getByRole('button', { name: /^Retirer/ })
      .click()
    const removal = page.locator('[data-test="party-remove-reason"] textarea')
    await removal.fill('no')
    await expect
      .poll(() => page.locator('[data-test="party-remove-reason-item"]').innerText())
      .toContain('Donnez un motif d’au moins 3 caractères.')
    expect(await page.locator('[data-test="party-remove-submit"]').isDisabled()).toBe(true)
    await removal.fill(REMOVAL)
    await page.locator('[data-test="party-remove-submit"]').click()
    await expect.poll(() => page.locator('[data-test="table-count"]').innerText()).toBe('aucune entrée')
    await page.locator('[data-test="party-include-removed"]').click()
    const removed = rowOf(page, 'parties-table', COUSIN)
    await removed.waitFor()
    expect(flat(await removed.innerText())).toContain(REMOVAL)
    expect(await removed.getByRole('button', { name: /^Retirer/ }).count()).toBe(0)

    // and the cousin is flagged no more
    await page.getByRole('menuitem', { name: 'Gagnants improbables' }).click()
    await expect.poll(() => firstWords(page, 'watch-table')).toEqual([LUCKY])

    // the screens in English, then dark
    await look(page, 'en', 'light')
    await page.getByRole('heading', { name: 'Improbable winners', level: 1 }).waitFor()
    await expect
      .poll(() => rowOf(page, 'watch-table', LUCKY).locator('[data-test="watch-probability"]').innerText())
      .toMatch(/^1 in \d+ million$/)
    await page.locator('[data-test="watch-how"] summary').click()
    await screenshot(page, 'watch-4-flags-en-light')
    await page.goto(new URL('#/parties', app.host.url).toString())
    await page.locator('[data-test="party-include-removed"]').click()
    await rowOf(page, 'parties-table', COUSIN).waitFor()
    await screenshot(page, 'watch-5-register-en-light')
    await look(page, 'fr', 'dark')
    await page.locator('[data-test="party-include-removed"]').click()
    await rowOf(page, 'parties-table', COUSIN).waitFor()
    await screenshot(page, 'watch-6-register-fr-dark')
    await axe(page, found, 'register with a removed entry (fr, dark)')
    await page.goto(new URL('#/watch', app.host.url).toString())
    await rowOf(page, 'watch-table', LUCKY).waitFor()
    await page.locator('[data-test="watch-how"] summary').click()
    await screenshot(page, 'watch-7-flags-fr-dark')
    await axe(page, found, 'flags (fr, dark)')
    expect(describeViolations(found)).toBe('no violations')
    expect(problems).toEqual([])
  })

  it('shows support the register and the flags, with no button that changes the register', async () => {
    const { page, problems } = await app.open()
    await signIn(page, 'support')
    await page.getByRole('menuitem', { name: 'Personnes liées' }).click()
    await page.getByRole('heading', { name: 'Personnes liées', level: 1 }).waitFor()
    await page.locator('[data-test="party-include-removed"]').click()
    await rowOf(page, 'parties-table', COUSIN).waitFor()
    expect(await page.locator('[data-test="party-add"]').count()).toBe(0)
    expect(await page.getByRole('button', { name: /^Retirer/ }).count()).toBe(0)
    // the account opens in support's player view
    await rowOf(page, 'parties-table', COUSIN).getByRole('link', { name: COUSIN }).click()
    await expect.poll(() => page.url()).toContain(`#/support?player=${COUSIN}`)
    await page.getByRole('menuitem', { name: 'Gagnants improbables' }).click()
    await rowOf(page, 'watch-table', LUCKY).waitFor()
    // the api refuses what the screen does not offer
    const support = await app.token('support')
    const r = await app.call(
      'parties:add',
      { player: LUCKY, relation: 'staff', linkedTo: STAFF.support, reason: 'not mine to add' },
      support,
    )
    expect(r.ok).toBe(false)
    expect(problems).toEqual([])
  })
})
