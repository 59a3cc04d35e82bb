/**
 * The screens in Chromium against the browser host, on a ledger with a whole block sold
 * (8,016,000 units; prepared once by the simulator and cached, see test/e2e/fixtures/ledger.ts):
 * - first screen: from starting the host (`node electron/host/serve.mjs`, as `npm run serve` and
 *   the `npm start` fallback do) to the sign-in screen usable in an already running Chromium. The
 *   app is built beforehand, as on any start after the first (the first-ever start builds it);
 * - in a signed-in window: from following a link (a hash change, as the menu and the tables do)
 *   to the ticket inspector showing a sold unit, to a replay drawn and playing, and to the
 *   dashboard with its figures and both charts painted. Timed inside the page, one animation
 *   frame at a time.
 */
import { loadavg } from 'node:os'
import type { Browser, Page } from 'playwright-core'
import { launchBrowser, openPage } from '../e2e/support/browser'
import { startHost } from '../e2e/support/host'
import { ensureBuilt } from '../../electron/host/build'
import { copyLedger, FULL_BLOCK_LEDGER, PASSWORD, preparedLedger, STAFF } from '../e2e/fixtures/ledger'
import { CARATS } from '../../game-core/carats'
import { formatSerial } from '../../game-core/serial'
import { fmt, printTable, summarize, type BenchLine } from './stats'

const log = (m: string) => process.stderr.write(`${m}\n`)

/**
 * Sets the address's hash and resolves with the milliseconds until `ready` (a JS expression
 * evaluated in the page) holds, checked every animation frame. A string: this file compiles
 * without the DOM library.
 */
async function timeNavigation(page: Page, hash: string, ready: string, timeoutMs = 30_000): Promise<number> {
  const ms = await page.evaluate(`(async () => {
    const t0 = performance.now()
    location.hash = ${JSON.stringify(hash)}
    for (;;) {
      await new Promise((r) => requestAnimationFrame(r))
      if (${ready}) return performance.now() - t0
      if (performance.now() - t0 > ${timeoutMs}) return -1
    }
  })()`)
  if (typeof ms !== 'number' || ms < 0) throw new Error(`${hash} was not ready within ${timeoutMs} ms (${ready})`)
  return ms
}

/** The page leaves the screen being timed, so the next navigation builds it afresh. */
async function park(page: Page): Promise<void> {
  await timeNavigation(page, '#/emissions', `!!document.querySelector('table tbody tr')`)
}

/** Whether a chart's canvas has some painted pixels (sampled). */
const PAINTED = (label: string) => `(() => {
  const c = document.querySelector('canvas[aria-label="${label}"]')
  if (!c || !c.width || !c.height) return false
  const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data
  let n = 0
  for (let i = 3; i < d.length; i += 64) if (d[i] > 0 && ++n > 50) return true
  return false
})()`

/**
 * A blank tab is opened first (the browser's own start-up is not the app's); then the clock runs
 * from spawning the host to the sign-in form shown with its button.
 */
async function firstScreen(browser: Browser, dbPath: string | undefined, runs: number) {
  const total: number[] = []
  const listening: number[] = []
  for (let r = 0; r < runs; r++) {
    const { page, context } = await openPage(browser, 'about:blank')
    const t0 = performance.now()
    const host = await startHost(dbPath ? { dbPath } : {})
    try {
      const t1 = performance.now()
      await page.goto(host.url, { waitUntil: 'commit' })
      await page.locator('input[name="password"]').waitFor({ state: 'visible' })
      // sign-in, or on a new ledger the first-start admin account
      await page
        .getByRole('button', { name: /^(Se connecter|Créer le compte administrateur)$/ })
        .waitFor({ state: 'visible' })
      const t2 = performance.now()
      listening.push(t1 - t0)
      total.push(t2 - t0)
    } finally {
      await context.close()
      await host.stop()
    }
  }
  return { total: summarize(total), listening: summarize(listening) }
}

export async function benchUi(opts: { runs: number }): Promise<BenchLine[]> {
  await ensureBuilt({ log })
  const t = performance.now()
  const src = await preparedLedger(FULL_BLOCK_LEDGER, log)
  log(`whole-block ledger ready in ${fmt((performance.now() - t) / 1000, 1)} s; copying it…`)
  const copy = copyLedger(src)
  const browser = await launchBrowser()
  const lines: BenchLine[] = []
  const loadAtStart = loadavg()[0]
  try {
    const first = await firstScreen(browser, copy.dbPath, opts.runs)
    lines.push({
      name: `first screen, from starting the host (median of ${opts.runs})`,
      value: `${fmt(first.total.p50 / 1000)} s`,
      target: '< 2 s',
      ok: first.total.p50 < 2000,
    })
    lines.push({ name: '  of which the host until listening', value: `${fmt(first.listening.p50 / 1000)} s` })
    // the same on a new, empty ledger: what the ledger's size adds to the start
    const empty = await firstScreen(browser, undefined, Math.min(opts.runs, 3))
    lines.push({
      name: `  same, empty ledger (median of ${Math.min(opts.runs, 3)})`,
      value: `${fmt(empty.total.p50 / 1000)} s`,
    })
    lines.push({ name: '    of which the host until listening', value: `${fmt(empty.listening.p50 / 1000)} s` })

    const host = await startHost({ dbPath: copy.dbPath })
    try {
      const { page } = await openPage(browser, host.url)
      await page.locator('input[name="name"]').fill(STAFF.admin)
      await page.locator('input[name="password"]').fill(PASSWORD)
      await page.getByRole('button', { name: 'Se connecter' }).click()
      await page.getByRole('heading', { name: 'Émissions', level: 1 }).waitFor({ timeout: 30_000 })
      await park(page)

      const serials = Array.from({ length: opts.runs + 1 }, (_, i) =>
        formatSerial({ emission: 1, block: 1, unit: (i * 1_603_201 + 7_777) % CARATS.blockSize }, CARATS.blockSize),
      )
      const inspector: number[] = []
      const replay: number[] = []
      const dashboard: number[] = []
      // the first round warms the caches (the block's tier table, the screens' code) and is not counted
      for (let r = 0; r <= opts.runs; r++) {
        const s = serials[r]
        const ti = await timeNavigation(
          page,
          `#/tickets/${s}`,
          `(() => { const t = document.querySelector('[data-test="ticket"]'); return !!t && t.innerText.includes(${JSON.stringify(s)}) && t.querySelectorAll('g.gem').length === 24 && !!document.querySelector('[data-test="prize"]') })()`,
        )
        await park(page)
        const tr = await timeNavigation(
          page,
          `#/tickets/${s}/replay`,
          `!!document.querySelector('[data-test="count"]') && document.querySelectorAll('svg.ticket g.gem').length === 24`,
        )
        await park(page)
        const td = await timeNavigation(
          page,
          '#/dashboard',
          `!!document.querySelector('[data-test="dashboard"] .kpi') && ${PAINTED('Ventes par jour')} && ${PAINTED('Épuisement par rang de lot')}`,
        )
        await park(page)
        if (r > 0) {
          inspector.push(ti)
          replay.push(tr)
          dashboard.push(td)
        }
      }
      const sold = await page.evaluate(
        `document.body.innerText.includes('8 016 000 / 8 016 000') || document.body.innerText.includes('8\u202f016\u202f000 / 8\u202f016\u202f000')`,
      )
      if (!sold) log('warning: the emissions list does not show the whole block sold')
      for (const [name, samples] of [
        ['ticket inspector, a sold unit', inspector],
        ['replay of a sold unit', replay],
        ['dashboard, charts painted', dashboard],
      ] as const) {
        const s = summarize(samples)
        lines.push({
          name: `${name} (median of ${opts.runs})`,
          value: `${fmt(s.p50, 0)} ms`,
          target: '< 300 ms',
          ok: s.p50 < 300,
        })
        lines.push({ name: '  slowest run', value: `${fmt(s.max, 0)} ms` })
      }
    } finally {
      await host.stop()
    }
  } finally {
    await browser.close()
    copy.remove()
  }
  // other work on the machine slows the host and Chromium alike: say how busy it was
  lines.push({
    name: 'machine load (1-min average), start → end',
    value: `${fmt(loadAtStart, 1)} → ${fmt(loadavg()[0], 1)}`,
  })
  printTable('UI: browser host + Chromium, one block of 8,016,000 units sold', lines)
  return lines
}
