/**
 * The unit's proof, as support downloads it from the ticket inspector and an outsider checks it:
 * the file saved is a proof of that unit only, the outsiders' verifier (tools/carats-verify.mjs,
 * nothing but Node) accepts it and prints the commitment printed on the emission's certificate,
 * and a proof whose prize was changed is refused.
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { screenshot } from './support'
import { pageToken, signIn, useJourneyApp } from './fixtures/app'
import { ledgerFacts, SALES_LEDGER, type UnitFacts } from './fixtures/ledger'

const VERIFIER = resolve(__dirname, '../../tools/carats-verify.mjs')

describe('the proof of a unit, downloaded from the ticket inspector', () => {
  const app = useJourneyApp(SALES_LEDGER)
  const dir = mkdtempSync(join(tmpdir(), 'carats-e2e-proof-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  let won: UnitFacts

  beforeAll(() => {
    const facts = ledgerFacts(app.dbPath)
    try {
      won = facts.playerWithWinningLastUnit().lastUnits.find((u) => u.prizeCents > 0)!
    } finally {
      facts.close()
    }
  })

  it('saves a file that the outsiders’ verifier accepts, with the certificate’s commitment', async () => {
    const { page, problems } = await app.open()
    await signIn(page, 'support')
    await page.getByRole('menuitem', { name: 'Inspecteur de tickets' }).click()
    await page.locator('[data-test="serial"] input').fill(won.serial)
    await page.locator('[data-test="serial"] input').press('Enter')
    await page.locator(`[data-test="ticket"][data-serial="${won.serial}"]`).waitFor({ timeout: 15_000 })
    await screenshot(page, 'proof-1-ticket')

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.locator('[data-test="proof-download"]').click(),
    ])
    expect(download.suggestedFilename()).toBe(`proof-${won.serial}.json`)
    const file = join(dir, download.suggestedFilename())
    await download.saveAs(file)
    const proof = JSON.parse(readFileSync(file, 'utf8')) as { serial: string; content: { amountsCents: number[] } }
    expect(proof.serial).toBe(won.serial)

    const out = execFileSync(process.execPath, [VERIFIER, 'proof', file], { encoding: 'utf8' })
    const certificate = await app.call<{ blocks: { block: number; commitment: string }[] }>(
      'emissions:certificate',
      { emission: 1 },
      await pageToken(page),
    )
    if (!certificate.ok) throw new Error(certificate.error.message)
    const commitment = certificate.result.blocks.find((b) => b.block === 1)!.commitment
    expect(out).toContain(`${won.serial}: the proof holds`)
    expect(out).toContain(commitment)

    // the same file with a larger prize: the record no longer matches, the verifier says so
    const forged = join(dir, 'forged.json')
    const text = readFileSync(file, 'utf8')
    const doctored = JSON.parse(text) as { content: { amountsCents: number[] } }
    doctored.content.amountsCents = doctored.content.amountsCents.map((a) => a * 100)
    writeFileSync(forged, JSON.stringify(doctored))
    const refused = spawnSync(process.execPath, [VERIFIER, 'proof', forged], { encoding: 'utf8' })
    expect(refused.status).toBe(1)
    expect(refused.stdout).toContain('the proof FAILS')
    expect(problems).toEqual([])
  }, 90_000)
})
