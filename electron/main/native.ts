/**
 * The Electron-ABI build of better-sqlite3 that scripts/electron-native.mjs prepares beside the
 * Node build: build/native/electron/better_sqlite3.node, with a stamp of what it was made for.
 * The main process checks the stamp before opening the ledger, so a stale binding is reported
 * with the command that fixes it rather than as an obscure "NODE_MODULE_VERSION" crash.
 */
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

export interface BindingStamp {
  electron: string
  abi: string
  betterSqlite3: string
  platform: string
  arch: string
}

export function electronBindingPaths(appRoot: string): { binding: string; stamp: string } {
  const dir = join(appRoot, 'build', 'native', 'electron')
  return { binding: join(dir, 'better_sqlite3.node'), stamp: join(dir, 'better_sqlite3.json') }
}

const FIX = 'run `node scripts/electron-native.mjs` in the app folder (npm start does it)'

export function checkElectronBinding(
  appRoot: string,
  runtime: BindingStamp,
): { ok: true; path: string } | { ok: false; why: string } {
  const { binding, stamp } = electronBindingPaths(appRoot)
  if (!existsSync(binding) || !existsSync(stamp)) {
    return { ok: false, why: `the database driver for Electron is missing (${binding}): ${FIX}` }
  }
  let have: Partial<BindingStamp>
  try {
    have = JSON.parse(readFileSync(stamp, 'utf8')) as Partial<BindingStamp>
  } catch {
    return { ok: false, why: `the database driver's stamp ${stamp} is unreadable: ${FIX}` }
  }
  const wrong = (Object.keys(runtime) as (keyof BindingStamp)[]).filter((k) => have[k] !== runtime[k])
  if (wrong.length > 0) {
    const detail = wrong.map((k) => `${k} ${have[k] ?? '?'} instead of ${runtime[k]}`).join(', ')
    return { ok: false, why: `the database driver for Electron was built for another runtime (${detail}): ${FIX}` }
  }
  return { ok: true, path: binding }
}
