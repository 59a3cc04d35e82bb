#!/usr/bin/env node
/**
 * Prepares better-sqlite3 for Electron's ABI, beside (never instead of) the Node build that
 * tests and the CLI use: the result goes to build/native/electron/better_sqlite3.node with a
 * stamp saying which Electron, ABI, platform and better-sqlite3 it was made for. The main
 * process opens the ledger with it (better-sqlite3's `nativeBinding` option).
 *
 * Run by `npm start` when Electron is present; run it by hand with `node scripts/electron-native.mjs`
 * (`--force` to redo it). It is never part of `npm install`, so an offline install cannot fail here.
 *
 * Ways tried, in order:
 * 1. prebuild-install: the prebuilt binary better-sqlite3 publishes for this Electron on GitHub;
 * 2. node-gyp (the copy bundled with npm): a build from source against Electron's headers
 *    (needs electronjs.org, Python and a C++ toolchain).
 * Exit status 0 when the binding is ready, 1 with a one-paragraph explanation otherwise.
 */
import { spawnSync } from 'node:child_process'
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const require = createRequire(join(root, 'package.json'))

export const NATIVE_DIR = join(root, 'build', 'native', 'electron')
export const BINDING_FILE = join(NATIVE_DIR, 'better_sqlite3.node')
export const STAMP_FILE = join(NATIVE_DIR, 'better_sqlite3.json')

/** What the binding must be built for. */
export function wantedStamp() {
  const electronDir = dirname(require.resolve('electron/package.json'))
  return {
    electron: require('electron/package.json').version,
    abi: readFileSync(join(electronDir, 'abi_version'), 'utf8').trim(),
    betterSqlite3: require('better-sqlite3/package.json').version,
    platform: process.platform,
    arch: process.arch,
  }
}

export function isUpToDate(wanted = wantedStamp()) {
  if (!existsSync(BINDING_FILE) || !existsSync(STAMP_FILE)) return false
  try {
    const have = JSON.parse(readFileSync(STAMP_FILE, 'utf8'))
    return Object.entries(wanted).every(([k, v]) => have[k] === v)
  } catch {
    return false
  }
}

function run(cmd, args, cwd, timeoutMs) {
  const r = spawnSync(cmd, args, {
    cwd,
    encoding: 'utf8',
    timeout: timeoutMs,
    env: { ...process.env, npm_config_loglevel: 'warn' },
  })
  const output = `${r.stdout ?? ''}${r.stderr ?? ''}`.trim()
  if (r.error)
    return {
      ok: false,
      why: r.error.code === 'ETIMEDOUT' ? `timed out after ${timeoutMs / 1000} s` : r.error.message,
      output,
    }
  if (r.status !== 0) return { ok: false, why: lastLine(output) || `exit status ${r.status}`, output }
  return { ok: true, output }
}

function lastLine(text) {
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
  return lines.at(-1) ?? ''
}

function viaPrebuild(wanted, work) {
  const pkgDir = dirname(require.resolve('better-sqlite3/package.json'))
  const prebuildBin = createRequire(join(pkgDir, 'package.json')).resolve('prebuild-install/bin.js')
  copyFileSync(join(pkgDir, 'package.json'), join(work, 'package.json'))
  const r = run(
    process.execPath,
    [
      prebuildBin,
      '--runtime',
      'electron',
      '--target',
      wanted.electron,
      '--platform',
      wanted.platform,
      '--arch',
      wanted.arch,
      '--verbose',
    ],
    work,
    180_000,
  )
  const built = join(work, 'build', 'Release', 'better_sqlite3.node')
  return r.ok && existsSync(built)
    ? { ok: true, file: built }
    : { ok: false, why: `prebuild-install: ${r.why ?? 'no binary produced'}` }
}

function npmNodeGyp() {
  const candidates = []
  if (process.env.npm_execpath)
    candidates.push(join(dirname(process.env.npm_execpath), '..', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js'))
  candidates.push(
    join(
      dirname(process.execPath),
      '..',
      'lib',
      'node_modules',
      'npm',
      'node_modules',
      'node-gyp',
      'bin',
      'node-gyp.js',
    ),
  )
  return candidates.find((c) => existsSync(c))
}

/** node-gyp's own last words are "not ok": find the cause in what it printed before. */
export function gypReason(output) {
  if (/network connectivity|ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ETIMEDOUT/.test(output))
    return 'Electron headers cannot be downloaded from electronjs.org (no network)'
  if (/find Python|Could not find any Python/i.test(output)) return 'Python is not installed'
  if (/(make|g\+\+|c\+\+|cc): (not found|No such file)/.test(output) || /not found: make/.test(output))
    return 'no C++ toolchain (make, g++)'
  const stack = /ERR! stack Error: (.+)/.exec(output)
  return stack ? stack[1].trim() : undefined
}

function viaNodeGyp(wanted, work) {
  const gyp = npmNodeGyp()
  if (!gyp) return { ok: false, why: 'node-gyp: not found beside npm' }
  const pkgDir = dirname(require.resolve('better-sqlite3/package.json'))
  const src = join(work, 'src-build')
  for (const part of ['package.json', 'binding.gyp', 'src', 'deps'])
    cpSync(join(pkgDir, part), join(src, part), { recursive: true })
  const r = run(
    process.execPath,
    [
      gyp,
      'rebuild',
      '--release',
      `--target=${wanted.electron}`,
      `--arch=${wanted.arch}`,
      '--runtime=electron',
      '--dist-url=https://electronjs.org/headers',
    ],
    src,
    20 * 60_000,
  )
  const built = join(src, 'build', 'Release', 'better_sqlite3.node')
  return r.ok && existsSync(built)
    ? { ok: true, file: built }
    : { ok: false, why: `node-gyp: ${gypReason(r.output ?? '') ?? r.why ?? 'no binary produced'}` }
}

/** Makes sure the Electron binding exists. Returns { ok: true } or { ok: false, why }. */
export function ensureElectronBinding({ force = false, log = (m) => console.error(m) } = {}) {
  const wanted = wantedStamp()
  if (!force && isUpToDate(wanted)) return { ok: true, fresh: false }
  log(
    `Preparing better-sqlite3 ${wanted.betterSqlite3} for Electron ${wanted.electron} (ABI ${wanted.abi}, ${wanted.platform}-${wanted.arch})...`,
  )
  const work = mkdtempSync(join(tmpdir(), 'carats-native-'))
  const failures = []
  try {
    for (const attempt of [viaPrebuild, viaNodeGyp]) {
      const r = attempt(wanted, work)
      if (r.ok) {
        mkdirSync(NATIVE_DIR, { recursive: true })
        copyFileSync(r.file, BINDING_FILE)
        writeFileSync(STAMP_FILE, `${JSON.stringify(wanted, null, 2)}\n`)
        log(`Electron database driver ready: ${BINDING_FILE}`)
        return { ok: true, fresh: true }
      }
      failures.push(r.why)
    }
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
  return {
    ok: false,
    why:
      `better-sqlite3 could not be prepared for Electron ${wanted.electron} (${failures.join('; ')}). ` +
      'It needs either access to github.com (prebuilt binary) or to electronjs.org with Python and a C++ compiler (build from source); ' +
      'then run `node scripts/electron-native.mjs`.',
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const r = ensureElectronBinding({ force: process.argv.includes('--force') })
  if (!r.ok) {
    console.error(r.why)
    process.exit(1)
  }
  if (!r.fresh) console.error(`Electron database driver up to date: ${BINDING_FILE}`)
}
