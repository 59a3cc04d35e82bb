#!/usr/bin/env node
/**
 * `npm start [-- --db <file or postgresql:// URL>] [-- --key-file <file>] [-- --browser]`: opens the desktop app. Where Electron cannot run
 * (its binary cannot be obtained, no display, no Electron build of the database driver), says
 * so in one line and serves the app for a browser instead (`npm run serve`), which prints its
 * address. `--browser` or CARATS_BROWSER=1 asks for the browser directly.
 *
 * No TTY is needed: output is plain lines, and the child's exit status becomes ours.
 */
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const electronDir = join(root, 'node_modules', 'electron')

function lastLine(text) {
  return (
    text
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('at '))
      .at(-1) ?? ''
  )
}

function installedElectron() {
  try {
    const exe = join(electronDir, 'dist', readFileSync(join(electronDir, 'path.txt'), 'utf8').trim())
    return existsSync(exe) ? exe : null
  } catch {
    return null
  }
}

/** The Electron executable, downloading it if this machine can; or why it cannot run here. */
function electronRuntime() {
  if (!existsSync(join(electronDir, 'package.json'))) return { ok: false, why: 'the electron package is not installed' }
  let exe = installedElectron()
  // Without a display there is no point downloading a hundred megabytes.
  if (process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) {
    return {
      ok: false,
      why: `no graphical display: DISPLAY and WAYLAND_DISPLAY are unset${exe ? '' : ', and its binary is not installed'}`,
    }
  }
  if (!exe) {
    // Electron >= 42 downloads its binary on first use rather than at npm install.
    const r = spawnSync(process.execPath, [join(electronDir, 'install.js')], {
      cwd: root,
      encoding: 'utf8',
      timeout: 10 * 60_000,
    })
    exe = installedElectron()
    if (!exe) {
      const why = r.error
        ? r.error.message
        : lastLine(`${r.stdout ?? ''}\n${r.stderr ?? ''}`) || `exit status ${r.status}`
      return {
        ok: false,
        why: `its binary is not installed and could not be downloaded: ${why.replace(/^\w*Error: /, '')}`,
      }
    }
  }
  return { ok: true, exe }
}

/**
 * Calls `stop` once the process that started us is gone. npm passes its own stop on to the shell
 * that runs the script, not to us: left behind, we would keep the app (and its ledger) running.
 */
function stopWithParent(stop) {
  const parent = process.ppid
  setInterval(() => {
    if (process.ppid !== parent) stop()
  }, 500).unref()
}

/** Runs a child with our stdio, passes on Ctrl-C and termination, and exits with its status. */
function runChild(cmd, args, env = process.env) {
  const child = spawn(cmd, args, { cwd: root, stdio: 'inherit', env })
  const stop = (signal) => {
    if (child.exitCode === null) child.kill(signal)
  }
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => stop(signal))
  stopWithParent(() => stop('SIGTERM'))
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)))
  child.on('error', (e) => {
    console.error(`could not start ${cmd}: ${e.message}`)
    process.exit(1)
  })
}

function serveForBrowser(args, why) {
  if (why)
    console.log(`Electron runtime not available on this machine (${why}); serving the app for a browser instead.`)
  // As `npm run serve`: builds out/ first if it is missing or stale, and prints `listening on <url>`.
  runChild(process.execPath, [join(root, 'electron', 'host', 'serve.mjs'), ...args])
}

const PG_URL = /^postgres(ql)?:\/\//i

/**
 * npm runs scripts from the package folder: a relative --db or --key-file means the folder npm was
 * started in. A PostgreSQL URL is kept as it is. Without --db or CARATS_DB, both children read this
 * workstation's ledger setting themselves (electron/main/paths.ts resolveLedger).
 */
function absolutePaths(argv) {
  const base = process.env.INIT_CWD || process.cwd()
  const absolute = (v) => (PG_URL.test(v) ? v : resolve(base, v))
  return argv.map((a, i) => {
    for (const name of ['--db', '--key-file']) {
      if (a.startsWith(`${name}=`)) return `${name}=${absolute(a.slice(name.length + 1))}`
      if (argv[i - 1] === name && !a.startsWith('--')) return absolute(a)
    }
    return a
  })
}

async function main() {
  const argv = process.argv.slice(2)
  const args = absolutePaths(argv.filter((a) => a !== '--browser'))
  if (argv.includes('--browser') || process.env.CARATS_BROWSER === '1') return serveForBrowser(args, null)

  const electron = electronRuntime()
  if (!electron.ok) return serveForBrowser(args, electron.why)

  const { ensureElectronBinding } = await import('./electron-native.mjs')
  const native = ensureElectronBinding()
  if (!native.ok) return serveForBrowser(args, `no Electron build of the database driver: ${native.why}`)

  // Built once, then again only when the sources change (as the browser host does).
  const { ensureBuilt } = await import('../electron/host/build.mjs')
  try {
    await ensureBuilt({ log: (m) => console.error(m) })
  } catch (e) {
    console.error(e instanceof Error ? e.message : String(e))
    process.exit(1)
  }
  // Inherited from some tool, this would make Electron run as plain Node.
  const { ELECTRON_RUN_AS_NODE: _asNode, ...env } = process.env
  runChild(electron.exe, [root, ...args], env)
}

main().catch((e) => {
  console.error(e instanceof Error ? e.message : String(e))
  process.exit(1)
})
