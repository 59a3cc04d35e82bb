/**
 * The ledger's own screen behind the contract: where it is, its key, its audit log against the
 * checkpoint, the last whole check and the backups (both read back from the audit log, where the
 * tasks record themselves), and the two tasks, run on a worker thread: an auditor's check, an
 * administrator's backup into the backups folder.
 */
import { mkdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { AppError } from '../../contract/errors'
import type { AuditVerification, JobInfo, LedgerCheckReport, LedgerStatus } from '../../contract/types'
import type { Db } from '../../ledger/db'
import { keyFilePath, type KeyStore } from '../../ledger/keystore'
import { isPostgresUrl } from '../../ledger/location'
import { readMeta } from '../../ledger/meta'
import type { LedgerTaskRunner } from './context'
import { workerLedgerRef } from '../../ledger/worker-ref'
import type { AuditService } from '../audit'
import { type Actor, type Clock, counted, iso } from '../common'
import type { JobRegistry } from '../jobs'

export interface LedgerOffice {
  status(): LedgerStatus
  startCheck(actor: Actor, prizes: boolean): JobInfo
  startBackup(actor: Actor): JobInfo
}

export interface LedgerOfficeDeps {
  db: Db
  dbPath: string
  /** The key file, when given rather than found beside the ledger's file. */
  keyFile?: string
  keys: KeyStore
  audit: AuditService
  jobs: JobRegistry
  clock: Clock
  runTask: LedgerTaskRunner
}

/**
 * Where the app writes its backups: CARATS_BACKUP_DIR, else `backups/` beside the ledger's file,
 * or, for a team ledger (a URL, no file), beside its key file.
 */
export function backupFolder(dbPath: string, keyFile?: string): string {
  if (process.env.CARATS_BACKUP_DIR) return process.env.CARATS_BACKUP_DIR
  return join(dirname(isPostgresUrl(dbPath) ? (keyFile ?? keyFilePath(dbPath)) : dbPath), 'backups')
}

/** A backup's file name: a copy of the SQLite file (.db), or a pg_dump archive of a team ledger (.dump). */
const backupName = (dbPath: string, stamp: string) => `carats-${stamp}.${isPostgresUrl(dbPath) ? 'dump' : 'db'}`

const detailsOf = (e: { details: string }) => JSON.parse(e.details) as Record<string, unknown>

export function createLedgerOffice(deps: LedgerOfficeDeps): LedgerOffice {
  const { audit, jobs } = deps
  let lastReport: LedgerCheckReport | null = null

  function lastEntries(action: 'ledger.check' | 'ledger.backup', n: number) {
    return audit.list({ action, page: 1, pageSize: n }).items.filter((e) => e.action === action)
  }

  function refuseIfRunning(): void {
    const running = jobs.list().find((j) => (j.kind === 'backup' || j.kind === 'ledger-check') && j.state === 'running')
    if (running)
      throw new AppError(
        'CONFLICT',
        `a ${running.kind === 'backup' ? 'backup' : 'ledger check'} is running: wait for it to end`,
      )
  }

  function verification(): AuditVerification | null {
    return deps.keys.problem ? null : audit.verify()
  }

  return {
    status() {
      const check = lastEntries('ledger.check', 1)[0]
      return {
        path: deps.dbPath,
        ledgerId: readMeta(deps.db, 'ledger_id') ?? '',
        keyFingerprint: deps.keys.problem ? null : deps.keys.fingerprint().slice(0, 16),
        keyProblem: deps.keys.problem?.toData() ?? null,
        audit: verification(),
        lastCheck: check
          ? {
              at: check.at,
              actor: check.actor,
              ...(detailsOf(check) as Omit<NonNullable<LedgerStatus['lastCheck']>, 'at' | 'actor'>),
            }
          : null,
        lastReport,
        backups: lastEntries('ledger.backup', 10).map((e) => ({
          at: e.at,
          actor: e.actor,
          ...(detailsOf(e) as Omit<LedgerStatus['backups'][number], 'at' | 'actor'>),
        })),
        backupFolder: backupFolder(deps.dbPath, deps.keyFile),
      }
    },
    startCheck(actor, prizes) {
      refuseIfRunning()
      if (deps.keys.problem) throw deps.keys.problem
      return jobs.start('ledger-check', null, 0, 'checking the ledger', async (ctx) => {
        const r = await deps.runTask(
          { task: 'check', ledger: workerLedgerRef(deps.dbPath, deps.keyFile), actor: actor.name, prizes },
          (done, total) => ctx.progress(done, total, 'checking every sale'),
        )
        lastReport = r
        return r.ok
          ? `the ledger is sound (${r.seconds} s)`
          : `the ledger is NOT sound: ${counted(r.data.problemCount, 'disagreement')}, audit log ${r.audit.ok ? 'ok' : 'failing'}`
      })
    },
    startBackup(actor) {
      refuseIfRunning()
      if (deps.keys.problem) throw deps.keys.problem
      const folder = backupFolder(deps.dbPath, deps.keyFile)
      mkdirSync(folder, { recursive: true })
      const dest = join(folder, backupName(deps.dbPath, iso(deps.clock()).replace(/[:.]/g, '-')))
      return jobs.start('backup', null, 0, `backing up to ${dest}`, async () => {
        const r = await deps.runTask({
          task: 'backup',
          ledger: workerLedgerRef(deps.dbPath, deps.keyFile),
          actor: actor.name,
          dest,
        })
        return r.check.ok
          ? `backed up to ${r.file} and checked`
          : `backed up to ${r.file}, but the copy does not pass its check`
      })
    },
  }
}
