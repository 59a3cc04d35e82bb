/**
 * Smoke: the built renderer served by the browser host on a fresh ledger opens its first screen
 * (the first-start admin account, which has a password field) in Chromium, with the app's CSP
 * and without console errors or CSP violations.
 */
import { describe, expect, it } from 'vitest'
import { contentSecurityPolicy } from '../../electron/main/security'
import { screenshot, useApp } from './support'

describe('smoke: first screen in Chromium', () => {
  const app = useApp()

  it('reports a fresh ledger as needing its first admin account', async () => {
    const status = await app.call<{ needsSetup: boolean; user: unknown }>('auth:status')
    expect(status).toEqual({ ok: true, result: { needsSetup: true, user: null } })
    expect(await app.call('emissions:list')).toMatchObject({ ok: false, error: { code: 'NOT_SIGNED_IN' } })
  })

  it('opens the first screen, usable, under the CSP, without errors', async () => {
    const { page, problems } = await app.open()
    const response = await page.reload()
    expect(response?.status()).toBe(200)
    expect(await response?.headerValue('content-security-policy')).toBe(contentSecurityPolicy())

    const password = page.locator('input[type="password"]').first()
    await password.waitFor({ state: 'visible', timeout: 15_000 })
    expect(await page.title()).toContain('CARATS')
    await screenshot(page, 'smoke-first-screen')
    expect(problems).toEqual([])
  })
})
