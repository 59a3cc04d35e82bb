/**
 * Lists that can grow, as staff use them: support finds accounts ignoring case, with their count
 * and pages, and is never handed one of two accounts that differ only by case; the emissions,
 * users and audit lists sort, filter and say how many rows they hold; columns hidden by a user
 * stay hidden at the next sign-in, and only for that user. Expected figures come from the ledger
 * file read with SQL, not from the api the screens use.
 */
import Database from 'better-sqlite3'
import type { Page } from 'playwright-core'
import { beforeAll, describe, expect, it } from 'vitest'
import { feedLine } from '../../electron/services/import'
import { formatSerial } from '../../game-core/serial'
import { samplePlay } from '../integration/ledger-fixture'
import { screenshot } from './support'
import { int, norm, signIn, useJourneyApp } from './fixtures/app'
import { SALES_LEDGER } from './fixtures/ledger'

/** 45 accounts "alice-000"… (alice-000 with 4 units), and two that differ only by case. */
const ALICES = 45
/** Pages load slowly on a machine shared by many test runs. */
const WAIT = { timeout: 15_000 }

describe('tables: search, sort, filter, count and column settings', () => {
  const app = useJourneyApp(SALES_LEDGER)
  const sql = <T>(query: string, ...params: unknown[]): T => {
    const db = new Database(app.dbPath, { readonly: true, fileMustExist: true })
    try {
      return db
        .prepare(query)
        .pluck()
        .get(...params) as T
    } finally {
      db.close()
    }
  }

  beforeAll(async () => {
    const operator = await app.token('operator')
    // sold through the sales feed, after the units already sold
    let unit = sql<number>('SELECT units_sold FROM blocks WHERE emission = 1 AND block = 1')
    const players = [
      ...Array.from({ length: ALICES }, (_, i) => `alice-${String(i).padStart(3, '0')}`),
      'alice-000',
      'alice-000',
      'alice-000',
      'Twin-A',
      'Twin-A',
      'twin-a',
    ]
    const at = Date.now() - 50_000
    const lines = players.map((player, i) =>
      feedLine({
        saleId: `T-${unit}`,
        serial: formatSerial({ emission: 1, block: 1, unit: unit++ }),
        player,
        soldAt: at + i * 500,
        stakeCents: 500,
        play: samplePlay(i),
      }),
    )
    const imported = await app.call(
      'sales:import',
      { content: lines.join('\n') + '\n', fileName: 'tables.jsonl' },
      operator,
    )
    if (!imported.ok) throw new Error(`the feed was refused: ${imported.error.message}`)
    // more emissions to sort and filter
    for (const code of ['TAB-B', 'TAB-C', 'TAB-D']) {
      const r = await app.call('emissions:create', { blocks: 1, code }, operator)
      if (!r.ok) throw new Error(r.error.message)
    }
  }, 120_000)

  const countText = (page: Page, within = 'body') =>
    page.locator(`${within} [data-test="table-count"]`).first().innerText().then(norm)
  const firstCells = (page: Page, table: string, column: number) =>
    page
      .locator(`[data-test="${table}"] tbody tr`)
      .evaluateAll(
        (rows, c) => rows.map((r) => (r.children[c] as { innerText?: string } | undefined)?.innerText?.trim() ?? ''),
        column,
      )

  it('support searches in upper case, sees how many accounts match, and pages through them', async () => {
    const { page, problems } = await app.open()
    await signIn(page, 'support')
    const expected = sql<number>("SELECT count(*) FROM players WHERE lower(name) LIKE 'alice-%'")
    expect(expected).toBe(ALICES)
    await page.locator('[data-test="player-query"] input').fill('ALICE-')
    await page.getByRole('button', { name: 'Rechercher' }).click()
    const count = page.locator('[data-test="player-count"]')
    await expect.poll(async () => norm(await count.innerText().catch(() => '')), WAIT).toBe(`${int(expected)} comptes`)
    const rows = page.locator('[data-test="player-results"] tbody tr')
    await expect.poll(() => rows.count()).toBe(20)
    await screenshot(page, 'tables-1-support-count')
    // the last page holds the rest, in the order of the ledger's index
    await page.locator('[data-test="player-results"] .n-pagination-item').filter({ hasText: /^3$/ }).click()
    await expect.poll(() => rows.count()).toBe(expected - 40)
    const firstOfLast = sql<string>(
      "SELECT name FROM players WHERE lower(name) LIKE 'alice-%' ORDER BY name COLLATE NOCASE, name LIMIT 1 OFFSET 40",
    )
    expect(norm(await rows.first().innerText())).toContain(firstOfLast)

    // a player of 4 units: the last one, then "the 3 before it"
    await page.locator('[data-test="player-query"] input').fill('ALICE-000')
    await page.getByRole('button', { name: 'Rechercher' }).click()
    await page.locator('[data-test="player"]').getByRole('heading', { name: 'alice-000' }).waitFor({ timeout: 15_000 })
    expect(sql<number>("SELECT units FROM players WHERE name = 'alice-000'")).toBe(4)
    await expect
      .poll(async () =>
        norm(
          await page
            .locator('[data-test="previous"] .n-card-header')
            .innerText()
            .catch(() => ''),
        ),
      )
      .toBe('Les 3 unités précédentes')
    expect(await page.locator('[data-test="previous"] tbody tr').count()).toBe(3)
    expect(problems).toEqual([])
  }, 120_000)

  it('never opens one of two accounts that differ only by case: support picks', async () => {
    const { page, problems } = await app.open()
    await signIn(page, 'support')
    expect(sql<number>("SELECT count(*) FROM players WHERE lower(name) = 'twin-a'")).toBe(2)
    // a link naming neither exactly
    await page.goto(new URL('#/support?player=TWIN-A', app.host.url).toString())
    const notice = page.locator('[data-test="player-ambiguous"]')
    await notice.waitFor({ timeout: 15_000 })
    expect(norm(await notice.innerText())).toBe(
      '2 comptes ne diffèrent de « TWIN-A » que par les majuscules et minuscules : choisissez le bon.',
    )
    expect(await page.locator('[data-test="player"]').count()).toBe(0)
    const rows = page.locator('[data-test="player-results"] tbody tr')
    await expect.poll(() => rows.count()).toBe(2)
    await screenshot(page, 'tables-2-support-ambiguous')
    // a row's text runs its cells together: the id is at its start
    await rows.filter({ hasText: /^twin-a/ }).click()
    const card = page.locator('[data-test="player"]')
    await card.getByRole('heading', { name: 'twin-a' }).waitFor({ timeout: 15_000 })
    // the other account is named, and one click away
    const other = page.locator('[data-test="player-other-case"]')
    expect(norm(await other.innerText())).toContain('Twin-A')
    expect(await page.locator('[data-test="previous"]').count()).toBe(0) // a single unit: nothing before it
    await other.getByRole('button', { name: 'Twin-A' }).click()
    await card.getByRole('heading', { name: 'Twin-A' }).waitFor({ timeout: 15_000 })
    await expect
      .poll(async () =>
        norm(
          await page
            .locator('[data-test="previous"] .n-card-header')
            .innerText()
            .catch(() => ''),
        ),
      )
      .toBe('L’unité précédente')
    expect(problems.filter((p) => !/status of 409/.test(p))).toEqual([])
  }, 120_000)

  /** Opens a column's filter menu in `table`, ticks `option`, confirms. */
  async function filterColumn(page: Page, table: string, column: string, option: string) {
    const header = page.locator(`[data-test="${table}"] thead th`).filter({ hasText: column })
    await header.locator('.n-data-table-filter').click()
    const menu = page.locator('.n-data-table-filter-menu')
    await menu.getByText(option, { exact: true }).click()
    await menu.locator('.n-button--primary-type').click()
  }

  it('sorts and filters the emissions and the users, and says how many rows are shown', async () => {
    const { page, problems } = await app.open()
    await signIn(page, 'admin')
    await page.goto(new URL('#/emissions', app.host.url).toString())
    const emissions = sql<number>('SELECT count(*) FROM emissions')
    expect(emissions).toBe(4)
    await expect.poll(() => countText(page), WAIT).toBe(`${emissions} émissions`)
    // a column's header sorts it, the highest first, then the lowest
    const header = page.locator('[data-test="emissions-table"] thead th').filter({ hasText: 'Émission' }).first()
    await header.click()
    await expect
      .poll(async () => (await firstCells(page, 'emissions-table', 0))[0], WAIT)
      .toContain(String(sql<number>('SELECT max(emission) FROM emissions')).padStart(4, '0'))
    await header.click()
    await expect
      .poll(async () => (await firstCells(page, 'emissions-table', 0))[0], WAIT)
      .toContain(String(sql<number>('SELECT min(emission) FROM emissions')).padStart(4, '0'))
    const open = sql<number>("SELECT count(*) FROM emissions WHERE status = 'open'")
    await filterColumn(page, 'emissions-table', 'État', 'En vente')
    await expect.poll(() => countText(page), WAIT).toBe(`${open} sur ${emissions} émissions`)
    expect(await page.locator('[data-test="emissions-table"] tbody tr').count()).toBe(open)
    await screenshot(page, 'tables-3-emissions-filtered')

    await page.goto(new URL('#/users', app.host.url).toString())
    const users = sql<number>('SELECT count(*) FROM users')
    await expect.poll(() => countText(page), WAIT).toBe(`${users} utilisateurs`)
    await page.locator('[data-test="table-search"] input').fill('A')
    const withA = sql<number>("SELECT count(*) FROM users WHERE lower(name) LIKE '%a%'")
    await expect.poll(() => countText(page), WAIT).toBe(`${withA} sur ${users} utilisateurs`)
    await page.locator('[data-test="table-search"] input').fill('')
    await filterColumn(page, 'users-table', 'Rôle', 'Service client')
    const support = sql<number>("SELECT count(*) FROM users WHERE role = 'support'")
    await expect
      .poll(() => countText(page), WAIT)
      .toBe(`${support} sur ${users} ${support === 1 && users === 1 ? 'utilisateur' : 'utilisateurs'}`)
    await screenshot(page, 'tables-4-users-filtered')
    expect(problems).toEqual([])
  }, 120_000)

  it('sorts and filters the audit log on the server, with the count of the matches', async () => {
    const { page, problems } = await app.open()
    await signIn(page, 'auditor')
    await page.goto(new URL('#/audit', app.host.url).toString())
    await expect
      .poll(async () => countText(page), WAIT)
      .toBe(`${int(sql<number>('SELECT count(*) FROM audit'))} entrées`)
    // an actor typed in upper case: the entries of that account, whatever the case
    await page.locator('[data-test="filter-actor"] input').fill('SOPH')
    await page.locator('[data-test="filter-apply"]').click()
    const matches = sql<number>("SELECT count(*) FROM audit WHERE lower(actor) LIKE 'soph%'")
    expect(matches).toBeGreaterThan(0)
    await expect
      .poll(() => countText(page), WAIT)
      .toBe(`${int(matches)} ${matches === 1 ? 'entrée correspond' : 'entrées correspondent'} aux filtres`)
    // oldest first by a click on N° (the newest were first), then by action, the last in order first
    await page.locator('[data-test="filter-actor"] input').fill('')
    await page.locator('[data-test="filter-apply"]').click()
    const seqHeader = page.locator('[data-test="audit-table"] thead th').filter({ hasText: 'N°' })
    await seqHeader.click()
    await expect.poll(async () => (await firstCells(page, 'audit-table', 0))[0], WAIT).toBe('1')
    await page.locator('[data-test="audit-table"] thead th').filter({ hasText: 'Action' }).click()
    const firstAction = sql<string>('SELECT action FROM audit ORDER BY action COLLATE NOCASE DESC, seq DESC LIMIT 1')
    await expect.poll(async () => (await firstCells(page, 'audit-table', 3))[0], WAIT).toContain(firstAction)
    await screenshot(page, 'tables-5-audit-sorted')
    expect(problems).toEqual([])
  }, 120_000)

  async function signOut(page: Page) {
    await page.locator('.n-layout-header button.user').click()
    await page.getByText('Se déconnecter').click()
    await page.getByRole('heading', { name: 'Connexion' }).first().waitFor()
  }
  const headers = (page: Page, table: string) =>
    page
      .locator(`[data-test="${table}"] thead th`)
      .allInnerTexts()
      .then((t) => t.map(norm))

  it('keeps the columns a user hid at the next sign-in, for that user only', async () => {
    const { page, problems } = await app.open()
    await signIn(page, 'admin')
    await page.goto(new URL('#/emissions', app.host.url).toString())
    await expect.poll(() => headers(page, 'emissions-table')).toContain('Début des ventes')
    await page.locator('[data-test="table-columns"]').click()
    await page.locator('[data-test="column-startsOn"]').click()
    await expect.poll(() => headers(page, 'emissions-table')).not.toContain('Début des ventes')
    await screenshot(page, 'tables-6-column-hidden')
    await page.keyboard.press('Escape')

    await signOut(page)
    await signIn(page, 'operator')
    await page.goto(new URL('#/emissions', app.host.url).toString())
    await expect.poll(() => headers(page, 'emissions-table')).toContain('Début des ventes')

    await signOut(page)
    await signIn(page, 'admin')
    await page.goto(new URL('#/emissions', app.host.url).toString())
    await page.locator('[data-test="emissions-table"] thead th').first().waitFor()
    expect(await headers(page, 'emissions-table')).not.toContain('Début des ventes')
    // and back to the defaults
    await page.locator('[data-test="table-columns"]').click()
    await page.locator('[data-test="table-columns-reset"]').click()
    await expect.poll(() => headers(page, 'emissions-table')).toContain('Début des ventes')
    expect(problems).toEqual([])
  }, 120_000)
})
