/**
 * The Electron main process: wiring only. The security settings live in security.ts (tested under
 * Node); the backend (ledger, services, dispatcher) in ../app/backend.
 */
import { app, BrowserWindow, dialog, ipcMain, protocol, session, type WebContents } from 'electron'
import { mkdirSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { resolveStatic } from '../host/static'
import { INVOKE_CHANNEL } from '../preload/bridge'
import { HOST_READ_THREADS, openBackend } from '../app/backend'
import { createInvokeHandler } from './ipc'
import { createChangeRelay } from './changes'
import { WATCH_CHANNEL } from '../contract/changes'
import { checkElectronBinding } from './native'
import { displayLocation, isPostgresUrl } from '../ledger/location'
import { resolveLedger, userDataDir, type LedgerChoice } from '../ledger/paths'
import {
  APP_ENTRY_URL,
  APP_HOST,
  APP_SCHEME,
  appOrigin,
  contentSecurityPolicy,
  isTrustedSender,
  permissionAllowed,
  securityHeaders,
  windowOptions,
} from './security'
import { limitedLog } from '../services/log-limit'

type Backend = ReturnType<typeof openBackend>

// electron-vite dev serves the renderer from a loopback dev server; a built app uses app://carats/.
const devServerUrl = !app.isPackaged ? process.env.ELECTRON_RENDERER_URL : undefined
const trustedOrigin = appOrigin(devServerUrl)
const rendererDir = join(__dirname, '../renderer')
const preloadPath = join(__dirname, '../preload/index.js')
const iconPath = join(app.getAppPath(), 'resources', 'icon.png')

protocol.registerSchemesAsPrivileged([
  { scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true } },
])
app.enableSandbox()
// The same per-user folder as the browser host that `npm start` falls back to (paths.ts).
app.setPath('userData', userDataDir({ platform: process.platform, env: process.env, home: app.getPath('home') }))

function fail(title: string, why: string): never {
  console.error(`${title}: ${why}`)
  if (app.isReady()) dialog.showErrorBox(title, why)
  app.exit(1)
  process.exit(1)
}

function openLedger(): Backend {
  const binding = checkElectronBinding(app.getAppPath(), {
    electron: process.versions.electron,
    abi: process.versions.modules,
    betterSqlite3: (createRequire(__filename)('better-sqlite3/package.json') as { version: string }).version,
    platform: process.platform,
    arch: process.arch,
  })
  if (!binding.ok) fail('CARATS cannot open its ledger', binding.why)
  // The ledger passes this to better-sqlite3's nativeBinding option; worker threads inherit it.
  process.env.CARATS_SQLITE_BINDING = binding.path
  let choice: LedgerChoice
  try {
    // --db > CARATS_DB > this workstation's setting (the admin's Ledger screen) > the default file
    choice = resolveLedger({
      argv: process.argv,
      env: process.env,
      dataDir: app.getPath('userData'),
      cwd: process.cwd(),
    })
  } catch (e) {
    fail('CARATS cannot start', e instanceof Error ? e.message : String(e))
  }
  const dbPath = choice.location
  // as the browser host does: the workers and whatever asks keyFilePath() find the key file too
  if (choice.keyFile) process.env.CARATS_KEY_FILE = choice.keyFile
  try {
    if (!isPostgresUrl(dbPath)) mkdirSync(dirname(dbPath), { recursive: true })
    return openBackend({
      dbPath,
      keyFile: choice.keyFile,
      ledgerChoice: choice,
      readThreads: HOST_READ_THREADS,
      sendsToVault: true,
      expiresClaims: true,
      watchesChanges: true,
    })
  } catch (e) {
    fail('CARATS cannot open its ledger', `${displayLocation(dbPath)}: ${e instanceof Error ? e.message : String(e)}`)
  }
}

function lockDown(contents: WebContents): void {
  contents.on('will-navigate', (event) => event.preventDefault())
  contents.on('will-redirect', (event) => event.preventDefault())
  contents.on('will-attach-webview', (event) => event.preventDefault())
  contents.setWindowOpenHandler(() => ({ action: 'deny' }))
}

async function serveApp(request: Request): Promise<Response> {
  const url = new URL(request.url)
  if (url.host !== APP_HOST || (request.method !== 'GET' && request.method !== 'HEAD')) {
    return new Response('not found', { status: 404 })
  }
  const r = await resolveStatic(rendererDir, url.pathname)
  if ('status' in r) return new Response(r.status === 404 ? 'not found' : 'bad request', { status: r.status })
  const body = request.method === 'HEAD' ? null : await readFile(r.found.file)
  return new Response(body, {
    status: 200,
    headers: { ...securityHeaders(), 'Content-Type': r.found.contentType, 'Cache-Control': 'no-cache' },
  })
}

function installSessionPolicy(): void {
  const ses = session.defaultSession
  // desktop notifications for the app's own page only (permissionAllowed); nothing else
  ses.setPermissionRequestHandler((contents, permission, callback) =>
    callback(permissionAllowed(permission, contents.getURL(), trustedOrigin)),
  )
  ses.setPermissionCheckHandler((_contents, permission, requestingOrigin) =>
    permissionAllowed(permission, requestingOrigin, trustedOrigin),
  )
  ses.setDevicePermissionHandler(() => false)
  const csp = contentSecurityPolicy({ devServerUrl })
  // The app:// handler sends the CSP itself; this covers the dev server's pages as well.
  ses.webRequest.onHeadersReceived((details, callback) => {
    if (!isTrustedSender(details.url, trustedOrigin)) return callback({})
    const headers = Object.fromEntries(
      Object.entries(details.responseHeaders ?? {}).filter(([k]) => k.toLowerCase() !== 'content-security-policy'),
    )
    callback({ responseHeaders: { ...headers, 'Content-Security-Policy': [csp] } })
  })
}

function createWindow(): BrowserWindow {
  const win = new BrowserWindow(windowOptions(preloadPath, { icon: iconPath }))
  win.once('ready-to-show', () => win.show())
  void win.loadURL(devServerUrl ?? APP_ENTRY_URL)
  return win
}

if (!app.requestSingleInstanceLock()) {
  // Another window already holds the ledger: it gets the focus (second-instance below).
  app.quit()
} else {
  let backend: Backend | null = null
  let win: BrowserWindow | null = null

  app.on('web-contents-created', (_event, contents) => lockDown(contents))
  app.on('second-instance', () => {
    if (!win) return
    if (win.isMinimized()) win.restore()
    win.focus()
  })
  app.on('window-all-closed', () => app.quit())
  app.on('will-quit', (event) => {
    if (!backend) return
    // Let running tasks stop at a checkpoint and the ledger close cleanly, then quit for real.
    const closing = backend
    backend = null
    event.preventDefault()
    void closing
      .closeGracefully()
      .catch((e: unknown) => console.error('closing the ledger:', e))
      .finally(() => app.quit())
  })

  void app.whenReady().then(() => {
    backend = openLedger()
    const handler = createInvokeHandler(backend, trustedOrigin, (url) =>
      limitedLog('refused-call', `refused a call from ${url}`),
    )
    ipcMain.handle(INVOKE_CHANNEL, (event, channel: unknown, args: unknown, token: unknown) =>
      handler(event, channel, args, token),
    )
    const opened = backend
    const relay = createChangeRelay(opened.changes, (token) => opened.services.users.sessionPeek(token), trustedOrigin)
    ipcMain.handle(WATCH_CHANNEL, (event, token: unknown) => relay.watch(event, token))
    installSessionPolicy()
    protocol.handle(APP_SCHEME, serveApp)
    win = createWindow()
    win.on('closed', () => {
      win = null
    })
  })
}
