/**
 * This workstation's ledger setting: `<per-user data folder>/ledger.json`, written by the admin's
 * "Ledger" settings screen and read at start by the Electron app and the browser host (paths.ts).
 *
 *   { "ledger": "file" }                                     this workstation's SQLite file
 *   { "ledger": "team", "url": "postgresql://…", "keyFile": "/abs/team.key" }   the team's database
 *
 * A file that is there but cannot be read as one of these is refused, naming the file and what
 * is wrong: a workstation never falls back silently to another ledger than the one it was set to.
 */
import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import type { z } from 'zod'
import { ledgerSettingSchema, type LedgerSetting } from '../contract/ledger-setting'

export const SETTING_FILE_NAME = 'ledger.json'
export type { LedgerSetting }

export const settingFilePath = (dataDir: string) => join(dataDir, SETTING_FILE_NAME)

function issueText(issue: z.core.$ZodIssue): string {
  const where = issue.path.length ? `"${issue.path.join('.')}" ` : ''
  const missing = issue.code === 'invalid_type' && /received undefined/.test(issue.message)
  return `${where}${missing ? 'is missing' : issue.message}`
}

function broken(file: string, why: string): Error {
  return new Error(
    `the ledger setting ${file} cannot be used: ${why}. ` +
      `Correct it (${'{ "ledger": "file" }'} or ${'{ "ledger": "team", "url": "postgresql://…", "keyFile": "/path/team.key" }'}), ` +
      "or delete it to use this workstation's file",
  )
}

/** Reads a setting from its text; `file` names it in the error. */
export function parseLedgerSetting(text: string, file: string): LedgerSetting {
  let raw: unknown
  try {
    raw = JSON.parse(text)
  } catch (e) {
    throw broken(file, `it is not valid JSON (${e instanceof Error ? e.message : String(e)})`)
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw broken(file, 'it must hold one JSON object')
  if (!('ledger' in raw)) throw broken(file, '"ledger" is missing: it must be "file" or "team"')
  const parsed = ledgerSettingSchema.safeParse(raw)
  if (!parsed.success) {
    const ledger = (raw as { ledger: unknown }).ledger
    if (ledger !== 'file' && ledger !== 'team')
      throw broken(file, `"ledger" is ${JSON.stringify(ledger)}: it must be "file" or "team"`)
    throw broken(file, parsed.error.issues.map(issueText).join('; '))
  }
  return parsed.data
}

/** The setting saved in `dataDir`, or null when there is none (the default: this workstation's file). */
export function readLedgerSetting(dataDir: string): LedgerSetting | null {
  const file = settingFilePath(dataDir)
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code
    if (code === 'ENOENT') return null
    throw broken(file, `it cannot be read (${(e as Error).message})`)
  }
  return parseLedgerSetting(text, file)
}

/**
 * Saves the setting: written beside, then renamed over the old one (a crash leaves one or the
 * other whole). Mode 0600: a team URL may hold the database password.
 */
export function writeLedgerSetting(dataDir: string, setting: LedgerSetting): string {
  const file = settingFilePath(dataDir)
  mkdirSync(dirname(file), { recursive: true })
  const next = `${file}.${process.pid}.new`
  writeFileSync(next, `${JSON.stringify(setting, null, 2)}\n`, { mode: 0o600 })
  try {
    chmodSync(next, 0o600)
  } catch {
    // not every file system keeps modes
  }
  renameSync(next, file)
  return file
}
