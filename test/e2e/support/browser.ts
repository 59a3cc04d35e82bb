/**
 * Debian's Chromium driven by playwright-core, and the page-level checks every end-to-end test
 * wants: console errors and Content-Security-Policy violations are collected, not ignored.
 */
import { existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core'
import { PROJECT_ROOT } from '../../../electron/host/build'

export const CHROMIUM_PATH = process.env.CARATS_CHROMIUM ?? '/usr/bin/chromium'
export const RESULTS_DIR = join(PROJECT_ROOT, 'test-results')

export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `Chromium is not installed at ${CHROMIUM_PATH}: apt-get install -y chromium (or set CARATS_CHROMIUM)`,
    )
  }
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  })
}

export interface WatchedPage {
  page: Page
  context: BrowserContext
  /** Console errors, page errors and CSP violations seen so far. */
  problems: string[]
}

export async function openPage(browser: Browser, url: string, opts: { locale?: string } = {}): Promise<WatchedPage> {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 }, locale: opts.locale ?? 'fr-FR' })
  const page = await context.newPage()
  const problems: string[] = []
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`)
  })
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`))
  // A string, not a function: this file compiles without the DOM library.
  await page.addInitScript({
    content: `document.addEventListener('securitypolicyviolation', (e) =>
      console.error('CSP violation: ' + e.violatedDirective + ' blocked ' + (e.blockedURI || '(inline)')))`,
  })
  await page.goto(url)
  return { page, context, problems }
}

/**
 * Pictures are for people to look at: `CARATS_SCREENSHOTS=off` (as `.ci/run` sets it, where nobody
 * opens them) skips them; a full-page PNG of a long screen costs a journey about a second.
 */
const SCREENSHOTS = process.env.CARATS_SCREENSHOTS !== 'off'

/** Saves a full-page screenshot as test-results/<name>.png and returns its path (null when skipped). */
export async function screenshot(page: Page, name: string): Promise<string | null> {
  if (!SCREENSHOTS) return null
  mkdirSync(RESULTS_DIR, { recursive: true })
  const file = join(RESULTS_DIR, `${name.replace(/[^\w.-]+/g, '-')}.png`)
  await page.screenshot({ path: file, fullPage: true })
  return file
}

/**
 * Resolves once no finite animation or transition runs in the page (Naive UI fades and slides
 * things in): colours and positions are then the final ones. Endless ones (a spinner) are not
 * waited for. Polled with evaluate: waitForFunction evaluates a string, which the app's CSP refuses.
 */
export async function transitionsEnded(page: Page, timeout = 5_000): Promise<void> {
  const running = `document.getAnimations().filter((a) => a.playState === 'running'
    && a.effect?.getComputedTiming().iterations !== Infinity).length`
  const deadline = Date.now() + timeout
  // a frame first: a transition started by the last change shows up in getAnimations after it
  await page.evaluate('new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))')
  while (Number(await page.evaluate(running)) > 0) {
    if (Date.now() > deadline) throw new Error(`animations still running after ${timeout} ms`)
    await page.waitForTimeout(50)
  }
}
