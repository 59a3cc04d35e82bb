/**
 * The services a worker thread writes through: a connection of its own to the ledger (opened as
 * a second connection: no second integrity check, the schema already the latest) and the sales
 * service over it, as simulate-worker.ts and import-worker.ts both need them.
 */
import { AppError } from '../contract/errors'
import { openLedger, type Db } from '../ledger/db'
import { provideBridgeEntry, type WorkerLedgerRef } from '../ledger/worker-ref'
import { openLedgerKey, type KeyStore } from '../ledger/keystore'
import { createAlertsService } from '../services/alerts'
import { createAuditService, type AuditService } from '../services/audit'
import { createCatalog, type Catalog } from '../services/catalog'
import type { Clock } from '../services/common'
import { createSalesService, type SalesService } from '../services/sales'

export interface WorkerLedger {
  db: Db
  dbPath: string
  keys: KeyStore
  clock: Clock
  audit: AuditService
  catalog: Catalog
  sales: SalesService
  /** Brings the audit checkpoint up to the entries this worker wrote, then closes the connection. */
  close(): void
}

/** Opens the ledger for a worker; the caller closes it (`close`). */
export function openWorkerLedger(ref: WorkerLedgerRef, clock: Clock): WorkerLedger {
  const { dbPath, keyFile } = ref
  provideBridgeEntry(ref)
  const db = openLedger(dbPath, { secondary: true })
  try {
    const keys = openLedgerKey(db, dbPath, { secondary: true, keyFile })
    const audit = createAuditService({ db, clock, keys, dbPath, keyFile })
    const catalog = createCatalog({ db, keys })
    const alerts = createAlertsService({ db, clock, audit, catalog })
    const sales = createSalesService({ db, clock, catalog, alerts })
    const close = () => {
      audit.flushCheckpoint()
      db.close()
    }
    return { db, dbPath, keys, clock, audit, catalog, sales, close }
  } catch (e) {
    db.close()
    throw e
  }
}

/** A worker's failure as it posts it to the thread that started it: an AppError's code, message and extras. */
export function postedError(e: unknown): {
  type: 'error'
  code: AppError['code']
  message: string
  extras: AppError['extras']
} {
  const err = e instanceof AppError ? e : new AppError('INTERNAL', e instanceof Error ? e.message : String(e))
  return { type: 'error', code: err.code, message: err.message, extras: err.extras }
}
