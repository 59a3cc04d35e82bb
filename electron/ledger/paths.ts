/**
 * Where the ledger lives. The Electron app and the browser host that `npm start` falls back to
 * use the same per-user folder, so a user sees the same ledger whichever way the app opened.
 */
import { isAbsolute, join, resolve } from 'node:path'
import { isPostgresUrl } from './location'
import type { LedgerSource } from '../contract/ledger-setting'
import { readLedgerSetting } from './setting-file'

export type { LedgerSource }

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

/** The value of `--key-file <file>` or `--key-file=<file>`, if given. */
export function keyFileArgument(argv: readonly string[]): string | undefined {
  const i = argv.findIndex((a) => a === '--key-file' || a.startsWith('--key-file='))
  if (i < 0) return undefined
  const v = argv[i].startsWith('--key-file=') ? argv[i].slice('--key-file='.length) : argv[i + 1]
  if (!v || v.startsWith('--')) throw new Error('--key-file needs a file name: --key-file <file>')
  return v
}

export interface LedgerChoice {
  /** A file path (absolute) or a PostgreSQL URL. */
  location: string
  source: LedgerSource
  /** The key file, when one is given (else the ledger's default, `<file>.key`). */
  keyFile?: string
  keyFileSource: Exclude<LedgerSource, 'default'> | null
  /** The per-user data folder, which holds the setting and the default file. */
  dataDir: string
}

export interface LedgerChoiceInput {
  argv: readonly string[]
  env: Record<string, string | undefined>
  dataDir: string
  /** Relative paths given on the command line or in CARATS_DB are taken from here. */
  cwd: string
}

const located = (chosen: string, cwd: string) => (isPostgresUrl(chosen) ? chosen.trim() : resolve(cwd, chosen))

/**
 * The one reading of where the ledger is, for the Electron app and the browser host alike:
 * --db > CARATS_DB > the setting > `<dataDir>/carats.db`; --key-file > CARATS_KEY_FILE > the
 * setting's key file (when the setting's team ledger is the one opened). The setting is read only
 * when --db and CARATS_DB leave the choice to it; a broken one throws, naming the file.
 */
export function resolveLedger({ argv, env, dataDir, cwd }: LedgerChoiceInput): LedgerChoice {
  const arg = dbArgument(argv)
  const fromEnv = env.CARATS_DB?.trim() || undefined
  const keyArg = keyFileArgument(argv)
  const keyEnv = env.CARATS_KEY_FILE?.trim() || undefined
  const givenKey = keyArg
    ? { keyFile: resolve(cwd, keyArg), keyFileSource: 'argument' as const }
    : keyEnv
      ? { keyFile: keyEnv, keyFileSource: 'environment' as const }
      : null
  if (arg ?? fromEnv) {
    const source = arg ? 'argument' : 'environment'
    return { location: located((arg ?? fromEnv)!, cwd), source, dataDir, ...(givenKey ?? { keyFileSource: null }) }
  }
  const setting = readLedgerSetting(dataDir)
  if (setting?.ledger === 'team') {
    return {
      location: setting.url,
      source: 'setting',
      dataDir,
      ...(givenKey ?? { keyFile: setting.keyFile, keyFileSource: 'setting' }),
    }
  }
  return {
    location: join(dataDir, DB_FILE_NAME),
    source: setting ? 'setting' : 'default',
    dataDir,
    ...(givenKey ?? { keyFileSource: null }),
  }
}
