/**
 * Worker thread: sells a simulation (services/simulator sellDrafts) through a connection of its own to
 * the ledger, so that the app's thread stays free and each transaction can be big. Its drafts are
 * made meanwhile by a further worker (sales-worker.ts). See simulate-seller.ts.
 */
import { parentPort, workerData } from 'node:worker_threads'
import { leaseBeater } from '../services/leases'
import { sellDrafts, workerDrafts, type SimulateWorkerData, type SimulateWorkerMessage } from '../services/simulator'
import { openWorkerLedger, postedError, type WorkerLedger } from '../app/worker-ledger'

const data = workerData as SimulateWorkerData
const post = (m: SimulateWorkerMessage) => parentPort!.postMessage(m)
const cancel = new AbortController()
parentPort!.on('message', (m: unknown) => {
  if (m === 'cancel') cancel.abort()
})

async function main(): Promise<void> {
  let ledger: WorkerLedger | null = null
  try {
    ledger = openWorkerLedger(data.ledger, () => new Date())
    // the lease is beaten here, on the connection that sells, not by the app's (leases.ts leaseBeater)
    const lease = data.job.lease
    await sellDrafts(ledger.sales, workerDrafts(data.job.gen, data.draftsEntry), data.job, {
      signal: cancel.signal,
      beat: lease ? leaseBeater(ledger.db, lease, () => Date.now()) : undefined,
      progress: (sold, run) => post({ type: 'progress', sold, run }),
    })
    post({ type: 'done' })
  } catch (e) {
    post(postedError(e))
  } finally {
    ledger?.close()
    parentPort!.close()
  }
}

void main()
