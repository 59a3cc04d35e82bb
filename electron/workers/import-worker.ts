/**
 * Worker thread: imports sales feeds (services/import/importer.ts) through a connection of its own to the
 * ledger, so that the app's thread stays free while a large file is read, checked and written.
 * Started by import/runner.ts, which keeps it for the next import a while: each import is a
 * message, answered in turn; `close` closes the connection and ends the thread.
 */
import { parentPort, workerData } from 'node:worker_threads'
import { AppError } from '../contract/errors'
import {
  createImporter,
  type Importer,
  FeedArrival,
  WriteTurn,
  type ImportJob,
  type ImportWorkerData,
  type ImportWorkerMessage,
} from '../services/import'
import { provideWorkerEntries } from '../threads/entry'
import { openWorkerLedger, postedError, type WorkerLedger } from '../app/worker-ledger'
import { runInBackground } from '../threads/priority'

const data = workerData as ImportWorkerData
const post = (m: ImportWorkerMessage) => parentPort!.postMessage(m)

provideWorkerEntries({ 'feed-reader-worker': data.readerEntry })
// before the threads it starts (its feed reader, its PostgreSQL connection's), which inherit it
runInBackground()

/** The app's clock, as it read when the import being run was asked for. */
let now = Date.now()
let ledger: WorkerLedger | null = null
let importer: Importer | null = null
let opening: unknown = null
try {
  ledger = openWorkerLedger(data.ledger, () => new Date(now))
  importer = createImporter({ ...ledger, ...(data.turn ? { turn: WriteTurn.of(data.turn) } : {}) })
} catch (e) {
  opening = e
}

/** The feed's arrival, when it is an upload still under way. */
function arrivalIn(job: ImportJob): FeedArrival | null {
  return job.arrival ? new FeedArrival(job.arrival, job.content.byteLength) : null
}

function run(job: ImportJob): void {
  now = job.now
  try {
    if (!importer)
      throw opening instanceof AppError
        ? opening
        : new AppError(
            'INTERNAL',
            `the import's worker cannot open the ledger: ${opening instanceof Error ? opening.message : String(opening)}`,
          )
    post({
      id: job.id,
      type: 'done',
      result: importer.importContent(job.actor, job.content, job.fileName, arrivalIn(job), job.sha256 ?? null),
    })
  } catch (e) {
    post({ id: job.id, ...postedError(e) })
  } finally {
    // the audit entries this import wrote, in the checkpoint outside the ledger file
    ledger?.audit.flushCheckpoint()
  }
}

parentPort!.on('message', (m: ImportJob | { type: 'close' }) => {
  if (m.type === 'import') return run(m)
  ledger?.close()
  ledger = null
  importer = null
  opening = new AppError('INTERNAL', "the import's worker was closing: try again")
  parentPort!.close()
})
