/**
 * Shared end-to-end helpers. A test file usually does:
 *
 *   const app = useApp()            // build if stale, host on a temp ledger, Chromium
 *   it('...', async () => { const { page } = await app.open(); ... })
 */
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll } from 'vitest'
import { launchBrowser, openPage, type WatchedPage } from './browser'
import { callApi, startHost, type RunningHost, type StartHostOptions } from './host'

export { ensureBuilt } from '../../../electron/host/build'
export {
  CHROMIUM_PATH,
  launchBrowser,
  openPage,
  RESULTS_DIR,
  screenshot,
  transitionsEnded,
  type WatchedPage,
} from './browser'
export { callApi, startHost, type RunningHost, type StartHostOptions } from './host'

export interface AppHandle {
  readonly host: RunningHost
  readonly browser: Browser
  /** A new browser context (fresh storage) on the host's address, or on `path` under it. */
  open(path?: string): Promise<WatchedPage>
  /** Calls the api as the renderer's http transport does. */
  call<T = unknown>(
    channel: string,
    args?: unknown,
    token?: string | null,
  ): Promise<{ ok: true; result: T } | { ok: false; error: { code: string; message: string } }>
}

/** Registers beforeAll/afterAll that start a host on a temp ledger and Chromium, and close both. */
export function useApp(opts: StartHostOptions = {}): AppHandle {
  let host: RunningHost | undefined
  let browser: Browser | undefined
  const contexts: WatchedPage[] = []

  beforeAll(async () => {
    host = await startHost(opts)
    browser = await launchBrowser()
  }, 300_000)

  afterAll(async () => {
    for (const c of contexts) await c.context.close().catch(() => {})
    await browser?.close()
    await host?.stop()
  })

  return {
    get host() {
      if (!host) throw new Error('the host is not started yet (use it inside a test)')
      return host
    },
    get browser() {
      if (!browser) throw new Error('the browser is not started yet (use it inside a test)')
      return browser
    },
    async open(path = '') {
      const watched = await openPage(this.browser, new URL(path, this.host.url).toString())
      contexts.push(watched)
      return watched
    },
    call(channel, args = {}, token = null) {
      return callApi(this.host.url, channel, args, token)
    },
  }
}
