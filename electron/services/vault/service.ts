/**
 * The ledger's vault (README.md beside this file): attached once to a folder, from then on fed
 * every event the ledger commits, in order, by whichever process holds the vault's writer lock:
 * the app in rounds (startShipping), a command of the command line at its end (drain).
 */
import { resolve } from 'node:path'
import { AppError, because } from '../../contract/errors'
import type {
  CsvFile,
  Page,
  ReconciliationReport,
  VaultComparison,
  VaultEventView,
  VaultStatus,
  VaultVerification,
} from '../../contract/types'
import type { Db } from '../../ledger/db'
import type { KeyStore } from '../../ledger/keystore'
import { readMeta, writeMeta } from '../../ledger/meta'
import type { AuditService } from '../audit'
import { type Clock, iso } from '../common'
import { limitedLog } from '../log-limit'
import { compareWithVault } from './compare'
import { logProblem } from './follows'
import { type Resumption, VAULT_FORMAT } from './format'
import { prepareVaultFolder, readDescription, readVaultState, type VaultState } from './folder'
import { lockHolder } from './lock'
import { createShipper, type Shipper } from './shipper'
import { vaultSigner, type VaultSigner } from './signer'
import { vaultSources } from './sources'
import { nextWait } from './pace'
import { reconcileDay } from './reconcile'
import { daysFile, listVaultEvents, type EventQuery } from './events'
import { verifyVault } from './verify'
import { daySources, sealOf } from './day-sources'

/** How long a round of the app's sends for at most, and how often it runs. */
export const SHIP_ROUND_MS = 40
export const SHIP_INTERVAL_MS = 1_000

export interface VaultService {
  /** Gives the ledger its vault (once: a vault is never detached), audited; the folder is made or found. */
  attach(actor: string, folder: string): VaultStatus
  status(): VaultStatus
  /** One round of sends (up to `budgetMs`); the events sent. Throws when the vault cannot be written. */
  ship(budgetMs?: number): number
  /** Sends everything the ledger holds and the vault lacks (a command's end); the events sent. */
  drain(): number
  /** Rounds every SHIP_INTERVAL_MS, until stopShipping (the app). */
  startShipping(intervalMs?: number): void
  stopShipping(): void
  /**
   * After the ledger's log was cut or rewritten below the vault (a backup older than the vault put
   * back): the vault records who, why and from where, and the log is sent again; audited.
   */
  resume(actor: string, reason: string): { resumption: Resumption; status: VaultStatus }
  /** The ledger held against its vault (null: none attached). */
  compare(): VaultComparison | null
  /** The vault checked from its files and its key (verify.ts). */
  verify(): VaultVerification
  /** The events the vault received on a day, filtered, a page at a time (events.ts). */
  events(q: EventQuery): Page<VaultEventView>
  /** Days of the vault as one JSON-lines file, the download audited. */
  exportDays(actor: string, from: string, to: string): CsvFile
  /** One day's sales: the ledger, the vault and (if given) the platform's feed; the result sealed in the log. */
  reconcile(actor: string, day: string, feed?: { content: string; fileName: string | null }): ReconciliationReport
}

export interface VaultDeps {
  db: Db
  clock: Clock
  keys: KeyStore
  audit: () => AuditService
}

/** The vault's state as its writer last recorded it, when this process does not write it. */
function stateOnDisk(folder: string): { state: VaultState | null; problem: string | null } {
  try {
    return { state: readVaultState(folder), problem: null }
  } catch (e) {
    return { state: null, problem: (e as Error).message }
  }
}

export function createVaultService({ db, clock, keys, audit }: VaultDeps): VaultService {
  const sources = vaultSources(db)
  const ledgerId = readMeta(db, 'ledger_id') ?? ''
  let signer: VaultSigner | null = null
  let shipper: Shipper | null = null
  let problem: VaultStatus['problem'] = null
  let timer: NodeJS.Timeout | null = null

  const folder = () => readMeta(db, 'vault_folder')
  const signerNow = () => (signer ??= vaultSigner(keys, ledgerId))
  const shipperFor = (f: string) => (shipper ??= createShipper(f, sources, signerNow(), clock))

  function ship(budgetMs = SHIP_ROUND_MS): number {
    const f = folder()
    if (f === null) return 0
    try {
      const sent = shipperFor(f).round(budgetMs)
      problem = null
      return sent
    } catch (e) {
      const message = `the vault ${f} cannot be written: ${(e as Error).message}`
      problem ??= { message, since: iso(clock()) }
      problem.message = message
      throw new AppError(
        'ILLEGAL_STATE',
        `${message}; the events wait in the ledger`,
        because('VAULT_UNREACHABLE', { folder: f }),
      )
    }
  }

  function status(): VaultStatus {
    const f = folder()
    const disk = shipper?.writer() || f === null ? null : stateOnDisk(f)
    const state = shipper?.writer()?.state ?? disk?.state ?? null
    const sent = state ?? { audit: null, sales: {} }
    const holder = f === null || shipper?.writer() ? null : lockHolder(f)
    return {
      attached: f !== null,
      folder: f,
      size: state?.size ?? 0,
      signedAt: state?.signedAt ?? null,
      received: {
        sales: Object.values(state?.sales ?? {}).reduce((n, e) => n + e.count, 0),
        entries: state?.audit?.seq ?? 0,
      },
      behind: f === null ? { entries: 0, sales: 0, oldestEntryAt: null } : sources.backlog(sent),
      writtenBy: holder ? `${holder.host} (process ${holder.pid})` : null,
      problem: problem ?? (disk?.problem ? { message: disk.problem, since: iso(clock()) } : null),
      logDiverged: state?.audit ? logProblem(state.audit, sources) : null,
      verifierKey: f === null ? null : signerNow().verifierKey,
    }
  }

  return {
    attach(actor, given) {
      const f = resolve(given)
      const now = folder() ?? sources.attachedFolder() // the log remembers it, should the setting be removed
      if (now !== null && now !== f)
        throw new AppError(
          'CONFLICT',
          `this ledger's vault is ${now}: a vault is never detached nor moved (its events would be split)`,
          because('VAULT_ATTACHED', { folder: now }),
        )
      if (folder() === null) {
        if (keys.problem) throw keys.problem
        const s = signerNow()
        prepareVaultFolder(f, {
          format: VAULT_FORMAT,
          origin: s.origin,
          ledger: ledgerId,
          key: s.verifierKey,
          created: iso(clock()),
        })
        db.transaction(() => {
          writeMeta(db, 'vault_folder', f)
          audit().record(actor, 'vault.attached', `vault:${f}`, { key: s.verifierKey })
        })()
      } else readDescription(f)
      try {
        ship()
      } catch (e) {
        limitedLog('vault', `carats: ${(e as Error).message}`)
      }
      return status()
    },
    status,
    ship,
    drain() {
      let total = 0
      for (let n = ship(1_000); n > 0; n = ship(1_000)) total += n
      return total
    },
    startShipping(intervalMs = SHIP_INTERVAL_MS) {
      if (timer) return
      // paced by pace.ts: at once while a backlog drains, giving way while the ledger is being written
      let behindBefore = 0
      const next = (wait: number) => {
        timer = setTimeout(() => {
          const t = performance.now()
          let sent = 0
          try {
            sent = ship()
          } catch (e) {
            limitedLog('vault', `carats: ${(e as Error).message}`)
          }
          const tookMs = performance.now() - t
          const b = sent > 0 ? status().behind : { entries: 0, sales: 0 }
          const behind = b.entries + b.sales
          const wait = nextWait({ sent, tookMs, behind, behindBefore, intervalMs })
          behindBefore = behind
          if (timer) next(wait)
        }, wait)
        timer.unref()
      }
      next(0)
    },
    stopShipping() {
      if (timer) clearTimeout(timer)
      timer = null
      shipper?.close()
      shipper = null
    },
    resume(actor, reason) {
      const f = attached()
      if (keys.problem) throw keys.problem
      const resumption = shipperFor(f).resume(actor, reason)
      const { received, agreed, ledgerLast } = resumption
      audit().record(actor, 'vault.resumed', `vault:${f}`, { reason, received, agreed, ledgerLast })
      trySend()
      return { resumption, status: status() }
    },
    compare() {
      const f = folder()
      const was = sources.attachedFolder()
      // the setting is written once (its triggers refuse a change): only the database's owner moves it
      const moved =
        was !== null && was !== f ? `the vault attached was ${was}; the ledger now names ${f ?? 'none'}` : null
      if (f === null) return moved ? { folder: was!, size: 0, ok: false, problems: [moved], witnesses: [] } : null
      const c = compareWithVault(f, ledgerId, signerNow(), sources)
      return moved ? { ...c, ok: false, problems: [moved, ...c.problems] } : c
    },
    verify: () => verifyVault(attached(), { key: signerNow().verifierKey }),
    events: (q) => listVaultEvents(attached(), q),
    exportDays(actor, from, to) {
      const file = daysFile(attached(), from, to)
      audit().record(actor, 'vault.exported', `days:${from}..${to}`, { bytes: Buffer.byteLength(file.content) })
      return file
    },
    reconcile(actor, day, feed) {
      const f = attached()
      trySend()
      const report = reconcileDay(day, iso(clock()), daySources(db, f, sources, day, feed))
      const e = audit().record(actor, 'vault.reconciled', `day:${day}`, sealOf(report))
      trySend()
      return { ...report, sealedAs: e.seq }
    },
  }

  /** The vault's folder, or a refusal that says there is none yet. */
  function attached(): string {
    const f = folder()
    if (f === null)
      throw new AppError(
        'ILLEGAL_STATE',
        'this ledger has no vault: attach one (carats vault attach <folder>) first',
        because('VAULT_NONE'),
      )
    return f
  }

  /** Sends what it can now; a vault away is said by the status, the report shows what it lacks. */
  function trySend(): void {
    try {
      ship(1_000)
    } catch (e) {
      limitedLog('vault', `carats: ${(e as Error).message}`)
    }
  }
}
