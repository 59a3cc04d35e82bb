/**
 * Worker thread: the ledger's whole check, or a backup, through a connection of its own, so that
 * the app's thread goes on answering while every sale is read (a whole block: seconds) or the
 * file is copied. Started by ledger-task-runner.ts, once per task; it records the task in the
 * audit log itself, as the command line does.
 */
import { parentPort, workerData } from 'node:worker_threads'
import {
  backupLedger,
  checkLedger,
  checkSummary,
  type LedgerTaskData,
  type LedgerTaskMessage,
} from '../services/ledger-office'
import { provideWorkerEntries } from '../threads/entry'
import { openWorkerLedger, postedError, type WorkerLedger } from '../app/worker-ledger'

const data = workerData as LedgerTaskData
if (data.integrityEntry) provideWorkerEntries({ 'integrity-worker': data.integrityEntry })
const post = (m: LedgerTaskMessage) => parentPort!.postMessage(m)

async function run(ledger: WorkerLedger): Promise<LedgerTaskMessage> {
  if (data.task === 'backup')
    return { type: 'done', task: 'backup', result: await backupLedger(ledger, data.actor, data.dest) }
  const result = await checkLedger(ledger, {
    prizes: data.prizes,
    progress: (done, total) => post({ type: 'progress', done, total }),
  })
  ledger.audit.record(data.actor, 'ledger.check', 'ledger', checkSummary(result))
  return { type: 'done', task: 'check', result }
}

async function main(): Promise<void> {
  let ledger: WorkerLedger | null = null
  try {
    ledger = openWorkerLedger(data.ledger, () => new Date())
    post(await run(ledger))
  } catch (e) {
    post(postedError(e))
  } finally {
    ledger?.close()
    parentPort!.close()
  }
}

void main()
