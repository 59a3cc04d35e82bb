/**
 * This workstation's ledger setting (the admin's Ledger setting screen): which ledger the app
 * opens at its next start, this workstation's file or the team's database. The running ledger is
 * never switched under its users: a saved setting applies when the app starts again. --db and
 * CARATS_DB still win over it (paths.ts resolveLedger), which the screen is told.
 *
 * A team URL's password never leaves this process: it is masked (***) in what the screen sees,
 * and a URL sent back with the masked password keeps the saved one (same user, host and port).
 */
import { AppError } from '../../contract/errors'
import {
  ledgerSettingSchema,
  type LedgerSetting,
  type LedgerSettingView,
  type LedgerTestResult,
} from '../../contract/ledger-setting'
import { displayLocation, isPostgresUrl } from '../../ledger/location'
import { readLedgerSetting, settingFilePath, writeLedgerSetting } from '../../ledger/setting-file'
import { DB_FILE_NAME, type LedgerChoice } from '../../ledger/paths'
import { join } from 'node:path'
import type { AuditService } from '../audit'
import type { Actor } from '../common'
import { testTeamLedger } from './probe'

export interface LedgerSettingService {
  view(): LedgerSettingView
  save(actor: Actor, setting: LedgerSetting): LedgerSettingView
  test(team: { url: string; keyFile: string }): Promise<LedgerTestResult>
}

const MASK = '***'

function masked(setting: LedgerSetting | null): LedgerSetting | null {
  return setting?.ledger === 'team' ? { ...setting, url: displayLocation(setting.url) } : setting
}

/** The key file the running ledger uses: the one given, else `<file>.key` beside a SQLite file. */
function currentKeyFile(choice: LedgerChoice): string {
  if (choice.keyFile) return choice.keyFile
  return isPostgresUrl(choice.location) ? '' : `${choice.location}.key`
}

/** Same server and account: where a masked password may be taken from the saved URL. */
const sameAccount = (a: URL, b: URL) => a.username === b.username && a.hostname === b.hostname && a.port === b.port

/**
 * The URL with the saved password in place of a masked one. A masked password with nothing saved
 * for that account is refused: the password must be typed.
 */
export function withSavedPassword(url: string, saved: LedgerSetting | null): string {
  const given = new URL(url.trim())
  if (given.password !== MASK) return url.trim()
  const old = saved?.ledger === 'team' ? new URL(saved.url) : null
  if (!old || !sameAccount(given, old)) {
    throw new AppError(
      'BAD_ARGUMENTS',
      `the URL's password is masked (${MASK}) and no password is saved for ${given.username || 'this account'} on ${given.host}: type the password`,
      { field: 'url' },
    )
  }
  given.password = old.password
  return given.toString()
}

function validated(setting: unknown): LedgerSetting {
  const parsed = ledgerSettingSchema.safeParse(setting)
  if (parsed.success) return parsed.data
  const issue = parsed.error.issues[0]
  const field = issue.path.join('.')
  throw new AppError('BAD_ARGUMENTS', `${field || 'the setting'} ${issue.message}`, { field })
}

export function createLedgerSettingService(deps: { choice: LedgerChoice; audit: AuditService }): LedgerSettingService {
  const { choice, audit } = deps
  const dataDir = choice.dataDir

  /** The saved setting, or why it cannot be read. */
  function savedSetting(): { saved: LedgerSetting | null; problem: string | null } {
    try {
      return { saved: readLedgerSetting(dataDir), problem: null }
    } catch (e) {
      return { saved: null, problem: e instanceof Error ? e.message : String(e) }
    }
  }

  function view(): LedgerSettingView {
    const { saved, problem } = savedSetting()
    const overriddenBy = choice.source === 'argument' || choice.source === 'environment' ? choice.source : null
    return {
      current: {
        engine: isPostgresUrl(choice.location) ? 'postgres' : 'sqlite',
        location: displayLocation(choice.location),
        keyFile: currentKeyFile(choice),
        source: choice.source,
      },
      saved: masked(saved),
      savedProblem: problem,
      settingFile: settingFilePath(dataDir),
      defaultFile: join(dataDir, DB_FILE_NAME),
      overriddenBy,
    }
  }

  function save(actor: Actor, input: LedgerSetting): LedgerSettingView {
    let setting = validated(input)
    if (setting.ledger === 'team') setting = { ...setting, url: withSavedPassword(setting.url, savedSetting().saved) }
    writeLedgerSetting(dataDir, setting)
    const details =
      setting.ledger === 'team'
        ? { ledger: 'team', url: displayLocation(setting.url), keyFile: setting.keyFile }
        : { ledger: 'file' }
    audit.record(actor.name, 'ledger.setting', 'setting:ledger', {
      ...details,
      file: settingFilePath(dataDir),
      appliesAt: 'next start',
    })
    return view()
  }

  async function test(team: { url: string; keyFile: string }): Promise<LedgerTestResult> {
    const checked = validated({ ledger: 'team', ...team }) as Extract<LedgerSetting, { ledger: 'team' }>
    return testTeamLedger(withSavedPassword(checked.url, savedSetting().saved), checked.keyFile)
  }

  return { view, save, test }
}
