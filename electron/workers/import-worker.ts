/**
 * Worker thread: imports one sales feed (services/import.ts) through a connection of its own to
 * the ledger, so that the app's thread stays free while a large file is read, checked and
 * written. Started by import-runner.ts, once per file.
 */
import { parentPort, workerData } from 'node:worker_threads'
import { AppError } from '../contract/errors'
import { openLedger, type Db } from '../ledger/db'
import { openKeyStore } from '../ledger/keystore'
import { createAlertsService } from '../services/alerts'
import { createAuditService } from '../services/audit'
import { createCatalog } from '../services/catalog'
import { createImporter } from '../services/import'
import { createSalesService } from '../services/sales'
import type { ImportWorkerData, ImportWorkerMessage } from './import-runner'

const data = workerData as ImportWorkerData
const post = (m: ImportWorkerMessage) => parentPort!.postMessage(m)

let db: Db | null = null
try {
  db = openLedger(data.dbPath, { secondary: true })
  const keys = openKeyStore(data.dbPath)
  // the app's clock, as it read when the import was asked for
  const clock = () => new Date(data.now)
  const audit = createAuditService({ db, clock })
  const catalog = createCatalog({ db, keys })
  const alerts = createAlertsService({ db, clock, audit, catalog })
  const sales = createSalesService({ db, clock, catalog, alerts })
  const importer = createImporter({ db, clock, catalog, sales, audit })
  post({ type: 'done', result: importer.importContent(data.actor, data.content, data.fileName) })
} catch (e) {
  const err = e instanceof AppError ? e : new AppError('INTERNAL', e instanceof Error ? e.message : String(e))
  post({ type: 'error', code: err.code, message: err.message, extras: err.extras })
} finally {
  db?.close()
  parentPort!.close()
}
