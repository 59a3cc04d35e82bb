import { describe, expect, it } from 'vitest'
import {
  APP_ENTRY_URL,
  APP_ORIGIN,
  appOrigin,
  contentSecurityPolicy,
  isTrustedSender,
  securityHeaders,
  windowOptions,
  permissionAllowed,
} from './security'

function directives(csp: string): Map<string, string[]> {
  return new Map(
    csp.split(';').map((d) => {
      const [name, ...values] = d.trim().split(/\s+/)
      return [name, values] as const
    }),
  )
}

describe('window options', () => {
  const opts = windowOptions('/app/out/preload/index.js', { icon: '/app/resources/icon.png' })
  const web = opts.webPreferences!

  it('isolates the page from Node and Electron', () => {
    expect(web.contextIsolation).toBe(true)
    expect(web.sandbox).toBe(true)
    expect(web.nodeIntegration).toBe(false)
    expect(web.nodeIntegrationInWorker).toBe(false)
    expect(web.nodeIntegrationInSubFrames).toBe(false)
    expect(web.webviewTag).toBe(false)
  })

  it('keeps web security on and insecure content off', () => {
    expect(web.webSecurity).toBe(true)
    expect(web.allowRunningInsecureContent).toBe(false)
    expect(web.experimentalFeatures).toBe(false)
    expect(web.navigateOnDragDrop).toBe(false)
  })

  it('loads the given preload and icon, and shows the window only when ready', () => {
    expect(web.preload).toBe('/app/out/preload/index.js')
    expect(opts.icon).toBe('/app/resources/icon.png')
    expect(opts.show).toBe(false)
    expect(windowOptions('/p.js').icon).toBeUndefined()
  })
})

describe('sender check', () => {
  it('accepts the app pages of the custom scheme, with any path, query or hash', () => {
    expect(isTrustedSender(APP_ENTRY_URL, APP_ORIGIN)).toBe(true)
    expect(isTrustedSender('app://carats/index.html#/emissions/3', APP_ORIGIN)).toBe(true)
    expect(isTrustedSender('app://carats/', APP_ORIGIN)).toBe(true)
    expect(isTrustedSender('APP://CARATS/index.html', APP_ORIGIN)).toBe(true)
  })

  it('refuses everything that is not the app', () => {
    const refused = [
      'file:///work/main/out/renderer/index.html',
      'file:///etc/passwd',
      'http://evil.example/',
      'https://carats/index.html',
      'app://evil/index.html',
      'app://carats.evil.example/index.html',
      'app://user:pw@carats/index.html',
      'about:blank',
      'about:srcdoc',
      'data:text/html,<script>1</script>',
      'blob:app://carats/1b2c',
      'javascript:alert(1)',
      'chrome://settings',
      'devtools://devtools/bundled/inspector.html',
      'http://localhost:5173/',
      '',
      'not a url',
    ]
    for (const url of refused) expect(isTrustedSender(url, APP_ORIGIN), url).toBe(false)
    expect(isTrustedSender(undefined, APP_ORIGIN)).toBe(false)
    expect(isTrustedSender(null, APP_ORIGIN)).toBe(false)
  })

  it('under the dev server, trusts that exact origin only', () => {
    const dev = appOrigin('http://localhost:5173/')
    expect(dev).toBe('http://localhost:5173')
    expect(isTrustedSender('http://localhost:5173/#/emissions', dev)).toBe(true)
    expect(isTrustedSender('http://localhost:5174/', dev)).toBe(false)
    expect(isTrustedSender('http://127.0.0.1:5173/', dev)).toBe(false)
    expect(isTrustedSender('https://localhost:5173/', dev)).toBe(false)
    expect(isTrustedSender(APP_ENTRY_URL, dev)).toBe(false)
  })

  it('refuses a dev server that is not on loopback over http', () => {
    expect(() => appOrigin('http://evil.example:5173/')).toThrow(/loopback/)
    expect(() => appOrigin('https://localhost:5173/')).toThrow(/loopback/)
    expect(appOrigin()).toBe(APP_ORIGIN)
  })
})

describe('content security policy', () => {
  const csp = directives(contentSecurityPolicy())

  it('loads everything from the app itself by default', () => {
    expect(csp.get('default-src')).toEqual(["'self'"])
  })

  it('allows no inline script and no eval', () => {
    expect(csp.get('script-src')).toEqual(["'self'"])
    expect(contentSecurityPolicy()).not.toMatch(/unsafe-eval|wasm-unsafe-eval|unsafe-hashes/)
    for (const [name, values] of csp) {
      if (name !== 'style-src') expect(values, name).not.toContain("'unsafe-inline'")
    }
  })

  it('allows inline styles only (Naive UI renders its CSS at run time)', () => {
    expect(csp.get('style-src')).toEqual(["'self'", "'unsafe-inline'"])
  })

  it('connects only to the app, and forbids plugins, frames, <base> and form posts', () => {
    expect(csp.get('connect-src')).toEqual(["'self'"])
    expect(csp.get('object-src')).toEqual(["'none'"])
    expect(csp.get('frame-src')).toEqual(["'none'"])
    expect(csp.get('frame-ancestors')).toEqual(["'none'"])
    expect(csp.get('base-uri')).toEqual(["'none'"])
    expect(csp.get('form-action')).toEqual(["'none'"])
  })

  it('has no wildcard source and no remote host', () => {
    expect(contentSecurityPolicy()).not.toMatch(/\*|https?:|ws:/)
  })

  it('under the dev server, adds only its websocket for hot reload', () => {
    const dev = directives(contentSecurityPolicy({ devServerUrl: 'http://localhost:5173/' }))
    expect(dev.get('connect-src')).toEqual(["'self'", 'ws://localhost:5173'])
    expect(dev.get('script-src')).toEqual(["'self'"])
  })

  it('is sent with the other security headers', () => {
    const h = securityHeaders()
    expect(h['Content-Security-Policy']).toBe(contentSecurityPolicy())
    expect(h['X-Content-Type-Options']).toBe('nosniff')
    expect(h['X-Frame-Options']).toBe('DENY')
    expect(h['Referrer-Policy']).toBe('no-referrer')
  })
})

describe('the permissions the window may have', () => {
  it('allows desktop notifications to the app page alone, and nothing else', () => {
    const origin = appOrigin()
    expect(permissionAllowed('notifications', `${origin}/index.html`, origin)).toBe(true)
    expect(permissionAllowed('notifications', 'https://evil.example/', origin)).toBe(false)
    expect(permissionAllowed('notifications', null, origin)).toBe(false)
    for (const p of ['media', 'geolocation', 'clipboard-read', 'openExternal'])
      expect(permissionAllowed(p, `${origin}/index.html`, origin)).toBe(false)
  })
})
