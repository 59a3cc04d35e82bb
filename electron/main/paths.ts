/**
 * Where the ledger lives. The Electron app and the browser host that `npm start` falls back to
 * use the same per-user folder, so a user sees the same ledger whichever way the app opened.
 */
import { isAbsolute, join, resolve } from 'node:path'
import { isPostgresUrl } from '../ledger/location'

export const APP_DIR_NAME = 'carats'
export const DB_FILE_NAME = 'carats.db'

export interface PlatformInfo {
  platform: NodeJS.Platform
  env: Record<string, string | undefined>
  home: string
}

/** The per-user data folder: XDG data home on Linux, Application Support on macOS, AppData on Windows. */
export function userDataDir({ platform, env, home }: PlatformInfo): string {
  if (platform === 'win32') return join(env.APPDATA || join(home, 'AppData', 'Roaming'), APP_DIR_NAME)
  if (platform === 'darwin') return join(home, 'Library', 'Application Support', APP_DIR_NAME)
  const xdg = env.XDG_DATA_HOME
  return join(xdg && isAbsolute(xdg) ? xdg : join(home, '.local', 'share'), APP_DIR_NAME)
}

/** The value of `--db <file>` or `--db=<file>`, if given. */
export function dbArgument(argv: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    if (a === '--db') {
      const next = argv[i + 1]
      if (next === undefined || next.startsWith('--')) throw new Error('--db needs a file name: --db <file>')
      return next
    }
    if (a.startsWith('--db=')) {
      const v = a.slice('--db='.length)
      if (!v) throw new Error('--db needs a file name: --db <file>')
      return v
    }
  }
  return undefined
}

/**
 * --db wins over CARATS_DB, which wins over the per-user default. Relative paths are taken from
 * `cwd`; a PostgreSQL URL (a team ledger) is kept as it is.
 */
export function resolveDbPath(argv: readonly string[], env: Record<string, string | undefined>, defaultDir: string, cwd: string): string {
  const chosen = dbArgument(argv) ?? (env.CARATS_DB || undefined)
  if (chosen && isPostgresUrl(chosen)) return chosen.trim()
  return chosen ? resolve(cwd, chosen) : join(defaultDir, DB_FILE_NAME)
}
