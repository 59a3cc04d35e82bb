/**
 * Screens stay current, and the to-do counts follow: two people in two
 * browsers on one host, each change made by one shown on the other's screen within 2 s, without a
 * click (the host pushes it: /events).
 *
 *  - an operator opens a real emission's key ceremony; the auditor's to-do list counts it; the
 *    auditor commits to the second share and reveals it: the operator's page, left open, follows
 *    (awaiting the reveal, then complete) and the auditor's count goes back to nothing;
 *  - support and a manager each have a claim's page open: support verifies the winner's identity,
 *    the manager's page says so and the manager's count gains the approval; the manager approves,
 *    support's page says so; support's count loses the claim it verified;
 *  - an administrator changes support's role: support's menus follow at once.
 */
import { createHash, randomBytes } from 'node:crypto'
import type { Page } from 'playwright-core'
import { beforeAll, describe, expect, it } from 'vitest'
import { screenshot } from './support'
import { norm, pageToken, signIn, useJourneyApp } from './fixtures/app'
import { CLAIMS_LEDGER, ledgerFacts, STAFF, type ClaimFacts } from './fixtures/ledger'

const T = 300_000
/** The bound: another's change on screen within 2 s, without a click. */
const LIVE = { timeout: 2000, interval: 50 }

/** The count the menu's to-do entry shows (its title says it in words: "3 tâches à faire"). */
async function todoCount(page: Page): Promise<number> {
  const title = await page.locator('[data-test="todo-menu"]').getAttribute('title')
  return Number(/^\d+/.exec(title ?? '')?.[0] ?? NaN)
}

const text = async (page: Page, selector: string) =>
  norm(
    await page
      .locator(selector)
      .first()
      .innerText()
      .catch(() => ''),
  )
const claimStatus = (page: Page) => page.locator('[data-test="claim-status"]').getAttribute('data-status')

async function openScreen(page: Page, hash: string, ready: string): Promise<void> {
  await page.evaluate(`location.hash = ${JSON.stringify(hash)}`)
  await page.locator(ready).first().waitFor({ timeout: 15_000 })
}

describe.sequential('two people, two screens, one ledger', () => {
  const app = useJourneyApp(CLAIMS_LEDGER)
  let claims: ClaimFacts[] = []

  beforeAll(() => {
    const facts = ledgerFacts(app.dbPath)
    try {
      claims = facts.claims()
    } finally {
      facts.close()
    }
    expect(claims.length).toBeGreaterThan(10)
  })

  it(
    'the operator sees the auditor’s share arrive; the auditor’s to-do count follows',
    async () => {
      const operator = (await app.open()).page
      const auditor = (await app.open()).page
      await signIn(operator, 'operator')
      await signIn(auditor, 'auditor')
      const opToken = await pageToken(operator)
      const created = await app.call<{ emission: number }>('emissions:create', { blocks: 1, code: 'E2E-LIVE' }, opToken)
      if (!created.ok) throw new Error(created.error.message)
      const e = created.result.emission
      await openScreen(operator, `#/emissions/${e}`, '[data-test="key-ceremony"]')
      expect(await todoCount(auditor)).toBe(0)

      // the operator opens the ceremony on the screen: the auditor's count follows, no click
      await operator.locator('[data-test="ceremony-start"]').click()
      await expect.poll(() => text(operator, '[data-test="ceremony-state"]'), LIVE).toBe('En attente de l’engagement')
      await expect.poll(() => todoCount(auditor), LIVE).toBe(1)
      await auditor.getByRole('menuitem', { name: /À faire/ }).click()
      await auditor.locator('[data-kind="ceremony-commit"]').waitFor({ timeout: 15_000 })
      expect(await text(auditor, '[data-kind="ceremony-commit"]')).toContain(`Émission ${e}`)
      await screenshot(auditor, 'live-1-auditor-todo')

      // the auditor commits (their own session's call): the operator's open page follows
      const share = randomBytes(32)
      const commitment = createHash('sha256').update(share).digest('hex')
      const auToken = await pageToken(auditor)
      const committed = await app.call('ceremony:commit', { emission: e, commitment }, auToken)
      expect(committed.ok).toBe(true)
      await expect.poll(() => text(operator, '[data-test="ceremony-state"]'), LIVE).toBe('En attente de la révélation')
      await expect.poll(() => auditor.locator('[data-kind="ceremony-reveal"]').count(), LIVE).toBe(1)
      await screenshot(operator, 'live-2-operator-awaiting-reveal')

      const revealed = await app.call('ceremony:reveal', { emission: e, share: share.toString('hex') }, auToken)
      expect(revealed.ok).toBe(true)
      await expect.poll(() => text(operator, '[data-test="ceremony-state"]'), LIVE).toBe('Complète')
      await expect.poll(() => todoCount(auditor), LIVE).toBe(0)
      await auditor.locator('[data-test="todo-none"]').waitFor({ timeout: 2000 })
      await screenshot(operator, 'live-3-operator-complete')
      await screenshot(auditor, 'live-4-auditor-nothing-to-do')
    },
    T,
  )

  it(
    'support and a manager each see the other’s step on the claim; the counts follow',
    async () => {
      const support = (await app.open()).page
      const manager = (await app.open()).page
      await signIn(support, 'support')
      await signIn(manager, 'manager')
      const claim = claims.find((c) => c.status === 'pending')!
      await expect.poll(() => todoCount(support), { timeout: 15_000 }).toBe(claims.length)
      expect(await todoCount(manager)).toBe(0)
      await openScreen(support, `#/claims/${claim.serial}`, '[data-test="claim-status"]')
      await openScreen(manager, `#/claims/${claim.serial}`, '[data-test="claim-status"]')
      expect(await claimStatus(manager)).toBe('pending')
      // both pages settled: the ticket beside the claim read (its first reading derives the block's outcomes)
      for (const page of [support, manager])
        await expect.poll(() => text(page, '[data-test="claim-ticket"]'), { timeout: 30_000 }).toContain(claim.serial)

      // support verifies the winner's identity (their session's call; the form is claims.e2e's):
      // both open pages follow, without a click
      const identity = { document: 'passport', reference: '18AB12345', name: 'Jeanne Martin', birthDate: '1980-05-14' }
      const verified = await app.call('claims:verify', { serial: claim.serial, identity }, await pageToken(support))
      expect(verified.ok).toBe(true)
      await expect.poll(() => claimStatus(support), LIVE).toBe('verified')
      // the manager's page and count follow, without a click
      await expect.poll(() => claimStatus(manager), LIVE).toBe('verified')
      await expect.poll(() => todoCount(manager), LIVE).toBe(1)
      await expect.poll(() => todoCount(support), LIVE).toBe(claims.length - 1)
      await screenshot(manager, 'live-5-manager-sees-verified')

      // the manager approves (their session's call): support's open page follows
      const approved = await app.call('claims:approve', { serial: claim.serial }, await pageToken(manager))
      expect(approved.ok).toBe(true)
      await expect.poll(() => claimStatus(support), LIVE).toBe('approved')
      // approved: now the manager's to pay
      await expect.poll(() => todoCount(manager), LIVE).toBe(1)
      await manager.getByRole('menuitem', { name: /À faire/ }).click()
      await manager.locator('[data-kind="claim-pay"]').waitFor({ timeout: 15_000 })
      expect(await text(manager, '[data-kind="claim-pay"]')).toContain(claim.serial)
      await screenshot(support, 'live-6-support-sees-approved')
      await screenshot(manager, 'live-7-manager-todo')
    },
    T,
  )

  it(
    'an administrator changes support’s role: support’s menus follow at once',
    async () => {
      const support = (await app.open()).page
      await signIn(support, 'support')
      await support.getByRole('menuitem', { name: 'Réclamations' }).waitFor()
      const admin = await app.token('admin')
      const users = await app.call<{ id: number; name: string }[]>('users:list', {}, admin)
      if (!users.ok) throw new Error(users.error.message)
      const id = users.result.find((u) => u.name === STAFF.support)!.id
      const changed = await app.call('users:update', { userId: id, role: 'operator' }, admin)
      expect(changed.ok).toBe(true)
      await expect.poll(() => support.getByRole('menuitem', { name: 'Réclamations' }).count(), LIVE).toBe(0)
      expect(norm(await support.locator('.n-layout-header').innerText())).toContain('Opérateur')
      // the screen support had open is not an operator's: the role's home instead; its to-do is an operator's
      await support.getByRole('heading', { name: 'Émissions', level: 1 }).waitFor({ timeout: 2000 })
      await expect.poll(() => todoCount(support), LIVE).toBe(0)
      await screenshot(support, 'live-8-role-changed')
    },
    T,
  )
})
