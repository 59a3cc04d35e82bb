/**
 * The integration tests' template ledger on PostgreSQL (ledger-fixture.ts builds it): a database
 * `carats_tpl_<version>_<pid>_<random>` that stays between runs, and its key file, in a folder of
 * the template cache named after the code version. The folder is built aside and renamed into
 * place whole, as the SQLite template is: a process that loses the race drops its own build.
 * Each test gets a copy (CREATE DATABASE … TEMPLATE), dropped after its file.
 */
import { randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  copyTestLedger,
  createLastingDatabase,
  databaseExists,
  databaseUrl,
  dropLastingDatabase,
  testServerUrl,
  type TestLedgerLocation,
} from '../support/ledger-engine'

export interface PgTemplate {
  database: string
  location: string
  keyFile: string
}

const cacheDir = join(tmpdir(), 'carats-ledger-templates')

function readTemplate(folder: string): PgTemplate | null {
  const file = join(folder, 'template.json')
  if (!existsSync(file)) return null
  const { database } = JSON.parse(readFileSync(file, 'utf8')) as { database: string }
  if (!databaseExists(database)) {
    // the server was reset since: build it again
    rmSync(folder, { recursive: true, force: true })
    return null
  }
  return { database, location: databaseUrl(testServerUrl(), database), keyFile: join(folder, 'ledger.key') }
}

/** The template for this code version, built with `build` on first use. */
export async function pgTemplate(
  version: string,
  build: (at: TestLedgerLocation) => Promise<void>,
): Promise<PgTemplate> {
  const folder = join(cacheDir, `pg-open-emission-${version}`)
  const ready = readTemplate(folder)
  if (ready) return ready
  mkdirSync(cacheDir, { recursive: true })
  const work = mkdtempSync(join(cacheDir, 'pg-build-'))
  const database = `carats_tpl_${version}_${process.pid}_${randomBytes(4).toString('hex')}`
  const location = createLastingDatabase(database)
  try {
    await build({ location, keyFile: join(work, 'ledger.key') })
    writeFileSync(join(work, 'template.json'), JSON.stringify({ database }) + '\n')
    renameSync(work, folder)
  } catch (e) {
    // a failed build, or another process put its build in place first: use that one
    rmSync(work, { recursive: true, force: true })
    dropLastingDatabase(database)
    const theirs = readTemplate(folder)
    if (!theirs) throw e
    return theirs
  }
  return { database, location, keyFile: join(folder, 'ledger.key') }
}

/** A copy of the template for one test, its key file in `dir`. */
export function copyPgTemplate(template: PgTemplate, dir: string): TestLedgerLocation {
  return copyTestLedger(template, dir)
}
