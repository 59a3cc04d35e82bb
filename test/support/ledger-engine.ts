/**
 * The ledger engine a test run uses, and a fresh ledger location for each test: a file in the
 * test's folder on SQLite (the default), a database of its own on PostgreSQL.
 *
 *   CARATS_TEST_ENGINE  sqlite (default) | postgres
 *   CARATS_TEST_PG      the server's maintenance URL (default postgresql:///postgres?host=/var/run/postgresql)
 *
 * Databases are named carats_t_<pid>_<counter>_<random>: this process drops its own after its
 * tests (dropTestLedgers, from test/support/engine-setup.ts), and the ones of a process that no
 * longer runs (a crashed run) at the start of the next.
 */
import { processIsAlive } from '../../electron/services/common'
import { execFileSync, spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { copyFileSync, existsSync } from 'node:fs'
import { join } from 'node:path'

export type TestEngine = 'sqlite' | 'postgres'

export const DEFAULT_TEST_PG = 'postgresql:///postgres?host=/var/run/postgresql'
const PREFIX = 'carats_t_'

/** The engine of this test run, from CARATS_TEST_ENGINE; anything but the two names is refused. */
export function testEngine(env: NodeJS.ProcessEnv = process.env): TestEngine {
  const name = (env.CARATS_TEST_ENGINE ?? '').trim().toLowerCase()
  if (name === '' || name === 'sqlite') return 'sqlite'
  if (name === 'postgres' || name === 'postgresql' || name === 'pg') return 'postgres'
  throw new Error(`CARATS_TEST_ENGINE=${env.CARATS_TEST_ENGINE} is not an engine: use sqlite (the default) or postgres`)
}

/**
 * Whether this run goes without a PostgreSQL server (`npm run test:sqlite` sets
 * CARATS_TEST_WITHOUT_PG=1): the few tests that need one whatever the engine skip, and say so in
 * their names. `npm test` never sets it: there a missing server fails the run.
 */
export function withoutPostgres(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.CARATS_TEST_WITHOUT_PG === '1'
}

/** The server the PostgreSQL test databases are made on (its maintenance database). */
export function testServerUrl(env: NodeJS.ProcessEnv = process.env): string {
  return env.CARATS_TEST_PG?.trim() || DEFAULT_TEST_PG
}

export interface TestLedgerLocation {
  /** What openLedger / the backend's dbPath / the CLI's --db take. */
  location: string
  /** The key file to pass (`keyFile`, `--key-file`); undefined on SQLite: `<db>.key` beside the file. */
  keyFile: string | undefined
}

/** `url` with its database replaced by `database` (host, port, user and options kept). */
export function databaseUrl(url: string, database: string): string {
  const u = new URL(url)
  u.pathname = `/${database}`
  return u.toString()
}

let counter = 0
const made = new Set<string>()

/** A name no other test (of this process or another) has: carats_t_<pid>_<counter>_<random>. */
export function testDatabaseName(): string {
  counter += 1
  return `${PREFIX}${process.pid}_${counter}_${randomBytes(4).toString('hex')}`
}

/**
 * A fresh ledger location in `dir` (the test's temporary folder). On PostgreSQL the database is
 * created now (empty: the ledger's migrations fill it) and its key file is `<dir>/<name>.key`,
 * not created: the ledger makes it as it makes `<db>.key` beside a new file.
 */
export function testLedgerLocation(dir: string, name = 'ledger', copy: DatabaseCopy = {}): TestLedgerLocation {
  if (testEngine() === 'sqlite') return { location: join(dir, `${name}.db`), keyFile: undefined }
  const database = createTestDatabase(copy)
  return { location: databaseUrl(testServerUrl(), database), keyFile: join(dir, `${name}.key`) }
}

/** On PostgreSQL, a new ledger's database copied from `template`, then each of `then` run in it by psql. */
export interface DatabaseCopy {
  template?: string
  then?: string[]
}

/** A new database of this process's (dropped with the others), empty or copied (DatabaseCopy). Its name. */
function createTestDatabase(opts: DatabaseCopy): string {
  const database = testDatabaseName()
  made.add(database)
  const copy = opts.template ? ` TEMPLATE ${opts.template}` : ''
  const then = opts.then?.length ? [`\\c ${database}`, ...opts.then] : []
  runServerSql(`CREATE DATABASE ${database}${copy}`, then)
  return database
}

/** A database that stays after the run (a template, test/integration/pg-template.ts); its URL. */
export function createLastingDatabase(database: string): string {
  runSql(testServerUrl(), `CREATE DATABASE ${database}`)
  return databaseUrl(testServerUrl(), database)
}

export function databaseExists(database: string): boolean {
  return runSql(testServerUrl(), `SELECT 1 FROM pg_database WHERE datname = '${database}'`).trim() === '1'
}

/** Drops a database made by createLastingDatabase. */
export function dropLastingDatabase(database: string): void {
  dropDatabase(testServerUrl(), database)
}

/**
 * A fresh ledger copied from a template database (CREATE DATABASE … TEMPLATE, no connection to
 * the template may be open), its key file copied to `<dir>/<name>.key` and the audit checkpoint
 * beside it; dropped as the others.
 */
export function copyTestLedger(
  template: { database: string; keyFile: string },
  dir: string,
  name = 'ledger',
): TestLedgerLocation {
  const database = testDatabaseName()
  runSql(testServerUrl(), `CREATE DATABASE ${database} TEMPLATE ${template.database}`)
  made.add(database)
  const keyFile = join(dir, `${name}.key`)
  copyFileSync(template.keyFile, keyFile)
  // the audit checkpoint of a team ledger is kept beside its key file (checkpoint.ts)
  const checkpoint = `${template.keyFile}.audit-checkpoint`
  if (existsSync(checkpoint)) copyFileSync(checkpoint, `${keyFile}.audit-checkpoint`)
  return { location: databaseUrl(testServerUrl(), database), keyFile }
}

/** The CLI's arguments naming a ledger: --db, and --key-file where there is one. */
export function ledgerArgs(l: TestLedgerLocation): string[] {
  return l.keyFile ? ['--db', l.location, '--key-file', l.keyFile] : ['--db', l.location]
}

/** The databases this process made and has not dropped yet. */
export function testLedgersMade(): string[] {
  return [...made]
}

/**
 * Drops the database at `location` now, if this process made it (a fixture closing its ledger;
 * a location that is a file, or not one of ours, is left alone). Its connections must be closed.
 */
export function dropTestLedger(location: string): void {
  if (!location.startsWith('postgres')) return
  const database = decodeURIComponent(new URL(location).pathname.slice(1))
  if (!made.has(database)) return
  dropDatabase(testServerUrl(), database)
  made.delete(database)
}

/** Drops every database this process made (their connections ended first). */
export function dropTestLedgers(): void {
  if (made.size === 0) return
  const server = testServerUrl()
  const errors: string[] = []
  for (const database of [...made]) {
    try {
      dropDatabase(server, database)
      made.delete(database)
    } catch (e) {
      errors.push(`${database}: ${(e as Error).message}`)
    }
  }
  if (errors.length) throw new Error(`could not drop the test databases:\n${errors.join('\n')}`)
}

/**
 * Drops the test databases of processes that no longer run (a run that crashed before its
 * afterAll). Databases of live processes, other vitest workers among them, are left alone.
 */
export function dropOrphanTestLedgers(isAlive: (pid: number) => boolean = processIsAlive): string[] {
  const server = testServerUrl()
  const names = runSql(server, `SELECT datname FROM pg_database WHERE starts_with(datname, '${PREFIX}')`)
    .split('\n')
    .filter(Boolean)
  const orphans = names.filter((n) => {
    const pid = ownerPid(n)
    return pid !== null && pid !== process.pid && !isAlive(pid)
  })
  for (const n of orphans) dropDatabase(server, n)
  return orphans
}

/** The pid in a test database's name, or null for a name that is not one of ours. */
export function ownerPid(database: string): number | null {
  const m = new RegExp(`^${PREFIX}(\\d+)_\\d+_[0-9a-f]+$`).exec(database)
  return m ? Number(m[1]) : null
}

/**
 * Whether the test server answers; when it does not, an error that says how to start one. The
 * postgres project fails with it (test/support/engine-setup.ts) rather than skip its tests.
 */
export function checkTestServer(): void {
  const server = testServerUrl()
  const r = spawnSync('psql', [server, '-XAtqc', 'SELECT 1'], { encoding: 'utf8', timeout: 15_000 })
  if (r.status === 0 && r.stdout.trim() === '1') return
  const why = r.error ? r.error.message : (r.stderr || r.stdout).trim() || `psql ended with ${r.status ?? r.signal}`
  throw new Error(
    [
      `The PostgreSQL tests (CARATS_TEST_ENGINE=postgres) need a server, and ${server} does not answer: ${why}`,
      'Start one (Debian): apt-get install -y postgresql && pg_ctlcluster <version> main start',
      '  (version: the folder in /etc/postgresql), then as the postgres user: createuser -s <you>',
      'or point CARATS_TEST_PG at a server where you may create databases;',
      'or run the SQLite tests alone: npm run test:sqlite',
    ].join('\n'),
  )
}

function dropDatabase(server: string, database: string): void {
  // WITH (FORCE) ends the connections a test left open (a worker thread's, a killed child's)
  runSql(server, `DROP DATABASE IF EXISTS ${database} WITH (FORCE)`)
}

/** `sql` run by psql on the test server, then each of `more` (a meta-command such as \c among them). */
export function runServerSql(sql: string, more: string[] = []): string {
  return runSql(testServerUrl(), sql, more)
}

function runSql(server: string, sql: string, more: string[] = []): string {
  try {
    const commands = [sql, ...more].flatMap((c) => ['-c', c])
    return execFileSync('psql', [server, '-XAtq', '-v', 'ON_ERROR_STOP=1', ...commands], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 60_000,
    })
  } catch (e) {
    const err = e as { stderr?: string; message: string }
    throw new Error(`psql ${server} -c "${sql}" failed: ${(err.stderr ?? '').trim() || err.message}`)
  }
}
