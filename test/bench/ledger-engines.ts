/**
 * The ledger benchmark on both engines: a fresh ledger on each (a SQLite file in a temporary
 * folder; a PostgreSQL database of the bench's own on the server CARATS_BENCH_PG names, dropped
 * after), the figures of both side by side with their ratio, and a timer of PostgreSQL statements
 * to say where a missed target's time goes.
 */
import { execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Db } from '../../electron/ledger/db'
import { openLedgerFixture, type LedgerFixture } from '../support/simulator-world'
import { fmt } from './stats'

export type BenchEngine = 'sqlite' | 'postgres'
export const DEFAULT_BENCH_PG = 'postgresql:///postgres?host=/var/run/postgresql'

/** One measurement: a number with its unit; `better` says which way is good, for the target. */
export interface Figure {
  name: string
  value: number
  unit?: 'ms' | 's' | 'B'
  digits?: number
  /** The issue's target, as text, and whether the figure meets it. */
  target?: string
  meets?: (v: number) => boolean
}

function psql(server: string, sql: string): void {
  execFileSync('psql', [server, '-XAtq', '-v', 'ON_ERROR_STOP=1', '-c', sql], {
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 120_000,
  })
}

/** A fresh ledger on `engine`, its services wired as the app wires them (workers on). */
export function benchFixture(engine: BenchEngine): LedgerFixture {
  if (engine === 'sqlite')
    return openLedgerFixture({ workers: true, path: join(mkdtempSync(join(tmpdir(), 'carats-bench-')), 'ledger.db') })
  const server = process.env.CARATS_BENCH_PG?.trim() || DEFAULT_BENCH_PG
  const database = `carats_bench_${process.pid}_${randomBytes(3).toString('hex')}`
  try {
    psql(server, `CREATE DATABASE ${database}`)
  } catch (e) {
    const why = (e as { stderr?: Buffer }).stderr?.toString().trim() || (e as Error).message
    throw new Error(
      `the PostgreSQL half of the ledger bench needs a server where it may create a database (CARATS_BENCH_PG=${server}): ${why}`,
    )
  }
  const url = new URL(server)
  url.pathname = `/${database}`
  const keyDir = mkdtempSync(join(tmpdir(), 'carats-bench-key-'))
  const f = openLedgerFixture({ workers: true, path: url.toString(), keyFile: join(keyDir, 'ledger.key') })
  return {
    ...f,
    close() {
      f.close()
      psql(server, `DROP DATABASE IF EXISTS ${database} WITH (FORCE)`)
      rmSync(keyDir, { recursive: true, force: true })
    },
  }
}

/** The ledger's bytes in use: SQLite's pages in use, PostgreSQL's database size. */
export function ledgerBytes(engine: BenchEngine, db: Db): number {
  if (engine === 'postgres') return db.prepare('SELECT pg_database_size(current_database())').pluck().get() as number
  db.pragma('wal_checkpoint(TRUNCATE)')
  const pageSize = db.pragma('page_size', { simple: true }) as number
  return (
    ((db.pragma('page_count', { simple: true }) as number) -
      (db.pragma('freelist_count', { simple: true }) as number)) *
    pageSize
  )
}

/**
 * Times each statement a PostgreSQL connection runs while `fn` runs (PgDb.query wrapped), and
 * prints the few that took the most time: where a missed target's milliseconds go.
 */
export function timeStatements<R>(engine: BenchEngine, db: Db, label: string, fn: () => R): R {
  if (engine !== 'postgres') return fn()
  const pg = db as unknown as { query: (text: string, values: unknown[], array: boolean) => unknown }
  const original = pg.query
  const spent = new Map<string, { n: number; ms: number }>()
  pg.query = function (this: unknown, text, values, array) {
    const t = performance.now()
    try {
      return original.call(this, text, values, array)
    } finally {
      const s = spent.get(text) ?? { n: 0, ms: 0 }
      s.n++
      s.ms += performance.now() - t
      spent.set(text, s)
    }
  }
  try {
    return fn()
  } finally {
    pg.query = original
    const top = [...spent.entries()].sort((a, b) => b[1].ms - a[1].ms).slice(0, 4)
    process.stderr.write(`  statements of ${label} on PostgreSQL (total ms, calls, ms each):\n`)
    for (const [sql, s] of top)
      process.stderr.write(
        `    ${fmt(s.ms, 1).padStart(10)} ${String(s.n).padStart(6)} ${fmt(s.ms / s.n, 3).padStart(8)}  ${sql.replace(/\s+/g, ' ').slice(0, 110)}\n`,
      )
  }
}

const shown = (f: Figure | undefined): string =>
  f ? `${fmt(f.value, f.digits ?? 0)}${f.unit ? ` ${f.unit}` : ''}` : '—'
const verdict = (f: Figure | undefined): string => (f?.meets ? (f.meets(f.value) ? ' ok' : ' MISSED') : '')

/** The two engines' figures side by side, matched by name, with PostgreSQL / SQLite. */
export function printSideBySide(title: string, sqlite: Figure[], postgres: Figure[]): string {
  const pg = new Map(postgres.map((f) => [f.name, f]))
  const names = [
    ...sqlite.map((f) => f.name),
    ...postgres.map((f) => f.name).filter((n) => !sqlite.some((f) => f.name === n)),
  ]
  const lite = new Map(sqlite.map((f) => [f.name, f]))
  const out = [
    `\n## ${title}`,
    '',
    '| measurement | SQLite | PostgreSQL | PostgreSQL / SQLite | target |',
    '|---|--:|--:|--:|---|',
  ]
  for (const name of names) {
    const a = lite.get(name)
    const b = pg.get(name)
    const ratio = a && b && a.value !== 0 ? `${fmt(b.value / a.value, 2)}×` : ''
    const target = (a ?? b)?.target ?? ''
    out.push(`| ${name} | ${shown(a)}${verdict(a)} | ${shown(b)}${verdict(b)} | ${ratio} | ${target} |`)
  }
  const text = out.join('\n')
  console.log(text)
  return text
}
