/**
 * Whether out/ (main, preload, renderer and the browser host's bundle) is older than its sources,
 * and building it once even when several processes (parallel test files, a host starting) ask at
 * the same time.
 *
 * Plain JavaScript on purpose: the browser host's launcher (serve.mjs) runs this before anything
 * is built, without a TypeScript loader. TypeScript code imports it through build.ts.
 */
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const PROJECT_ROOT = fileURLToPath(new URL('../..', import.meta.url)).replace(/[\\/]$/, '')

/** What the build reads. Tests are excluded: editing one must not force a rebuild. */
const INPUTS = [
  'renderer',
  'game-core',
  'electron',
  'resources',
  'electron.vite.config.ts',
  'package.json',
  'package-lock.json',
  'tsconfig.web.json',
]
/** What it must produce: out/main/host.js is the browser host, out/main/cli.js the command line (electron.vite.config.ts). */
export const OUTPUTS = [
  'out/main/index.js',
  'out/main/host.js',
  'out/main/cli.js',
  'out/preload/index.js',
  'out/renderer/index.html',
]

function newest(path) {
  let st
  try {
    st = statSync(path)
  } catch {
    return 0
  }
  if (!st.isDirectory()) return /\.test\.ts$/.test(path) ? 0 : st.mtimeMs
  let max = 0
  for (const entry of readdirSync(path)) {
    if (entry === 'node_modules' || entry.startsWith('.')) continue
    max = Math.max(max, newest(join(path, entry)))
  }
  return max
}

export function buildStatus(root = PROJECT_ROOT) {
  let oldestOutput = Infinity
  for (const out of OUTPUTS) {
    const p = join(root, out)
    if (!existsSync(p)) return { fresh: false, why: `${out} is missing` }
    oldestOutput = Math.min(oldestOutput, statSync(p).mtimeMs)
  }
  const newestInput = Math.max(...INPUTS.map((i) => newest(join(root, i))))
  return newestInput > oldestOutput ? { fresh: false, why: 'sources changed since the last build' } : { fresh: true }
}

/**
 * Runs `electron-vite build`; its output goes to stderr so that stdout stays the caller's. A
 * failure throws an Error whose message has the build's last lines and whose `reason` says what
 * went wrong in one line.
 */
export function runBuild(root = PROJECT_ROOT) {
  const bin = join(root, 'node_modules', 'electron-vite', 'bin', 'electron-vite.js')
  if (!existsSync(bin)) {
    const why = `electron-vite is not installed (${join(root, 'node_modules')} has no electron-vite): run npm install in ${root}`
    throw Object.assign(new Error(why), { reason: why })
  }
  // loaded here, not at start: a host starting on a fresh build never needs it
  const { spawnSync } = createRequire(import.meta.url)('node:child_process')
  const r = spawnSync(process.execPath, [bin, 'build'], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
    encoding: 'utf8',
  })
  if (r.status !== 0) {
    const output = `${r.stdout ?? ''}${r.stderr ?? ''}`.trim()
    const tail = output.split('\n').slice(-25).join('\n')
    throw Object.assign(new Error(`the build failed (npx electron-vite build):\n${tail}`), {
      reason: failureReason(output),
    })
  }
}

/**
 * The one line of a failed build's output that says what is wrong: the first after Vite's
 * "error during build:", with the file and line it names.
 */
export function failureReason(output) {
  const lines = output
    .replace(/\x1b\[[0-9;]*m/g, '')
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
  const start = lines.findIndex((l) => l.startsWith('error during build:'))
  const rest = start >= 0 ? lines.slice(start + 1) : lines
  const message =
    rest.find((l) => !/^Build failed with \d+ errors?:?$/.test(l) && !l.startsWith('at ')) ?? 'no error message'
  const where = rest.map((l) => /[\w@./-]+\.(?:ts|vue|mjs|cjs|js|json|html|css):\d+:\d+/.exec(l)?.[0]).find(Boolean)
  return where && !message.includes(where) ? `${message} (${where})` : message
}

const LOCK_STALE_MS = 10 * 60_000

/** Builds out/ if it is missing or stale; concurrent callers wait for one build. Returns whether it built. */
export async function ensureBuilt(opts = {}) {
  const root = opts.root ?? PROJECT_ROOT
  if (buildStatus(root).fresh) return false
  mkdirSync(join(root, 'out'), { recursive: true })
  return withDirLock(join(root, 'out', '.build-lock'), LOCK_STALE_MS, 250, () => {
    const status = buildStatus(root)
    if (status.fresh) return false
    opts.log?.(`Building the app (${status.why})...`)
    runBuild(root)
    return true
  })
}

/**
 * Runs `fn` holding the lock folder `lock` (creating a folder is atomic), waiting `pollMs` between
 * tries; a lock older than `staleMs` was left by a process that died and is taken over.
 */
export async function withDirLock(lock, staleMs, pollMs, fn) {
  for (;;) {
    try {
      mkdirSync(lock)
      break
    } catch {
      try {
        if (Date.now() - statSync(lock).mtimeMs > staleMs) rmSync(lock, { recursive: true, force: true })
      } catch {
        /* released meanwhile */
      }
      await new Promise((r) => setTimeout(r, pollMs))
    }
  }
  try {
    return await fn()
  } finally {
    rmSync(lock, { recursive: true, force: true })
  }
}
