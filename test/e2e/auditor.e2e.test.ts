/**
 * The auditor's journey: inspect an UNSOLD unit, which stays secret until a reason is given;
 * then see it drawn exactly as its block's secret makes it, and find the inspection (who, which
 * unit, why) in the audit log, whose hash chain still holds.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { screenshot } from './support'
import { eur, norm, signIn, useJourneyApp } from './fixtures/app'
import { copyLedger, preparedLedger, SALES_LEDGER, STAFF } from './fixtures/ledger'
import { openBackend } from '../../electron/app/backend'
import { CARATS } from '../../game-core/carats'
import { formatSerial } from '../../game-core/serial'

const UNIT = 4_321_987 // far beyond the 20,000 units sold
const REASON = 'Contrôle trimestriel : échantillon de lots non vendus'

describe('auditor: an unsold unit, inspected with a reason, is in the audit log', () => {
  const app = useJourneyApp(SALES_LEDGER)
  const serial = formatSerial({ emission: 1, block: 1, unit: UNIT }, CARATS.blockSize)
  let expected: { winning: number[]; numbers: number[]; amountsCents: number[]; prizeCents: number }

  // What the unit is, from the block's secret, on a copy of the ledger the host does not see.
  beforeAll(async () => {
    const copy = copyLedger(await preparedLedger(SALES_LEDGER))
    const b = openBackend({ dbPath: copy.dbPath, threads: 1 })
    try {
      expect(b.services.catalog.block(1, 1).units_sold).toBeLessThan(UNIT)
      const t = b.services.catalog.deriver(1, 1).ticket(UNIT)
      expected = {
        winning: [...t.winning],
        numbers: [...t.numbers],
        amountsCents: [...t.amountsCents],
        prizeCents: t.prizeCents,
      }
    } finally {
      b.close()
      copy.remove()
    }
  })

  it('asks for a reason, shows the unit, and logs who looked and why', async () => {
    const { page, problems } = await app.open()
    await signIn(page, 'auditor', 'auditor-1-sign-in')
    const auditor = await app.token('auditor')
    const inspections = async () => {
      const r = await app.call<{
        total: number
        items: { actor: string; action: string; object: string; details: string }[]
      }>('audit:list', { action: 'ticket.inspect-unsold' }, auditor)
      if (!r.ok) throw new Error(r.error.message)
      return r.result
    }
    expect((await inspections()).total).toBe(0)

    await page.getByRole('menuitem', { name: 'Inspecteur de tickets' }).click()
    await page.getByRole('heading', { name: 'Inspecteur de tickets', level: 1 }).waitFor()
    const input = page.locator('[data-test="serial"] input')
    const feedback = page.locator('[data-test="serial-feedback"]')
    const inspect = page.getByRole('button', { name: 'Inspecter', exact: true })

    // a mistyped check digit is an error as you type, never a lookup
    const wrong = `${serial.slice(0, -1)}${(Number(serial.slice(-1)) + 1) % 10}`
    await input.fill(wrong)
    await expect.poll(async () => norm(await feedback.innerText())).toContain('La clé de contrôle ne correspond pas')
    expect(await inspect.isDisabled()).toBe(true)

    await input.fill(serial)
    // well formed: whether the unit may be shown is the lookup's answer
    await expect
      .poll(async () => norm(await feedback.innerText()))
      .toBe('Format correct : émission 0001, bloc 001, unité 4 321 987.')
    await inspect.click()

    // unsold: nothing of the unit is shown until a reason is given
    const unsold = page.locator('[data-test="unsold"]')
    await unsold.getByText('Cette unité n’est pas vendue').first().waitFor({ timeout: 15_000 })
    const go = page.getByRole('button', { name: 'Inspecter (journalisé)' })
    expect(await go.isDisabled()).toBe(true)
    expect(await page.locator('[data-test="ticket"]').count()).toBe(0)
    const reason = page.locator('[data-test="unsold-reason"] textarea')
    await reason.fill('ok')
    expect(await go.isDisabled()).toBe(true) // too short to be a reason
    await screenshot(page, 'auditor-2-reason-asked')
    expect((await inspections()).total).toBe(0)

    await reason.fill(REASON)
    expect(await go.isDisabled()).toBe(false)
    await go.click()

    // the unit, drawn as its block's secret makes it, marked as unsold and shown on request
    const ticket = page.locator('[data-test="ticket"]')
    await ticket.waitFor({ timeout: 15_000 })
    expect(norm(await ticket.innerText())).toContain('Unité non vendue affichée à votre demande')
    expect(norm(await ticket.innerText())).toContain('Non vendue')
    const labels = (sel: string) =>
      ticket.locator(sel).evaluateAll((els) => els.map((e) => e.getAttribute('aria-label') ?? ''))
    expect(await labels('g.diamond')).toEqual(expected.winning.map(String))
    const gems = (await labels('g.gem')).map(norm)
    expect(gems.map((g) => Number(g.split(' ')[0]))).toEqual(expected.numbers)
    expect(gems.map((g) => Number(g.split(' ').slice(1).join('').replace(/\D/g, '')) * 100)).toEqual(
      expected.amountsCents,
    )
    const prize = norm(await page.locator('[data-test="prize"]').innerText())
    expect(prize).toContain(expected.prizeCents > 0 ? eur(expected.prizeCents) : 'Perdant')
    await screenshot(page, 'auditor-3-unsold-unit-shown')

    // exactly one inspection recorded, with the auditor, the unit and the reason
    const log = await inspections()
    expect(log.total).toBe(1)
    expect(log.items[0]).toMatchObject({ actor: STAFF.auditor, object: `unit:${serial}` })
    expect(JSON.parse(log.items[0].details)).toEqual({ reason: REASON })

    // and the auditor finds it in the audit log screen
    await page.getByRole('menuitem', { name: 'Journal d’audit' }).click()
    await page.getByRole('heading', { name: 'Journal d’audit', level: 1 }).waitFor()
    await page.locator('[data-test="filter-object"] input').fill(`unit:${serial}`)
    await page.getByRole('button', { name: 'Filtrer' }).click()
    const rows = page.locator('[data-test="audit-table"] tbody tr')
    // the unfiltered log may show the same entry first: wait for the filtered list, of one row
    await expect.poll(() => rows.count(), { timeout: 15_000 }).toBe(1)
    await expect
      .poll(async () => norm(await rows.first().innerText()), { timeout: 15_000 })
      .toContain('ticket.inspect-unsold')
    const row = norm(await rows.first().innerText())
    // the action named in French, above its code
    expect(row).toContain('Unité invendue inspectée')
    expect(row).toContain(STAFF.auditor)
    expect(row).toContain(`unit:${serial}`)
    expect(row).toContain(REASON)

    // the log's hash chain still holds with the new entry
    await page.getByRole('button', { name: 'Vérifier la chaîne' }).click()
    const verdict = page.locator('[data-test="audit-verification"]')
    await verdict.waitFor({ timeout: 30_000 })
    expect(norm(await verdict.innerText())).toMatch(/^La chaîne est intacte : [\d ]+ entrées vérifiées\.$/)
    await screenshot(page, 'auditor-4-audit-log')

    // the entry in full from its number: its details indented, nothing cut, its whole fingerprint
    const seq = (await rows.first().locator('td').first().innerText()).trim()
    await page.getByRole('button', { name: `Voir l’entrée ${seq} en entier` }).click()
    const entry = page.locator('[data-test="audit-entry"]')
    await entry.getByText(`Entrée ${seq} du journal`).waitFor()
    const details = await entry.locator('[data-test="audit-entry-details"]').innerText()
    expect(details).toContain('\n  "')
    expect(details).toContain(REASON)
    expect(await entry.locator('[data-test="audit-entry-hash"]').innerText()).toMatch(/^[0-9a-f]{64}$/)
    await screenshot(page, 'auditor-5-audit-entry')
    await entry.getByRole('button', { name: 'Fermer' }).click()
    await entry.waitFor({ state: 'hidden' })

    expect(problems).toEqual([])
  }, 120_000)
})
