/**
 * What `electron-vite build` emits for the Electron shell, checked on the files themselves: the
 * sandboxed preload must be one CommonJS file that requires nothing but 'electron', and must
 * expose only the contract-checked invoke when run the way a sandboxed renderer runs it; and for
 * the browser host and the command line, which must start from out/main/host.js and
 * out/main/cli.js beside the worker entries.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { builtinModules } from 'node:module'
import { join } from 'node:path'
import { runInNewContext } from 'node:vm'
import { beforeAll, describe, expect, it } from 'vitest'
import { ensureBuilt, PROJECT_ROOT } from '../../electron/host/build'

const out = (p: string) => join(PROJECT_ROOT, 'out', p)

function requires(code: string): string[] {
  return [...code.matchAll(/\brequire\(\s*["'`]([^"'`]+)["'`]\s*\)/g)].map((m) => m[1])
}

beforeAll(async () => {
  await ensureBuilt()
}, 300_000)

describe('preload build', () => {
  let code: string
  beforeAll(() => {
    code = readFileSync(out('preload/index.js'), 'utf8')
  })

  it('is CommonJS: require("electron") and no import or export statement', () => {
    expect(code).toMatch(/require\(["']electron["']\)/)
    expect(code).not.toMatch(/^\s*import[\s{*]/m)
    expect(code).not.toMatch(/^\s*export[\s{*]/m)
    expect(code).not.toMatch(/\bimport\(/)
  })

  it("requires only 'electron' (a sandboxed preload cannot load packages)", () => {
    expect(new Set(requires(code))).toEqual(new Set(['electron']))
  })

  it('run as in a sandbox under the CSP, exposes only invoke and watch, which forward contract channels and refuse others, and never evals', async () => {
    const exposed = new Map<string, unknown>()
    const sent: unknown[][] = []
    const listeners = new Map<string, Set<(event: unknown, message: unknown) => void>>()
    const electron = {
      contextBridge: { exposeInMainWorld: (key: string, api: unknown) => exposed.set(key, api) },
      ipcRenderer: {
        invoke: async (...a: unknown[]) => {
          sent.push(a)
          return { ok: true, result: 'pong' }
        },
        on: (channel: string, l: (event: unknown, message: unknown) => void) => {
          if (!listeners.has(channel)) listeners.set(channel, new Set())
          listeners.get(channel)!.add(l)
        },
        off: (channel: string, l: (event: unknown, message: unknown) => void) => listeners.get(channel)?.delete(l),
      },
    }
    const sandboxRequire = (name: string) => {
      if (name === 'electron') return electron
      throw new Error(`module not found: ${name}`)
    }
    const module = { exports: {} }
    // The page's CSP forbids eval: count any attempt at compiling code from a string.
    let evalAttempts = 0
    const NoEval = new Proxy(Function, {
      construct() {
        evalAttempts++
        throw new EvalError('Code generation from strings disallowed for this context')
      },
      apply() {
        evalAttempts++
        throw new EvalError('Code generation from strings disallowed for this context')
      },
    })
    runInNewContext(code, { require: sandboxRequire, module, exports: module.exports, console, Function: NoEval })

    expect([...exposed.keys()]).toEqual(['carats'])
    const api = exposed.get('carats') as {
      invoke: (c: string, a: unknown, t: string | null) => Promise<unknown>
      watch: (t: string | null, l: ((n: unknown) => void) | null) => Promise<unknown>
    }
    expect(Object.keys(api)).toEqual(['invoke', 'watch'])
    await expect(api.invoke('auth:status', {}, null)).resolves.toEqual({ ok: true, result: 'pong' })
    expect(sent).toEqual([['carats:invoke', 'auth:status', {}, null]])
    await expect(api.invoke('shell:openExternal', {}, null)).resolves.toMatchObject({
      ok: false,
      error: { code: 'UNKNOWN_CHANNEL' },
    })
    expect(sent).toHaveLength(1)
    // the changes: asked with the token, each message checked, the IPC event never passed on
    const heard: unknown[] = []
    await expect(api.watch('tok', (n) => heard.push(n))).resolves.toEqual({ ok: true, result: 'pong' })
    expect(sent.at(-1)).toEqual(['carats:watch', 'tok'])
    const sender = { sender: 'the main process' }
    for (const l of listeners.get('carats:changes') ?? []) {
      l(sender, { event: 'change', changes: [{ seq: 1, topic: 'claims', id: 'x' }] })
      l(sender, { event: 'change', changes: [{ seq: 2, topic: 'secrets', id: 'y' }] })
    }
    expect(heard).toEqual([{ event: 'change', changes: [{ seq: 1, topic: 'claims', id: 'x' }] }])
    await api.watch(null, null)
    expect(sent.at(-1)).toEqual(['carats:watch', null])
    expect(listeners.get('carats:changes')?.size ?? 0).toBe(0)
    expect(evalAttempts).toBe(0)
  })
})

/**
 * The packages a bundle loads from node_modules. pg's optional native binding is left out only
 * where pg itself guards it (`try { Native = require("pg-native") }`): it is never installed,
 * and pg falls back to its JavaScript client.
 */
function externalPackages(code: string): Set<string> {
  const guarded = /try\s*\{\s*Native\s*=\s*require\(["']pg-native["']\)/.test(code)
  const outside = requires(code).filter((r) => !r.startsWith('node:') && !builtinModules.includes(r))
  return new Set(outside.filter((r) => !(r === 'pg-native' && guarded)))
}

describe('main build', () => {
  it('is CommonJS and loads the backend from the bundle, better-sqlite3 from node_modules', () => {
    const code = readFileSync(out('main/index.js'), 'utf8')
    expect(code).toMatch(/require\(["']electron["']\)/)
    expect(code).not.toMatch(/^\s*import[\s{*]/m)
    expect(code).not.toMatch(/^\s*export[\s{*]/m)
    const local = requires(code).filter((r) => r.startsWith('.'))
    // Only the worker entry may be a separate file; nothing from the source tree.
    for (const r of local) expect(r).not.toMatch(/electron\/|\.ts$/)
  })
})

describe('browser host build', () => {
  it('is one CommonJS file that loads only Node built-ins, the native database driver and (workers run from source) esbuild', () => {
    const code = readFileSync(out('main/host.js'), 'utf8')
    expect(code).not.toMatch(/^\s*import[\s{*]/m)
    expect(code).not.toMatch(/^\s*export[\s{*]/m)
    // Nothing relative: a shared chunk under out/main/chunks/ would look for the workers in its own folder.
    expect(externalPackages(code)).toEqual(new Set(['better-sqlite3', 'esbuild']))
  })

  it('has every worker entry it may start beside it, and the launcher serve.mjs runs it', () => {
    const workers = readdirSync(join(PROJECT_ROOT, 'electron', 'workers')).filter((f) => /-worker\.ts$/.test(f))
    expect(workers.length).toBeGreaterThan(0)
    for (const w of workers) expect(existsSync(out(`main/${w.replace(/\.ts$/, '.js')}`))).toBe(true)
    const launcher = readFileSync(join(PROJECT_ROOT, 'electron', 'host', 'serve.mjs'), 'utf8')
    expect(launcher).toMatch(/'out', 'main', 'host\.js'/)
  })
})

describe('command line build', () => {
  it('is one CommonJS file that loads only Node built-ins, the native database driver and (workers run from source) esbuild', () => {
    const code = readFileSync(out('main/cli.js'), 'utf8')
    expect(code).not.toMatch(/^\s*import[\s{*]/m)
    expect(code).not.toMatch(/^\s*export[\s{*]/m)
    expect(externalPackages(code)).toEqual(new Set(['better-sqlite3', 'esbuild']))
  })

  it('exports runCli, which the launcher carats.mjs calls, and sits beside the worker entries', async () => {
    const launcher = readFileSync(join(PROJECT_ROOT, 'electron', 'cli', 'carats.mjs'), 'utf8')
    expect(launcher).toMatch(/'out', 'main', 'cli\.js'/)
    const { runCli } = (await import(out('main/cli.js'))) as { runCli: (argv: string[], io: object) => Promise<number> }
    let printed = ''
    const code = await runCli(['rules', '--json'], {
      out: (t: string) => void (printed += t),
      err: () => {},
      progress: () => {},
    })
    expect(code).toBe(0)
    expect(JSON.parse(printed)).toMatchObject({ blockSize: 8_016_000 })
    for (const w of ['block-worker', 'import-worker', 'simulate-worker', 'ledger-task-worker'])
      expect(existsSync(out(`main/${w}.js`))).toBe(true)
  })
})

describe('renderer build', () => {
  it('has an index.html that loads its scripts from the app itself', () => {
    const html = readFileSync(out('renderer/index.html'), 'utf8')
    const scripts = [...html.matchAll(/<script[^>]*src="([^"]+)"/g)].map((m) => m[1])
    expect(scripts.length).toBeGreaterThan(0)
    for (const s of scripts) expect(s).toMatch(/^\.?\/assets\//)
    // No inline script: the CSP (script-src 'self') would block it.
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/)
  })
})
