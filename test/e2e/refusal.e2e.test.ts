/**
 * A support user is refused an operator's actions: the screens do not offer them (menu, buttons,
 * direct addresses), and the api refuses them with FORBIDDEN when called directly with the
 * support user's own session token; the ledger is left as it was. An operator's token does the
 * same call, so the refusal is about the role, not the call.
 */
import { describe, expect, it } from 'vitest'
import { screenshot } from './support'
import { menuEntries, norm, pageToken, signIn, useJourneyApp } from './fixtures/app'
import { SALES_LEDGER } from './fixtures/ledger'
import { CARATS } from '../../game-core/carats'
import { formatSerial } from '../../game-core/serial'

const OPERATOR_BUTTONS = [
  'Nouvelle émission',
  'Importer des ventes',
  'Générer',
  'Vérifier',
  'Ouvrir à la vente',
  'Clore les ventes',
  'Simuler des ventes',
  'Retirer',
]

describe('refusal: support cannot act as an operator', () => {
  const app = useJourneyApp(SALES_LEDGER)

  it('hides the operator’s actions, and the api refuses them with the support token', async () => {
    const { page, problems } = await app.open()
    await signIn(page, 'support')
    await page.getByRole('heading', { name: 'Service client', level: 1 }).waitFor()

    // the menu offers only what support may use
    expect(await menuEntries(page)).toEqual([
      'À faire',
      'Émissions',
      'Inspecteur de tickets',
      'Service client',
      'Réclamations',
      'Gagnants improbables',
      'Personnes liées',
    ])

    // the emissions list: readable, without a single operator action
    await page.getByRole('menuitem', { name: 'Émissions' }).click()
    const row = page.getByRole('row').filter({ hasText: 'E2E-SALES' })
    await row.waitFor({ timeout: 15_000 })
    expect(norm(await row.innerText())).toContain('En vente')
    expect(await row.getByRole('button', { name: 'Certificat' }).count()).toBe(1) // the table is there
    for (const name of OPERATOR_BUTTONS)
      expect(await page.getByRole('button', { name, exact: true }).count(), name).toBe(0)
    await screenshot(page, 'refusal-1-support-emissions')

    // an operator's or admin's screen typed in the address bar sends support back to its own
    for (const path of ['users', 'audit', 'dashboard']) {
      await page.goto(new URL(`#/${path}`, app.host.url).toString())
      await expect.poll(() => page.url(), { timeout: 10_000 }).toMatch(/#\/support$/)
    }

    // an unsold unit: support is told only an auditor may look, and is not asked for a reason
    const unsold = formatSerial({ emission: 1, block: 1, unit: 7_000_000 }, CARATS.blockSize)
    await page.goto(new URL(`#/tickets/${unsold}`, app.host.url).toString())
    const refusedHere = page.locator('[data-test="serial-feedback"][data-state="refused"]')
    await refusedHere.waitFor({ timeout: 15_000 })
    expect(norm(await refusedHere.innerText())).toContain('seul un auditeur peut l’inspecter')
    expect(await page.locator('[data-test="unsold-reason"]').count()).toBe(0)
    expect(await page.locator('[data-test="ticket"]').count()).toBe(0)
    await screenshot(page, 'refusal-2-support-unsold-unit')

    // the api, called directly with the page's own support session
    const support = await pageToken(page)
    const statusOf1 = async (token: string) => {
      const r = await app.call<{ emission: number; status: string }[]>('emissions:list', {}, token)
      if (!r.ok) throw new Error(r.error.message)
      return r.result
    }
    const before = await statusOf1(support)
    expect(before).toMatchObject([{ emission: 1, status: 'open' }])
    const refused: [string, unknown][] = [
      ['emissions:close', { emission: 1 }],
      ['emissions:withdraw', { emission: 1, reason: 'support tries an operator action' }],
      ['emissions:create', { blocks: 1, code: 'SUPPORT-TRY' }],
      ['emissions:generate', { emission: 1 }],
      ['sales:simulate', { emission: 1, sales: 10 }],
      ['users:create', { name: 'mallory', role: 'admin', password: 'mallory-password' }],
      ['tickets:get', { serial: unsold, reason: 'support wants to see it' }],
    ]
    for (const [channel, args] of refused) {
      const r = await app.call(channel, args, support)
      expect(r, channel).toMatchObject({ ok: false, error: { code: 'FORBIDDEN' } })
    }
    // nothing changed
    expect(await statusOf1(support)).toEqual(before)

    // the same call with an operator's token goes through: the refusal is the role's
    const closed = await app.call<{ status: string }>('emissions:close', { emission: 1 }, await app.token('operator'))
    expect(closed).toMatchObject({ ok: true, result: { status: 'closed' } })

    expect(problems).toEqual([])
  }, 120_000)
})
