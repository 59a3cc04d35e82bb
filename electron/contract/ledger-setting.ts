/**
 * This workstation's ledger setting as the contract carries it (`settings:ledger*`) and as the
 * settings file holds it (electron/ledger/setting-file.ts): one schema for both. Pure: the
 * renderer loads the contract too.
 */
import { z } from 'zod'
import { cleanText } from './text-schema'

const PG_URL = /^postgres(ql)?:\/\//i

/** Whether a ledger's location is a team database's URL (`postgresql://`, `postgres://`) rather than a file's path. */
export function isPostgresUrl(location: string): boolean {
  return PG_URL.test(location.trim())
}

export type LedgerSetting = { ledger: 'file' } | { ledger: 'team'; url: string; keyFile: string }

/** Who chose the ledger: --db, CARATS_DB, the workstation's setting (ledger.json), or nobody (the default file). */
export type LedgerSource = 'argument' | 'environment' | 'setting' | 'default'

/** Why a URL cannot be a team ledger's, or null when it can. */
export function teamUrlProblem(url: string): 'scheme' | 'unreadable' | null {
  if (!isPostgresUrl(url)) return 'scheme'
  try {
    new URL(url.trim())
    return null
  } catch {
    return 'unreadable'
  }
}

/** An absolute path on any platform: `/…`, `C:\…` or `\\server\…` (the app may start from any folder). */
export const isAbsolutePath = (p: string) => /^(\/|[A-Za-z]:[\\/]|\\\\)/.test(p.trim())

export const teamUrl = cleanText(z.string().trim().min(1, 'must not be empty').max(2000), { what: 'a URL', keep: true })
  .refine((u) => teamUrlProblem(u) !== 'scheme', 'must be a PostgreSQL URL starting with postgresql://')
  .refine(
    (u) => teamUrlProblem(u) !== 'unreadable',
    'is not a URL that can be read (check its special characters: a password with @ or / must be written %40, %2F)',
  )

export const absoluteFile = cleanText(z.string().trim().min(1, 'must not be empty').max(4000), {
  what: 'a path',
  keep: true,
}).refine(
  isAbsolutePath,
  'must be an absolute path (starting with / on Linux and macOS, a drive letter on Windows): the app may start from any folder',
)

export const teamLedger = z.object({ url: teamUrl, keyFile: absoluteFile }).strict()

export const ledgerSettingSchema = z.discriminatedUnion('ledger', [
  z.object({ ledger: z.literal('file') }).strict(),
  teamLedger.extend({ ledger: z.literal('team') }).strict(),
])

/** What `settings:ledger` shows: the ledger open now, and the one saved for the next start. Passwords masked. */
export interface LedgerSettingView {
  current: { engine: 'sqlite' | 'postgres'; location: string; keyFile: string; source: LedgerSource }
  /** null: nothing saved (the default, this workstation's file). */
  saved: LedgerSetting | null
  /** Why the saved setting cannot be used (the app would refuse to start), or null. */
  savedProblem: string | null
  settingFile: string
  /** This workstation's file, as the "file" setting opens it. */
  defaultFile: string
  /** --db or CARATS_DB chooses the ledger instead of the setting. */
  overriddenBy: 'argument' | 'environment' | null
}

export const LEDGER_TEST_STEPS = ['server', 'database', 'keyFile'] as const
/** What a step found: ok ones say what, the others what is wrong (ledgerSetting.test.* in the screens). */
export const LEDGER_TEST_CODES = [
  'reached',
  'refused',
  'noHost',
  'timeout',
  'auth',
  'noDatabase',
  'unreachable',
  'empty',
  'ledger',
  'foreign',
  'otherApp',
  'newer',
  'unreadable',
  'keyMatches',
  'keyExists',
  'keyWillBeMade',
  'keyMissing',
  'keyWrong',
  'keyUnsafe',
  'keyDamaged',
  'keyDirMissing',
  'keyDirReadOnly',
  'notChecked',
] as const

export interface LedgerTestStep {
  step: (typeof LEDGER_TEST_STEPS)[number]
  ok: boolean
  code: (typeof LEDGER_TEST_CODES)[number]
  params: Record<string, string | number>
}

export interface LedgerTestResult {
  ok: boolean
  /** The URL tried, its password masked. */
  url: string
  steps: LedgerTestStep[]
}
