/**
 * The emission screen, its verdicts and its two printable documents, on a ledger with 20,000
 * simulated sales (emission 1: one block, open). Every figure is compared with the ledger read
 * by SQL of its own: the sales, the prizes won, the payout, the verdicts kept in the ledger, the
 * commitments and when they were made.
 *
 *  - each role sees only the actions it may take (support: documents only; an auditor: verify;
 *    an operator: close, simulate, import, withdraw, verify);
 *  - an auditor re-verifies from the screen: a new verdict, sound, by the auditor, shown on the
 *    emission and on the printable verification report, kept beside the earlier one;
 *  - after the block's recorded commitment is altered, a re-verification says loudly that the
 *    block is unsound, on the screen and on the report, and the audit log says so;
 *  - the certificate: issued when the commitments were made, a provisional mark before every
 *    block is committed, the sale start, the emission's totals, each commitment on one line,
 *    signature boxes; looked at printed.
 */
import Database from 'better-sqlite3'
import type { Page } from 'playwright-core'
import { beforeAll, describe, expect, it } from 'vitest'
import { screenshot } from './support'
import { eur, int, norm, signIn, useJourneyApp } from './fixtures/app'
import { SALES_LEDGER, STAFF } from './fixtures/ledger'
import { holdCeremony } from './fixtures/ceremony'
import { CARATS } from '../../game-core/carats'
import { deriveFigures } from '../../game-core/rules'
import { forgedHex } from '../support/forge'

const pct = (x: number, digits: number) =>
  norm(
    new Intl.NumberFormat('fr-FR', {
      style: 'percent',
      minimumFractionDigits: 0,
      maximumFractionDigits: digits,
    }).format(x),
  )
const groups = (hex: string) => hex.match(/.{8}/g)!.join(' ')
const T = 600_000

interface Facts {
  units: number
  staked: number
  won: number
  winners: number
  commitment: string
  generatedAt: string
  verifications: { id: number; actor: string; outcome: string | null }[]
}

/** What the ledger says, by SQL of its own. */
function facts(dbPath: string): Facts {
  const db = new Database(dbPath, { readonly: true, fileMustExist: true })
  try {
    const sales = db
      .prepare(
        'SELECT count(*) AS units, sum(stake_cents) AS staked, sum(prize_cents) AS won, sum(prize_cents > 0) AS winners FROM sales WHERE emission = 1',
      )
      .get() as Omit<Facts, 'commitment' | 'generatedAt' | 'verifications'>
    const block = db
      .prepare('SELECT commitment, generated_at AS "generatedAt" FROM blocks WHERE emission = 1 AND block = 1')
      .get() as { commitment: string; generatedAt: string }
    const verifications = db
      .prepare('SELECT id, actor, outcome FROM verifications WHERE emission = 1 ORDER BY id')
      .all() as Facts['verifications']
    return { ...sales, ...block, verifications }
  } finally {
    db.close()
  }
}

/** A time as the screens print it in French, formatted by the page's own Intl. */
const frTime = (page: Page, iso: string) =>
  page
    .evaluate(
      (t) => new Intl.DateTimeFormat('fr-FR', { dateStyle: 'medium', timeStyle: 'medium' }).format(new Date(t)),
      iso,
    )
    .then(norm)

/** How many lines an element's text takes on the page (its text's boxes at distinct heights). */
const linesOf = (locator: ReturnType<Page['locator']>) =>
  locator.evaluate((el) => {
    type Doc = { createRange(): { selectNodeContents(n: unknown): void; getClientRects(): ArrayLike<{ top: number }> } }
    const range = (globalThis as unknown as { document: Doc }).document.createRange()
    range.selectNodeContents(el)
    return new Set(Array.from(range.getClientRects(), (r) => Math.round(r.top))).size
  })

async function emissionScreen(page: Page, n = 1) {
  await page.goto(new URL(`#/emissions/${n}`, page.url()).toString())
  await page
    .getByRole('heading', { name: `Émission ${String(n).padStart(4, '0')}`, level: 1 })
    .waitFor({ timeout: 15_000 })
  await page.locator('[data-test="emission-verdict"]').waitFor({ timeout: 15_000 })
}

/** The actions offered in the screen's head, by their data-test names. */
const actionsOf = (page: Page) =>
  page
    .locator('[data-test="emission-actions"] [data-test^="action-"]')
    .evaluateAll((els) => els.map((e) => e.getAttribute('data-test')!.slice('action-'.length)))

/** Clicks "Vérifier" and waits until the screen shows a verification newer than `after`. */
async function verifyFromScreen(page: Page, after: number): Promise<void> {
  await page.locator('[data-test="action-verify"]').click()
  // the new verification shows as soon as it starts: wait for its end
  const shown = async () => {
    const text = norm(
      await page
        .locator('[data-test="emission-verdict"]')
        .innerText()
        .catch(() => ''),
    )
    return text.includes('Vérification en cours ou interrompue')
      ? 0
      : Number(/Vérification (\d+) par/.exec(text)?.[1] ?? 0)
  }
  await expect.poll(shown, { timeout: T - 60_000, interval: 1_000 }).toBeGreaterThan(after)
}

describe.sequential('the emission screen, its verdicts, its verification report and its certificate', () => {
  const app = useJourneyApp(SALES_LEDGER)
  let before: Facts

  beforeAll(() => {
    before = facts(app.dbPath)
  })

  it(
    'shows its sales, prizes and payout as the ledger holds them, its depletion, and only the actions of the role',
    async () => {
      expect(before.units).toBe(SALES_LEDGER.sales)
      const { page, problems } = await app.open()
      await signIn(page, 'operator')
      await emissionScreen(page)
      const figures = page.locator('[data-test="emission-figures"]')
      const text = async (t: string) => norm(await figures.locator(`[data-test="${t}"]`).innerText())
      expect(await text('units-sold')).toBe(int(before.units))
      expect(await text('units-total')).toBe(int(CARATS.blockSize))
      expect(await text('sales')).toBe(eur(before.staked))
      expect(await text('prizes-won')).toBe(`${int(before.winners)} lots · ${eur(before.won)}`)
      expect(await text('payout')).toBe(pct(before.won / before.staked, 5))
      expect(await text('payout-theoretical')).toBe(`théorique : ${pct(deriveFigures(CARATS).payoutRatio, 5)}`)
      // the emission-wide depletion, drawn
      const depletion = page.locator('[data-test="emission-depletion"]')
      await depletion.locator('canvas[aria-label="Épuisement des lots de l’émission"]').waitFor({ timeout: 15_000 })
      // the ledger's verification when it was prepared, by the operator
      expect(norm(await page.locator('[data-test="emission-verdict"]').innerText())).toContain(
        `Vérification ${before.verifications[0].id} par ${STAFF.operator} (Opérateur)`,
      )
      expect(await page.locator('[data-test="verdict-1"]').innerText()).toBe('Sain')
      // an open demonstration emission: close, simulate, verify, withdraw, import; then its documents
      expect(await actionsOf(page)).toEqual([
        'close',
        'simulate',
        'verify',
        'withdraw',
        'import',
        'certificate',
        'report',
      ])
      await screenshot(page, 'emission-1-operator')

      // support reads the emission but takes no step on it
      const support = await app.open()
      await signIn(support.page, 'support')
      await emissionScreen(support.page)
      expect(await actionsOf(support.page)).toEqual(['certificate', 'report'])
      expect(await support.page.locator('[data-test="emission-depletion"]').count()).toBe(0)
      expect(norm(await support.page.locator('[data-test="sales"]').innerText())).toBe(eur(before.staked))

      // a new real emission: generated only from a complete key ceremony; then the operator may
      // generate it, support and the auditor may not
      const made = await app.call<{ emission: number }>(
        'emissions:create',
        { blocks: 2, code: 'E2E-NEW', startsOn: '2026-09-01' },
        await app.token('operator'),
      )
      if (!made.ok) throw new Error(made.error.message)
      await emissionScreen(page, 2)
      expect(await actionsOf(page)).toEqual(['withdraw', 'certificate'])
      expect(norm(await page.locator('[data-test="ceremony-generation"]').innerText())).toBe(
        'La génération sera proposée une fois la cérémonie complète.',
      )
      await holdCeremony(app, 2)
      // the same address: loaded anew
      await page.reload()
      await emissionScreen(page, 2)
      expect(await actionsOf(page)).toEqual(['generate', 'withdraw', 'certificate'])
      expect(norm(await page.locator('[data-test="never-verified"]').innerText())).toBe(
        'Cette émission n’a encore jamais été vérifiée : aucun verdict n’est enregistré.',
      )
      await emissionScreen(support.page, 2)
      expect(await actionsOf(support.page)).toEqual(['certificate'])
      expect(support.problems).toEqual([])
      expect(problems).toEqual([])
    },
    T,
  )

  it(
    'lets an auditor re-verify: a new verdict, shown on the screen and on the printable report, the old one kept',
    async () => {
      const { page, problems } = await app.open()
      await signIn(page, 'auditor')
      await emissionScreen(page)
      expect(await actionsOf(page)).toEqual(['verify', 'certificate', 'report'])
      const previous = before.verifications.at(-1)!.id
      await verifyFromScreen(page, previous)

      const now = facts(app.dbPath)
      const latest = now.verifications.at(-1)!
      expect(latest).toMatchObject({ actor: STAFF.auditor, outcome: 'sound' })
      expect(now.verifications).toHaveLength(before.verifications.length + 1)
      const verdict = norm(await page.locator('[data-test="emission-verdict"]').innerText())
      expect(verdict).toContain('Tous les blocs sont sains')
      expect(verdict).toContain(`Vérification ${latest.id} par ${STAFF.auditor} (Auditeur)`)
      expect(verdict).toContain('Blocs vérifiés : 1 sur 1 · sains : 1')
      expect(await page.locator('[data-test="unsound-alert"]').count()).toBe(0)
      await screenshot(page, 'emission-2-auditor-verified')

      await page.locator('[data-test="open-report"]').click()
      const report = page.locator('[data-test="verification-report"]')
      await report.waitFor({ timeout: 15_000 })
      expect(page.url()).toMatch(/#\/emissions\/1\/verification$/)
      expect(norm(await report.locator('[data-test="report-outcome"]').innerText())).toBe('Tous les blocs sont sains')
      expect(norm(await report.locator('[data-test="report-verifier"]').innerText())).toBe(
        `${STAFF.auditor} (Auditeur)`,
      )
      expect(norm(await report.locator('[data-test="report-software"]').innerText())).toMatch(
        /^CARATS back-office \d+\.\d+\.\d+$/,
      )
      const row = norm(await report.locator('[data-test="report-block-1"]').innerText())
      expect(row).toContain('Sain')
      expect(row).toContain('reproduit')
      expect(row).toContain(groups(before.commitment))
      expect(row).toContain(`${int(CARATS.blockSize)} / ${int(CARATS.blockSize)}`)
      expect(row).toContain('exact')
      // both verifications listed, the earlier one a click away
      const history = norm(await report.locator('[data-test="report-history"]').innerText())
      expect(history).toContain(`n° ${previous}`)
      expect(history).toContain(`n° ${latest.id}`)
      expect(await report.locator('[data-test="sign-Auditeur"]').count()).toBe(1)
      await page.emulateMedia({ media: 'print' })
      await screenshot(page, 'emission-3-verification-report-printed')
      await page.emulateMedia({ media: 'screen' })
      expect(problems).toEqual([])
    },
    T,
  )

  it(
    'says how a verification started here ended, on whatever screen is open: the emission named, no error, kept in the recent tasks',
    async () => {
      const { page, problems } = await app.open()
      await signIn(page, 'auditor')
      await emissionScreen(page)
      await page.locator('[data-test="action-verify"]').click()
      await page.locator('.n-message').filter({ hasText: 'Vérification' }).first().waitFor({ timeout: 15_000 })
      await page.goto(new URL('#/tickets', page.url()).toString())
      const ended = 'Vérification de l’émission 1 : terminée, chaque bloc est sain.'
      await page
        .locator('.n-message')
        .filter({ hasText: ended })
        .waitFor({ timeout: T - 60_000 })
      // the emission screen left behind reloads nothing: no error said, none logged
      await page.waitForTimeout(1_000)
      expect(await page.locator('.n-message--error-type').count()).toBe(0)
      await page.locator('[data-test="recent-tasks"]').click()
      const recent = page.locator('[data-test="recent-task"]')
      await recent.first().waitFor({ timeout: 5_000 })
      expect(norm(await recent.first().innerText())).toContain(ended)
      await page.waitForTimeout(400) // the list's fade-in
      await screenshot(page, 'emission-2b-recent-tasks')
      expect(problems).toEqual([])
    },
    T,
  )

  it(
    'says loudly that a block whose recorded commitment was altered is unsound, on the screen, the report and in the audit log',
    async () => {
      const forged = forgedHex(before.commitment)
      const db = new Database(app.dbPath)
      db.prepare('UPDATE blocks SET commitment = ? WHERE emission = 1 AND block = 1').run(forged)
      db.close()

      const { page, problems } = await app.open()
      await signIn(page, 'auditor')
      await emissionScreen(page)
      const previous = facts(app.dbPath).verifications.at(-1)!.id
      await verifyFromScreen(page, previous)

      const latest = facts(app.dbPath).verifications.at(-1)!
      expect(latest).toMatchObject({ actor: STAFF.auditor, outcome: 'unsound' })
      const alert = page.locator('[data-test="unsound-alert"]')
      await alert.waitFor({ timeout: 15_000 })
      const loud = norm(await alert.innerText())
      expect(loud).toContain('Vérification en échec : bloc 001 NON SAIN')
      expect(loud).toContain(`the commitment differs (stored ${forged}, regenerated ${before.commitment})`)
      expect(await page.locator('[data-test="verdict-1"]').innerText()).toBe('NON SAIN')
      expect(norm(await page.locator('[data-test="verdict-outcome"]').innerText())).toBe('Des blocs ne sont pas sains')
      await screenshot(page, 'emission-4-unsound')

      await page.locator('[data-test="open-report"]').click()
      const report = page.locator('[data-test="verification-report"]')
      await report.waitFor({ timeout: 15_000 })
      const row = norm(await report.locator('[data-test="report-block-1"]').innerText())
      expect(row).toContain('NON SAIN')
      expect(row).toContain('NON reproduit')
      expect(row).toContain(`enregistré : ${groups(forged)}`)
      expect(row).toContain(`recalculé : ${groups(before.commitment)}`)
      expect(norm(await report.locator('[data-test="report-problems"]').innerText())).toContain(
        'the commitment differs',
      )
      await page.emulateMedia({ media: 'print' })
      await screenshot(page, 'emission-5-unsound-report-printed')
      await page.emulateMedia({ media: 'screen' })

      const log = await app.call<{ items: { actor: string; details: string }[] }>(
        'audit:list',
        { action: 'emission.verify-done', object: 'emission:1' },
        await app.token('auditor'),
      )
      if (!log.ok) throw new Error(log.error.message)
      expect(log.result.items[0].actor).toBe(STAFF.auditor)
      expect(JSON.parse(log.result.items[0].details)).toMatchObject({
        verification: latest.id,
        outcome: 'unsound',
        blocks: 1,
        sound: 0,
        unsound: [1],
      })
      expect(problems).toEqual([])
    },
    T,
  )

  it(
    'prints a certificate issued when the commitments were made, with the sale start, the totals, whole commitments and signature boxes',
    async () => {
      const { page, problems } = await app.open()
      await signIn(page, 'operator')
      await page.goto(new URL('#/emissions/1/certificate', page.url()).toString())
      const cert = page.locator('[data-test="certificate"]')
      await cert.waitFor({ timeout: 15_000 })
      expect(norm(await cert.locator('[data-test="issued"]').innerText())).toContain(
        `Émis le ${await frTime(page, before.generatedAt)}`,
      )
      expect(await cert.locator('[data-test="provisional"]').count()).toBe(0)
      expect(norm(await cert.locator('[data-test="starts-on"]').innerText())).toBe('non fixé')
      const f = deriveFigures(CARATS)
      expect(norm(await cert.locator('[data-test="total-units"]').innerText())).toBe(int(CARATS.blockSize))
      expect(norm(await cert.locator('[data-test="total-blocks"]').innerText())).toBe('1')
      expect(norm(await cert.locator('[data-test="total-prizes"]').innerText())).toBe(int(f.prizesPerBlock))
      expect(norm(await cert.locator('[data-test="total-prizes-cents"]').innerText())).toBe(eur(f.prizeTotalCents))
      expect(norm(await cert.locator('[data-test="total-payout"]').innerText())).toBe(pct(f.payoutRatio, 5))
      // the commitment as the ledger now holds it, whole, on one line
      const commitment = cert.locator('[data-test="commitment"]').first()
      expect(norm(await commitment.innerText())).toBe(groups(forgedHex(before.commitment)))
      const lines = await linesOf(commitment)
      expect(lines).toBe(1)
      // the blocks' table within the page, nothing cut (it once ran past it at 1440 px)
      const table = commitment.locator('xpath=ancestor::table[1]')
      const right = async (l: typeof cert) => {
        const box = (await l.boundingBox())!
        return box.x + box.width
      }
      expect(await right(table)).toBeLessThanOrEqual(await right(cert))
      expect(await cert.locator('[data-test="sign-Opérateur"]').count()).toBe(1)
      expect(await cert.locator('[data-test="sign-Auditeur"]').count()).toBe(1)
      await page.emulateMedia({ media: 'print' })
      expect(await linesOf(commitment)).toBe(1)
      await screenshot(page, 'emission-6-certificate-printed')
      await page.emulateMedia({ media: 'screen' })

      // emission 2 has no block committed yet: provisional, and not yet issued
      await page.goto(new URL('#/emissions/2/certificate', page.url()).toString())
      await page.locator('[data-test="provisional"]').waitFor({ timeout: 15_000 })
      expect(norm(await page.locator('[data-test="issued"]').innerText())).toBe('Émis le : aucun engagement encore')
      expect(norm(await page.locator('[data-test="provisional-note"]').innerText())).toBe(
        'Certificat provisoire : 0 bloc engagé sur 2. Il ne vaut certificat qu’une fois tous les blocs générés.',
      )
      expect(norm(await page.locator('[data-test="starts-on"]').innerText())).toBe(
        norm(
          new Intl.DateTimeFormat('fr-FR', { dateStyle: 'medium', timeZone: 'UTC' }).format(
            new Date(Date.UTC(2026, 8, 1)),
          ),
        ),
      )
      expect(norm(await page.locator('[data-test="total-blocks"]').innerText())).toBe('2')
      await page.emulateMedia({ media: 'print' })
      await screenshot(page, 'emission-7-provisional-certificate-printed')
      expect(problems).toEqual([])
    },
    T,
  )
})
