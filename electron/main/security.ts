/**
 * The shell's security settings as plain data and pure functions, so that they are unit-tested
 * under Node without Electron. index.ts only wires them in.
 *
 * The app is served to the window from a custom scheme, app://carats/, rather than file://
 * (Electron security checklist, item 18): a file:// page has an opaque origin, may read any
 * other file:// URL, and gets no response headers, so neither a CSP header nor an origin-based
 * sender check would hold. The custom scheme is a standard, secure origin of its own.
 */
import type { BrowserWindowConstructorOptions } from 'electron'

export const APP_SCHEME = 'app'
export const APP_HOST = 'carats'
export const APP_ORIGIN = `${APP_SCHEME}://${APP_HOST}`
/** The page the window opens in a built app. */
export const APP_ENTRY_URL = `${APP_ORIGIN}/index.html`

export function windowOptions(preloadPath: string, extras: { icon?: string } = {}): BrowserWindowConstructorOptions {
  return {
    width: 1400,
    height: 900,
    minWidth: 1024,
    minHeight: 700,
    show: false,
    title: '500 000 CARATS · Back-office',
    backgroundColor: '#ffffff',
    ...(extras.icon ? { icon: extras.icon } : {}),
    webPreferences: {
      preload: preloadPath,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      experimentalFeatures: false,
      navigateOnDragDrop: false,
      spellcheck: false,
      safeDialogs: true,
    },
  }
}

/**
 * The app's origin for a page URL: the custom scheme in a built app, the dev server's origin
 * under `electron-vite dev`. Returns null for anything else.
 */
export function appOrigin(devServerUrl?: string): string {
  if (devServerUrl) {
    const u = new URL(devServerUrl)
    if (u.protocol !== 'http:' || !isLoopbackHost(u.hostname)) {
      throw new Error(`the dev server must be on loopback over http, not ${devServerUrl}`)
    }
    return u.origin
  }
  return APP_ORIGIN
}

function isLoopbackHost(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '127.0.0.1' || hostname === '[::1]'
}

/**
 * Whether an IPC message may be dispatched: its frame must show a page of the app's own origin
 * (`appOrigin`). Everything else is refused: other schemes, other hosts or ports, file:// pages,
 * about:blank, data: and blob: documents, and unparsable URLs.
 */
export function isTrustedSender(frameUrl: string | undefined | null, trustedOrigin: string): boolean {
  if (!frameUrl) return false
  let url: URL
  try {
    url = new URL(frameUrl)
  } catch {
    return false
  }
  // Non-special schemes (ours included) report an opaque origin "null" in some runtimes: compare
  // scheme and host explicitly instead of relying on URL.origin.
  const expected = new URL(trustedOrigin)
  if (url.protocol !== expected.protocol) return false
  if (url.username || url.password) return false
  // Chromium lower-cases the host of a standard scheme; Node keeps it as written.
  return url.host.toLowerCase() === expected.host.toLowerCase()
}

/**
 * The Content-Security-Policy of every app page, in Electron and in the browser host.
 *
 * - scripts only from the app itself: no inline script, no eval (Vue's runtime build and
 *   vue-i18n's JIT message compiler need neither);
 * - style-src allows 'unsafe-inline' because Naive UI renders its styles at run time
 *   (css-render inserts <style> elements) and offers no nonce hook; inline styles cannot run
 *   code, and with scripts locked down they cannot be injected by content either;
 * - images from the app and data:/blob: URLs (chart exports, icons in CSS);
 * - connections only to the app itself (the browser host's /api), plus the dev server's
 *   websocket for hot reload under `electron-vite dev`;
 * - no plugins, no framing, no <base>, no form posts anywhere.
 */
export function contentSecurityPolicy(opts: { devServerUrl?: string } = {}): string {
  const connect = ["'self'"]
  if (opts.devServerUrl) {
    const u = new URL(opts.devServerUrl)
    connect.push(`ws://${u.host}`)
  }
  const directives: Record<string, string[]> = {
    'default-src': ["'self'"],
    'script-src': ["'self'"],
    'style-src': ["'self'", "'unsafe-inline'"],
    'img-src': ["'self'", 'data:', 'blob:'],
    'font-src': ["'self'", 'data:'],
    'connect-src': connect,
    'worker-src': ["'self'"],
    'object-src': ["'none'"],
    'frame-src': ["'none'"],
    'frame-ancestors': ["'none'"],
    'base-uri': ["'none'"],
    'form-action': ["'none'"],
  }
  return Object.entries(directives)
    .map(([k, v]) => `${k} ${v.join(' ')}`)
    .join('; ')
}

/** Headers sent with every app page, by the custom scheme handler and by the browser host. */
export function securityHeaders(opts: { devServerUrl?: string } = {}): Record<string, string> {
  return {
    'Content-Security-Policy': contentSecurityPolicy(opts),
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Cross-Origin-Resource-Policy': 'same-origin',
    'X-Frame-Options': 'DENY',
  }
}

/**
 * The one permission the window may have: desktop notifications, for the app's own page (the
 * to-do list's "tell me when a task ends"); every other permission, and any other page,
 * is refused.
 */
export function permissionAllowed(permission: string, url: string | undefined | null, trustedOrigin: string): boolean {
  return permission === 'notifications' && isTrustedSender(url, trustedOrigin)
}
