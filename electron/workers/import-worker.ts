/**
 * Worker thread: imports one sales feed (services/import.ts) through a connection of its own to
 * the ledger, so that the app's thread stays free while a large file is read, checked and
 * written. Started by import-runner.ts, once per file.
 */
import { parentPort, workerData } from 'node:worker_threads'
import { createImporter } from '../services/import'
import type { ImportWorkerData, ImportWorkerMessage } from './import-runner'
import { provideWorkerEntries } from './entry'
import { openWorkerLedger, postedError, type WorkerLedger } from './worker-ledger'

const data = workerData as ImportWorkerData
const post = (m: ImportWorkerMessage) => parentPort!.postMessage(m)

provideWorkerEntries({ 'feed-reader-worker': data.readerEntry })

let ledger: WorkerLedger | null = null
try {
  // the app's clock, as it read when the import was asked for
  ledger = openWorkerLedger(data.dbPath, () => new Date(data.now))
  const importer = createImporter(ledger)
  post({ type: 'done', result: importer.importContent(data.actor, data.content, data.fileName) })
} catch (e) {
  post(postedError(e))
} finally {
  ledger?.close()
  parentPort!.close()
}
