/**
 * The ledger screen ("Registre"): an auditor reads the audit log's checkpoint in French and
 * checks the whole ledger, which is sound; an administrator backs it up and finds the backup
 * listed, checked. Then someone edits the ledger file from outside the app: a sale's prize
 * changed, and later the last audit entries deleted. The auditor's next check names the
 * disagreements in French, and the checkpoint says the log was cut, on this screen and on the
 * audit screen.
 */
import { spawn } from 'node:child_process'
import Database from 'better-sqlite3'
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { PROJECT_ROOT } from '../../electron/host/build'
import { splitUnitKey } from '../../electron/ledger/unit-key'
import { CARATS } from '../../game-core/carats'
import { formatSerial } from '../../game-core/serial'
import { caratsArgv, caratsEnv } from '../integration/cli-process'
import { screenshot } from './support'
import { norm, signIn, textOf, useJourneyApp } from './fixtures/app'
import { SALES_LEDGER, STAFF } from './fixtures/ledger'

/** `carats --db <db> <args>`, as an IT administrator runs it beside the app. */
function carats(db: string, ...args: string[]): Promise<{ code: number | null; text: string }> {
  const child = spawn(process.execPath, caratsArgv(['--db', db, ...args]), {
    cwd: PROJECT_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: caratsEnv(),
  })
  let text = ''
  child.stdout.setEncoding('utf8').on('data', (d: string) => (text += d))
  child.stderr.setEncoding('utf8').on('data', (d: string) => (text += d))
  return new Promise((resolve, reject) => {
    child.once('error', reject)
    child.once('close', (code) => resolve({ code, text }))
  })
}

/** The ledger file edited from outside the app, as someone with access to the disk could. */
function tamper<T>(dbPath: string, fn: (db: Database.Database) => T): T {
  const db = new Database(dbPath, { fileMustExist: true })
  db.pragma('busy_timeout = 10000')
  try {
    return fn(db)
  } finally {
    db.close()
  }
}

async function openLedgerScreen(page: Page): Promise<void> {
  await page.getByRole('menuitem', { name: 'Registre', exact: true }).click()
  await page.getByRole('heading', { name: 'Registre', level: 1 }).waitFor()
  await page.locator('[data-test="ledger-audit"]').waitFor({ timeout: 15_000 })
}

/**
 * The whole screen in one picture: the app scrolls inside its layout, not the page, so the
 * window is made as tall as the screen's content for the shot, then put back.
 */
async function screenshotWhole(page: Page, name: string): Promise<string | null> {
  const size = page.viewportSize() ?? { width: 1400, height: 900 }
  const content = Number(
    await page.evaluate(
      '(document.querySelector(".content .n-layout-scroll-container") ?? document.querySelector(".content"))?.scrollHeight ?? 0',
    ),
  )
  await page.setViewportSize({ width: size.width, height: Math.max(size.height, content + 56) })
  try {
    return await screenshot(page, name)
  } finally {
    await page.setViewportSize(size)
  }
}

const CHECKPOINT = '[data-test="ledger-audit"] [data-test="checkpoint-status"]'

describe('ledger screen: checkpoint, whole check and backup, and a ledger edited from outside', () => {
  const app = useJourneyApp(SALES_LEDGER)

  it('says the checkpoint in French, checks and backs up the ledger, and names what was edited behind the app', async () => {
    const auditor = await app.open()
    const page = auditor.page
    await signIn(page, 'auditor')
    await openLedgerScreen(page)

    // the file, its id and its key
    expect(await textOf(page, '[data-test="ledger-path"]')).toBe(app.dbPath)
    expect(await textOf(page, '[data-test="ledger-id"]')).toMatch(/^\S{8,}$/)
    expect(await textOf(page, '[data-test="ledger-key"]')).toMatch(
      /^Clé présente et conforme\. Empreinte : [0-9a-f]{16}$/,
    )

    // The prepared ledger is copied with its key but without its checkpoint (fixtures/ledger.ts
    // copies the file and its key): the screen says so, and an administrator starts the
    // checkpoint afresh from the command line. (A fixture that copies the checkpoint skips this.)
    const missing = 'Point de contrôle introuvable : rien ne prouve que le journal est complet.'
    const reaches = 'Le journal atteint son point de contrôle.'
    await expect
      .poll(() => textOf(page, CHECKPOINT), { timeout: 15_000 })
      .toMatch(new RegExp(`^(${missing}|${reaches})$`))
    if ((await textOf(page, CHECKPOINT)) === missing) {
      expect(await textOf(page, '[data-test="audit-verdict"]')).toBe(
        'Journal en défaut : prévenez l’administrateur et laissez ce poste en l’état.',
      )
      const reanchor = await carats(
        app.dbPath,
        'audit',
        'reanchor',
        '--reason',
        'copie de test sans son point de contrôle',
      )
      expect(reanchor.code, reanchor.text).toBe(0)
      await page.getByRole('button', { name: 'Actualiser' }).click()
    }
    await expect.poll(() => textOf(page, CHECKPOINT), { timeout: 15_000 }).toBe(reaches)
    expect(await textOf(page, '[data-test="audit-verdict"]')).toBe(
      'Journal sain : sa chaîne est intacte et son point de contrôle concorde.',
    )
    expect(await textOf(page, '[data-test="ledger-audit"] [data-test="checkpoint-head"]')).toMatch(/^[0-9a-f]{64}$/)
    expect(await page.locator('[data-test="check-never"]').innerText()).toBe(
      'Le registre n’a encore jamais été vérifié en entier.',
    )

    // an auditor cannot back up: the button is not offered
    expect(await page.locator('[data-test="backup-run"]').count()).toBe(0)
    expect(await textOf(page, '[data-test="ledger-backups"]')).toContain(
      'Seul un administrateur peut lancer une sauvegarde.',
    )
    expect(await textOf(page, '[data-test="restore-note"]')).toBe(
      'Pour restaurer : fermez l’application, puis carats restore <sauvegarde> --replace',
    )

    // the whole check, prizes re-derived (the default)
    const prizes = page.getByRole('checkbox', { name: 're-dériver les lots de chaque unité vendue' })
    expect(await prizes.getAttribute('aria-checked')).toBe('true')
    await page.getByRole('button', { name: 'Vérifier le registre' }).click()
    const verdict = page.locator('[data-test="check-verdict"]')
    await expect
      .poll(
        () =>
          verdict
            .innerText()
            .then(norm)
            .catch(() => ''),
        { timeout: 60_000 },
      )
      .toBe('Le registre est sain : tout concorde.')
    const facts = await textOf(page, '[data-test="check-facts"]')
    expect(facts).toContain(STAFF.auditor)
    expect(facts).toMatch(/Ventes lues\s+20 000/)
    expect(facts).toMatch(/Unités re-dérivées\s+20 000/)
    expect(facts).toMatch(/Désaccords\s+0/)
    expect(facts).toContain('Le journal atteint son point de contrôle')
    expect(await page.locator('[data-test="problems-table"]').count()).toBe(0)
    await screenshotWhole(page, 'ledger-1-auditor-sound')

    // an administrator backs the ledger up and finds the backup listed, its copy checked
    const admin = await app.open()
    await signIn(admin.page, 'admin')
    await openLedgerScreen(admin.page)
    expect(await textOf(admin.page, '[data-test="backups-empty"]')).toBe('Aucune sauvegarde pour l’instant.')
    const folder = await textOf(admin.page, '[data-test="backup-folder"]')
    expect(folder).toContain('backups')
    await admin.page.getByRole('button', { name: 'Sauvegarder maintenant' }).click()
    const backups = admin.page.locator('[data-test="backups-table"] tbody tr')
    await backups.first().waitFor({ timeout: 60_000 })
    expect(await backups.count()).toBe(1)
    const row = norm(await backups.first().innerText())
    expect(row).toContain(STAFF.admin)
    expect(row).toMatch(/carats-\S+\.db/)
    expect(row).toMatch(/\d+(,\d+)? Mo/)
    expect(row).toContain('Vérifiée : conforme')
    await admin.page
      .locator('.n-message')
      .filter({ hasText: 'Sauvegarde faite et vérifiée.' })
      .waitFor({ timeout: 15_000 })
    await screenshotWhole(admin.page, 'ledger-2-admin-backup')

    // someone changes a winning sale's prize in the file, behind the app
    const edited = tamper(app.dbPath, (db) => {
      const sale = db
        .prepare('SELECT unit_key, prize_cents FROM sales WHERE prize_cents > 0 ORDER BY unit_key LIMIT 1')
        .get() as { unit_key: number; prize_cents: number }
      db.prepare('UPDATE sales SET prize_cents = prize_cents + 100000 WHERE unit_key = ?').run(sale.unit_key)
      return { serial: formatSerial(splitUnitKey(sale.unit_key), CARATS.blockSize), prizeCents: sale.prize_cents }
    })

    // the auditor's next check names the disagreements in French
    await page.getByRole('button', { name: 'Vérifier le registre' }).click()
    await expect
      .poll(
        () =>
          verdict
            .innerText()
            .then(norm)
            .catch(() => ''),
        { timeout: 60_000 },
      )
      .toMatch(/^Le registre n’est pas sain/)
    const table = page.locator('[data-test="problems-table"]')
    await table.waitFor()
    const rows = (await table.locator('tbody tr').allInnerTexts()).map(norm)
    const prizeRow = rows.find((r) => r.includes(`Unité ${edited.serial}`))
    expect(prizeRow, rows.join('\n')).toBeDefined()
    expect(prizeRow).toContain('Lot enregistré différent du lot dû')
    expect(prizeRow).toContain('prize_cents')
    // stored, then recomputed: the edited prize against the one the block's secret gives
    const euros = (cents: number) =>
      norm(
        new Intl.NumberFormat('fr-FR', {
          style: 'currency',
          currency: 'EUR',
          minimumFractionDigits: cents % 100 ? 2 : 0,
          maximumFractionDigits: cents % 100 ? 2 : 0,
        }).format(cents / 100),
      )
    expect(prizeRow).toContain(`${euros(edited.prizeCents + 100_000)} ${euros(edited.prizeCents)}`)
    // the player's and the day's totals no longer add up either
    expect(rows.some((r) => r.startsWith('Totaux d’un joueur') && r.includes('won_cents'))).toBe(true)
    expect(rows.some((r) => r.startsWith('Totaux d’une journée') && r.includes('prizes_cents'))).toBe(true)
    expect(Number((await textOf(page, '[data-test="check-problems"]')).replace(/\D/g, ''))).toBe(rows.length)
    await screenshotWhole(page, 'ledger-3-disagreements')

    // then the last three audit entries are deleted, the log's trigger dropped first
    tamper(app.dbPath, (db) => {
      db.exec('DROP TRIGGER audit_no_delete')
      db.prepare('DELETE FROM audit WHERE seq > (SELECT max(seq) - 3 FROM audit)').run()
    })
    await page.getByRole('button', { name: 'Actualiser' }).click()
    await expect
      .poll(() => textOf(page, CHECKPOINT), { timeout: 15_000 })
      .toBe('Des entrées ont été retirées de la fin du journal.')
    expect(await textOf(page, '[data-test="audit-verdict"]')).toBe(
      'Journal en défaut : prévenez l’administrateur et laissez ce poste en l’état.',
    )
    expect(await textOf(page, '[data-test="ledger-audit"] [data-test="checkpoint-problem"]')).toContain(
      'entries were cut from its end',
    )
    // the log no longer holds the auditor's last check: the screen still shows it, and says so
    expect(norm(await verdict.innerText())).toMatch(/^Le registre n’est pas sain/)
    expect(await textOf(page, '[data-test="check-not-in-log"]')).toContain('n’est plus dans le journal d’audit')
    expect(await textOf(page, '[data-test="ledger-check"]')).toContain('Le journal d’audit est en défaut')
    await screenshotWhole(page, 'ledger-4-cut')

    // the audit screen's check of the chain says the same of the checkpoint
    await page.getByRole('menuitem', { name: 'Journal d’audit' }).click()
    await page.getByRole('heading', { name: 'Journal d’audit', level: 1 }).waitFor()
    await page.getByRole('button', { name: 'Vérifier la chaîne' }).click()
    const audit = page.locator('[data-test="audit-checkpoint"]')
    await audit.waitFor({ timeout: 30_000 })
    expect(norm(await page.locator('[data-test="audit-verification"]').innerText())).toMatch(
      /^La chaîne est intacte : [\d ]+ entrées vérifiées\.$/,
    )
    expect(await textOf(page, '[data-test="audit-checkpoint"] [data-test="checkpoint-status"]')).toBe(
      'Des entrées ont été retirées de la fin du journal.',
    )
    await screenshotWhole(page, 'ledger-5-audit-screen-cut')

    // the same screen in the dark theme, for its contrast
    await openLedgerScreen(page)
    await page.getByRole('button', { name: 'Thème sombre' }).click()
    await expect.poll(() => page.evaluate('document.documentElement.getAttribute("data-theme")')).toBe('dark')
    await screenshotWhole(page, 'ledger-6-dark')

    expect(auditor.problems).toEqual([])
    expect(admin.problems).toEqual([])
  }, 300_000)
})
