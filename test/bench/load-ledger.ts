/**
 * The load bench's ledger, on either engine: a SQLite file in a temporary folder, or a PostgreSQL
 * database of its own (on CARATS_BENCH_PG, as ledger-engines.ts), dropped at the end. In it: one
 * emission of the real game, its block generated after its key ceremony, verified and opened,
 * with a claim threshold of 100 € (so that a day's sales bring claims to step); the staff's
 * accounts, privileged ones confirmed; and a first day of sales imported, whose units and players
 * the clients look up and whose claims they step.
 */
import { execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Role } from '../../electron/contract/define'
import { openBackend, type Backend } from '../../electron/app/backend'
import { readFeedFile } from '../../electron/services/import'
import { completeCeremony } from '../support/ceremony'
import { DEFAULT_BENCH_PG, type BenchEngine } from './ledger-engines'
import { LOAD_STARTS_ON, writeFeed, type Feed } from './load-feeds'

/** Where the ledger is and how a host opens it. */
export interface LoadLedger {
  engine: BenchEngine
  /** A file path, or a postgresql:// URL. */
  location: string
  /** The key file (beside the file on SQLite). */
  keyFile: string
  /** The temporary folder: the key, the feeds, the SQLite file. */
  dir: string
  /** Removes the folder and drops the database. */
  drop(): void
}

export interface StaffAccount {
  name: string
  role: Role
}

/** What the clients need to know of the ledger they load. */
export interface LoadWorld {
  emission: number
  /** Units of block 1 sold before the clients start: 0 … soldUnits − 1. */
  soldUnits: number
  players: string[]
  /** Serials of the claims waiting for their first step. */
  pendingClaims: string[]
  staff: StaffAccount[]
  operator: StaffAccount
  /** Sales in the ledger before the clients start. */
  sales: number
}

export const LOAD_PASSWORD = 'load bench password'
/** Every prize from 100 € up is claimed in person: about 1 sale in 100 has a claim. */
const CLAIM_THRESHOLD_CENTS = 10_000
const ADMIN = { name: 'ada', role: 'admin' } as const
const FIRST_AUDITOR = { name: 'aude', role: 'auditor' } as const

function psql(server: string, sql: string): void {
  execFileSync('psql', [server, '-XAtq', '-v', 'ON_ERROR_STOP=1', '-c', sql], {
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 120_000,
  })
}

/** A new, empty ledger on `engine`. */
export function newLoadLedger(engine: BenchEngine): LoadLedger {
  const dir = mkdtempSync(join(tmpdir(), `carats-bench-load-${engine}-`))
  const removeDir = () => rmSync(dir, { recursive: true, force: true })
  if (engine === 'sqlite') {
    const location = join(dir, 'ledger.db')
    return { engine, location, keyFile: `${location}.key`, dir, drop: removeDir }
  }
  const server = process.env.CARATS_BENCH_PG?.trim() || DEFAULT_BENCH_PG
  const database = `carats_bench_load_${process.pid}_${randomBytes(3).toString('hex')}`
  try {
    psql(server, `CREATE DATABASE ${database}`)
  } catch (e) {
    removeDir()
    const why = (e as { stderr?: Buffer }).stderr?.toString().trim() || (e as Error).message
    throw new Error(
      `the PostgreSQL half of the load bench needs a server where it may create a database (CARATS_BENCH_PG=${server}): ${why}`,
    )
  }
  const url = new URL(server)
  url.pathname = `/${database}`
  const drop = () => {
    try {
      psql(server, `DROP DATABASE IF EXISTS ${database} WITH (FORCE)`)
    } finally {
      removeDir()
    }
  }
  return { engine, location: url.toString(), keyFile: join(dir, 'ledger.key'), dir, drop }
}

/** An emission of the real game: its key ceremony, its block generated and verified, opened. */
async function openEmission(b: Backend): Promise<number> {
  const s = b.services
  const e = s.emissions.create(ADMIN, {
    blocks: 1,
    startsOn: LOAD_STARTS_ON,
    demo: false,
    claimThresholdCents: CLAIM_THRESHOLD_CENTS,
  })
  completeCeremony(s.ceremony, e.emission, { starter: ADMIN, custodian: FIRST_AUDITOR })
  for (const start of [() => s.emissions.generate(ADMIN, e.emission), () => s.emissions.verify(ADMIN, e.emission)]) {
    const end = await s.jobs.wait(start().id)
    if (end.state !== 'done')
      throw new Error(`the load bench's emission: ${end.kind} ended ${end.state}: ${end.message}`)
  }
  s.emissions.open(ADMIN, e.emission)
  return e.emission
}

/**
 * The clients' roles, in turn: support verifies claims, managers approve them, administrators pay
 * them (or verify), auditors only look things up. Operators import, and are not among them.
 */
const ROLE_TURNS: Role[] = ['support', 'manager', 'admin', 'support', 'auditor']

/**
 * The first administrator and auditor, one account per client (`<role>-<n>`), and the operator
 * who uploads the feeds. Privileged accounts are confirmed by the first auditor, as a second
 * person must before they take a claim's step.
 */
function staffAccounts(b: Backend, clients: number): { staff: StaffAccount[]; operator: StaffAccount } {
  const users = b.services.users
  users.setup(ADMIN.name, LOAD_PASSWORD)
  users.create(ADMIN, { name: FIRST_AUDITOR.name, role: FIRST_AUDITOR.role, password: LOAD_PASSWORD })
  const staff = Array.from({ length: clients }, (_, i) => ({
    name: `${ROLE_TURNS[i % ROLE_TURNS.length]}-${i + 1}`,
    role: ROLE_TURNS[i % ROLE_TURNS.length],
  }))
  const operator: StaffAccount = { name: 'operator-feeds', role: 'operator' }
  for (const a of [...staff, operator]) {
    const made = users.create(ADMIN, { name: a.name, role: a.role, password: LOAD_PASSWORD })
    if (made.awaitingConfirmation) users.confirm(FIRST_AUDITOR, made.id)
  }
  return { staff, operator }
}

/**
 * Fills the new ledger: emission, accounts, and a first day of `firstDay` sales imported as the
 * command line does. The backend is closed again before the host opens the ledger.
 */
export async function fillLoadLedger(ledger: LoadLedger, o: { clients: number; firstDay: number }): Promise<LoadWorld> {
  const b = openBackend({ dbPath: ledger.location, keyFile: ledger.keyFile })
  try {
    const { staff, operator } = staffAccounts(b, o.clients)
    const emission = await openEmission(b)
    const feed: Feed = writeFeed(ledger.dir, { emission, from: 0, count: o.firstDay, day: 0 })
    const r = b.services.importer.importHere(operator, readFeedFile(feed.path), feed.fileName, feed.sha256)
    rmSync(feed.path)
    if (r.imported !== o.firstDay)
      throw new Error(`the load bench's first day imported ${r.imported} of ${o.firstDay} sales`)
    const pendingClaims = b.services.claims.all({ emission, status: 'pending' }).map((c) => c.serial)
    return { emission, soldUnits: feed.to, players: feed.players, pendingClaims, staff, operator, sales: salesCount(b) }
  } finally {
    await b.closeGracefully()
  }
}

function salesCount(b: Backend): number {
  return Number(b.services.db.prepare('SELECT count(*) FROM sales').pluck().get())
}

/** The sales the ledger holds now (the host stopped): nothing lost, nothing half-written. */
export async function countSales(ledger: LoadLedger): Promise<number> {
  const b = openBackend({ dbPath: ledger.location, keyFile: ledger.keyFile })
  try {
    return salesCount(b)
  } finally {
    await b.closeGracefully()
  }
}
