/**
 * The backend as one object: the ledger, every service wired to its dependencies, and the
 * contract's dispatcher. The Electron main process, the browser host and the CLI all open it;
 * the CLI calls the services directly, as the operating-system user (`actor`).
 */
import { availableParallelism, homedir, userInfo } from 'node:os'
import { createDispatcher } from '../contract/dispatch'
import type { Envelope } from '../contract/errors'
import { openLedger, type Db } from '../ledger/db'
import { isPostgresUrl } from '../ledger/location'
import { keyFilePath, openLedgerKey, type KeyStore } from '../ledger/keystore'
import { ledgerFailure } from '../ledger/failure'
import {
  verifyBlockInWorkers,
  createCeremonyService,
  createEmissionsService,
  type VerifyBlockFn,
  createPublicationService,
  createVerifications,
} from '../services/emissions'
import { closeImportWorkers, workerImport, writeTurnOf, type WriteTurn, createImporter } from '../services/import'
import { contract } from '../contract'
import type { LedgerUse } from '../contract/define'
import { ReadPool } from './read-pool'
import {
  runLedgerTask,
  createLedgerOffice,
  createLedgerSettingService,
  finishInterruptedRestore,
} from '../services/ledger-office'
import { workerSeller, createSimulator } from '../services/simulator'
import { workerLedgerRef } from '../ledger/worker-ref'
import { createAlertsService } from '../services/alerts'
import { createAuditService } from '../services/audit'
import { createVaultService } from '../services/vault'
import { createCatalog } from '../services/catalog'
import { type Actor, type Clock, systemClock } from '../services/common'
import { createDemoService } from '../services/demo'
import { createClaimFigures, createClaimsService, createRelatedParties } from '../services/claims'
import { type ImporterService, type ReportsService, type SimulatorService } from '../services/extensions'
import { createHandlers } from './handlers'
import { startChangeFeed, type ChangeFeed } from './change-feed'
import type { Services } from './context'
import { createJobRegistry } from '../services/jobs'
import { createLeases } from '../services/leases'
import { userDataDir, type LedgerChoice } from '../ledger/paths'
import { createPlayersService } from '../services/players'
import { createReports } from '../services/reports'
import { createSalesService, createTicketsService } from '../services/sales'
import { createUsersService } from '../services/staff'
import { createTodoService } from '../services/todo'
import { limitedLog } from '../services/log-limit'

export interface BackendOptions {
  dbPath: string
  clock?: Clock
  /** Worker threads for block generation and verification (default: all cores). */
  threads?: number
  /** Who CLI actions are audited as (default: the operating-system user). */
  actorName?: string
  /** Tests may replace the worker pool. */
  verifyBlock?: VerifyBlockFn
  /** The ledger's key file (default: `<ledger>.key`). */
  keyFile?: string
  /** How long a write waits for another process's transaction (default 5 s). */
  busyTimeoutMs?: number
  /** How the app chose its ledger (paths.ts resolveLedger); default: given as --db (the CLI, tests). */
  ledgerChoice?: LedgerChoice
  /**
   * Reading threads that answer the contract's reading calls (app/read-pool.ts): the hosts
   * (Electron, the browser host) have them; 0, the default (the CLI, tests), answers on this thread.
   */
  readThreads?: number
  /** Sends the ledger's events to its vault in rounds while open (the hosts); a command sends them as it closes. */
  sendsToVault?: boolean
  /** Expires the claims past their deadline at opening and daily while open (the hosts; the CLI: `claims expire`). */
  expiresClaims?: boolean
  /** Watches the ledger's changes, from any workstation, for the open screens (the hosts: app/change-feed.ts). */
  watchesChanges?: boolean
}

/**
 * The reading threads of a host: one per core, two to four; CARATS_READ_THREADS=N sets how many
 * (0 to 16; 0: every call answered on the host's thread, as the CLI and the tests do by default).
 */
export const HOST_READ_THREADS = readThreadsWanted(process.env.CARATS_READ_THREADS)

function readThreadsWanted(given: string | undefined): number {
  const n = Number(given)
  if (given !== undefined && /^\d+$/.test(given) && n <= 16) return n
  return Math.min(4, Math.max(2, availableParallelism()))
}

export interface Backend {
  dispatch(channel: string, args: unknown, token: string | null): Promise<Envelope<unknown>>
  services: Services
  /** What changes in the ledger, for the open screens (null: not watched, the CLI and most tests). */
  changes: ChangeFeed | null
  /** The operating-system user, as an administrator: the actor of CLI commands. */
  actor: Actor
  /** Cancels running tasks and closes the ledger. */
  close(): void
  /** Same, after the running tasks have stopped; settled once every thread of this backend has closed its connection. */
  closeGracefully(): Promise<void>
}

/** The ledger as the CLI and the tests give it: named on the command line, the setting in the per-user folder. */
function givenChoice(dbPath: string, keyFile: string | undefined): LedgerChoice {
  const dataDir = userDataDir({ platform: process.platform, env: process.env, home: homedir() })
  return { location: dbPath, source: 'argument', keyFile, keyFileSource: keyFile ? 'argument' : null, dataDir }
}

export function createServices(opts: {
  db: Db
  dbPath: string
  keyFile?: string
  keys: KeyStore
  clock?: Clock
  threads?: number
  verifyBlock?: VerifyBlockFn
  ledgerChoice?: LedgerChoice
}): Services {
  const { db, dbPath, keys, keyFile } = opts
  const clock = opts.clock ?? systemClock
  const catalog = createCatalog({ db, keys })
  const vault = createVaultService({ db, clock, keys, audit: () => audit })
  const audit = createAuditService({ db, clock, keys, dbPath, keyFile, vaultCheck: () => vault.compare() })
  const users = createUsersService({ db, clock, audit })
  const jobs = createJobRegistry({ clock })
  const leases = createLeases({ db, clock, audit })
  const alerts = createAlertsService({ db, clock, audit, catalog })
  const verifications = createVerifications({ db, clock, catalog })
  const ceremony = createCeremonyService({ db, keys, audit, catalog, clock })
  const emissions = createEmissionsService({
    db,
    clock,
    keys,
    audit,
    jobs,
    leases,
    catalog,
    verifications,
    ceremony,
    threads: opts.threads,
    verifyBlock: opts.verifyBlock ?? verifyBlockInWorkers,
  })
  const sales = createSalesService({ db, clock, catalog, alerts })
  const publication = createPublicationService({ db, keys, catalog, ceremony, audit, clock })
  const tickets = createTicketsService({ db, catalog, audit })
  const players = createPlayersService({ db, catalog })
  const parties = createRelatedParties({ db, audit, clock })
  const claims = createClaimsService({
    db,
    clock,
    catalog,
    audit,
    players,
    parties,
    figures: createClaimFigures({ db, catalog }),
  })
  // plugged in from their own modules (simulator*, import*, reports*) as they land
  const simulator: SimulatorService = createSimulator({
    db,
    clock,
    catalog,
    sales,
    audit,
    jobs,
    leases,
    seller: workerSeller(workerLedgerRef(dbPath, keyFile)),
  })
  const here = createImporter({ db, clock, catalog, sales, audit, leases })
  const importer: ImporterService = {
    importContent: workerImport(dbPath, clock, keyFile),
    importHere: (actor, content, fileName, sha256) =>
      here.importContent(actor, content, fileName, null, sha256 ?? null),
    history: here.history,
    reasonsCsv: here.reasonsCsv,
    sampleFeed: here.sampleFeed,
  }
  const reports: ReportsService = createReports({ db, clock, catalog, alerts })
  const demo = createDemoService({ jobs, emissions, simulator })
  const ledger = createLedgerOffice({ db, dbPath, keyFile, keys, audit, jobs, clock, runTask: runLedgerTask })
  const ledgerSetting = createLedgerSettingService({ choice: opts.ledgerChoice ?? givenChoice(dbPath, keyFile), audit })
  return {
    db,
    dbPath,
    clock,
    keys,
    catalog,
    audit,
    users,
    jobs,
    leases,
    alerts,
    emissions,
    ceremony,
    publication,
    verifications,
    sales,
    tickets,
    players,
    simulator,
    importer,
    reports,
    demo,
    ledger,
    parties,
    claims,
    ledgerSetting,
    vault,
    todo: createTodoService({ db, claims, importer }),
  }
}

export function openBackend(opts: BackendOptions): Backend {
  // a team ledger is only opened with its key file at hand (keyFilePath says how to give it)
  if (isPostgresUrl(opts.dbPath)) opts = { ...opts, keyFile: opts.keyFile ?? keyFilePath(opts.dbPath) }
  // a restore killed while it put its copy in place is finished before the ledger is opened (ledger-office/restore.ts)
  else finishInterruptedRestore(opts.dbPath)
  const db = openLedger(opts.dbPath, { busyTimeoutMs: opts.busyTimeoutMs })
  let services: Services
  try {
    const keys = openLedgerKey(db, opts.dbPath, { keyFile: opts.keyFile })
    services = createServices({
      db,
      dbPath: opts.dbPath,
      keyFile: opts.keyFile,
      keys,
      clock: opts.clock,
      threads: opts.threads,
      verifyBlock: opts.verifyBlock,
      ledgerChoice: opts.ledgerChoice,
    })
    services.emissions.recoverInterrupted()
    if (opts.sendsToVault) services.vault.startShipping()
  } catch (e) {
    db.close()
    throw e
  }
  const dispatcher = createDispatcher(
    createHandlers(services),
    (token) => services.users.resolve(token),
    (c, e) => limitedLog(`unexpected:${c}`, `[${c}]`, e),
    ledgerFailure,
  )
  let closed = false
  const stopExpiry = opts.expiresClaims ? startExpiryPasses(services) : () => {}
  const turn = writeTurnOf(opts.dbPath)
  const pool = opts.readThreads ? new ReadPool(workerLedgerRef(opts.dbPath, opts.keyFile), opts.readThreads) : null
  const changes = opts.watchesChanges ? startChangeFeed(workerLedgerRef(opts.dbPath, opts.keyFile)) : null
  const onHost = (channel: string, args: unknown, token: string | null) =>
    inTurn(turn, channel, () => dispatcher.dispatch(channel, args, token))
  return {
    dispatch(channel, args, token) {
      const use = useOf(channel)
      const answer =
        pool === null || !answeredApart(use, turn)
          ? onHost(channel, args, token)
          : answerApart(pool, services, { channel, args, token, writes: use === 'writes' })
      // what a call wrote here reaches the screens at once, not at the watch's next round
      if (changes !== null && mayWrite(use))
        void answer.then(
          () => changes.nudge(),
          () => changes.nudge(),
        )
      return answer
    },
    services,
    changes,
    actor: { name: opts.actorName ?? osUserName(), role: 'admin' },
    close() {
      if (closed) return
      closed = true
      stopExpiry()
      void changes?.close()
      void pool?.close()
      // its leases are dead from now on: another backend takes its jobs over (leases.ts)
      services.leases.close()
      void services.jobs.shutdown()
      void closeImportWorkers(opts.dbPath)
      services.vault.stopShipping()
      services.audit.flushCheckpoint()
      db.close()
    },
    async closeGracefully() {
      if (closed) return
      await services.jobs.shutdown()
      closed = true
      stopExpiry()
      const threads = Promise.all([pool?.close(), changes?.close(), closeImportWorkers(opts.dbPath)])
      sendLast(services)
      services.leases.close()
      services.audit.flushCheckpoint()
      db.close()
      // over once the threads have closed their connections too
      await threads
    },
  }
}

const DAY_MS = 86_400_000

/** The claims' expiry pass (services/claims/expiry.ts) at opening, then daily while the host runs. */
function startExpiryPasses(services: Services): () => void {
  const pass = () => {
    try {
      services.claims.expire({ name: 'system', role: 'admin' })
    } catch (e) {
      limitedLog(
        'expiry',
        'carats: the claims expiry pass failed (it runs again tomorrow; or `carats claims expire`):',
        e,
      )
    }
  }
  pass()
  const timer = setInterval(pass, DAY_MS)
  timer.unref()
  return () => clearInterval(timer)
}

/** What the ledger holds and its vault lacks, sent before the ledger closes (a command's writes reach the vault). */
function sendLast(services: Services): void {
  try {
    services.vault.drain()
  } catch (e) {
    limitedLog('vault', `carats: ${(e as Error).message}`)
  } finally {
    services.vault.stopShipping()
  }
}

/**
 * Whether a thread of the pool answers the call: a reading call always; a writing call that needs
 * nothing of the host's memory on a team ledger, whose writers go side by side (on SQLite, writers
 * take turns, and the host's turn is the one that never waits inside SQLite: inTurn).
 */
function answeredApart(use: LedgerUse | undefined, turn: WriteTurn | null): boolean {
  return use === 'reads' || (use === 'writes' && turn === null)
}

/**
 * A call answered by a thread of the pool: the host's thread looks the session up in its memory
 * only, the thread checks the account and answers; an account found unsound, or a sign-out, ends
 * the session.
 */
async function answerApart(
  pool: ReadPool,
  services: Services,
  c: { channel: string; args: unknown; token: string | null; writes: boolean },
): Promise<Envelope<unknown>> {
  const { channel, args, token } = c
  const userId = services.users.sessionUserId(token)
  const session = userId === null || token === null ? null : { userId, token }
  const answer = await pool.call(channel, args, session, services.clock().getTime(), c.writes)
  if (answer.sessionEnded && token !== null) services.users.endSession(token)
  return answer.envelope
}

/**
 * A call that may write a SQLite ledger waits for its turn (import/write-turn.ts) without holding up the
 * host: never in SQLite's busy handler behind an import. Reading calls and the import go straight on.
 */
async function inTurn<T>(turn: WriteTurn | null, channel: string, call: () => Promise<T>): Promise<T> {
  if (turn === null || !mayWrite(useOf(channel))) return call()
  const giveBack = await turn.enter()
  try {
    return await call()
  } finally {
    giveBack()
  }
}

/** Whether a call of this use may write the ledger on the host's thread (then, on SQLite, in the turn). */
const mayWrite = (use: LedgerUse | undefined) => use === undefined || use === 'writes'

/** How a channel uses the ledger (contract/define.ts); an unknown channel is refused on the host's thread. */
function useOf(channel: string): LedgerUse | undefined {
  return Object.hasOwn(contract, channel) ? contract[channel as keyof typeof contract].ledger : 'host-reads'
}

function osUserName(): string {
  try {
    return `os:${userInfo().username}`
  } catch {
    return `os:${process.env.USER ?? process.env.USERNAME ?? 'unknown'}`
  }
}
