/**
 * Worker thread: watches the ledger's audit log for a host (app/change-feed.ts) and posts the
 * changes of each new entry (services/changes), every `intervalMs`. It has a connection of its own,
 * so a slow or lost team ledger never holds up the host's thread; a read that fails is tried again
 * at the next round (a team ledger's connection heals itself, ledger/pg/pg-db.ts).
 */
import { parentPort, workerData } from 'node:worker_threads'
import { openLedger, type Db } from '../ledger/db'
import { provideBridgeEntry } from '../ledger/worker-ref'
import { auditHead, changesAfter } from '../services/changes'
import type { WatchMessage, WatchWorkerData } from '../app/change-feed'

const data = workerData as WatchWorkerData
const post = (m: WatchMessage) => parentPort!.postMessage(m)
let db: Db | null = null
let timer: NodeJS.Timeout | undefined
let last = data.after ?? 0

function round(): void {
  try {
    const { last: read, changes } = changesAfter(db!, last)
    last = read
    if (changes.length > 0) post({ type: 'changes', last, changes })
  } catch (e) {
    post({ type: 'trouble', message: e instanceof Error ? e.message : String(e) })
  }
  timer = setTimeout(round, data.intervalMs)
}

function close(): void {
  clearTimeout(timer)
  db?.close()
  db = null
  parentPort!.close()
}

try {
  provideBridgeEntry(data.ledger)
  db = openLedger(data.ledger.dbPath, { secondary: true })
  if (data.after === null) last = auditHead(db)
  post({ type: 'ready', last })
  timer = setTimeout(round, data.intervalMs)
} catch (e) {
  post({ type: 'failed', message: e instanceof Error ? e.message : String(e) })
  close()
}

parentPort!.on('message', (m: { type: 'close' | 'now' }) => {
  if (m.type === 'close') close()
  // a call that may have written was just answered on this host: read now rather than at the round
  else if (m.type === 'now' && db !== null) {
    clearTimeout(timer)
    round()
  }
})
