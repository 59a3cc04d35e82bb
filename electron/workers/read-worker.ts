/**
 * Worker thread: answers a host's reading calls (read-pool.ts) through a connection of its own to
 * the ledger, with the services and the contract's dispatcher as the host has them. The caller
 * comes resolved from the host (which holds the sessions), the clock's reading with each call.
 */
import { parentPort, workerData } from 'node:worker_threads'
import { createDispatcher, type Caller, type Dispatcher } from '../contract/dispatch'
import { AppError } from '../contract/errors'
import { openLedger, type Db } from '../ledger/db'
import { openLedgerKey } from '../ledger/keystore'
import { createServices, type Services } from '../services/backend'
import { createHandlers } from '../services/handlers'
import { limitedLog } from '../services/log-limit'
import { provideWorkerEntries } from './entry'
import type { ReadAnswer, ReadCall, ReadWorkerData } from './read-pool'

const data = workerData as ReadWorkerData
const post = (m: ReadAnswer) => parentPort!.postMessage(m)
if (data.ledger.bridgeEntry) provideWorkerEntries({ 'pg-bridge-worker': data.ledger.bridgeEntry })

/** The host's clock and caller, as they were when the call being answered was sent. */
let now = Date.now()
let caller: Caller | null = null
let db: Db | null = null
let services: Services | null = null
let dispatcher: Dispatcher | null = null
let opening: unknown = null

try {
  const { dbPath, keyFile } = data.ledger
  db = openLedger(dbPath, { secondary: true })
  const keys = openLedgerKey(db, dbPath, { secondary: true, keyFile })
  services = createServices({ db, dbPath, keyFile, keys, clock: () => new Date(now) })
  const onUnexpected = (c: string, e: unknown) => limitedLog(`unexpected:${c}`, `[${c}]`, e)
  dispatcher = createDispatcher(createHandlers(services), () => caller, onUnexpected)
} catch (e) {
  opening = e
  db?.close()
  db = null
}

function openingError(): AppError {
  if (opening instanceof AppError) return opening
  const why = opening instanceof Error ? opening.message : String(opening)
  return new AppError('INTERNAL', `a reading thread cannot open the ledger: ${why}`)
}

async function answer(call: ReadCall): Promise<void> {
  if (!dispatcher) return post({ id: call.id, envelope: { ok: false, error: openingError().toData() } })
  now = call.now
  caller = call.caller
  try {
    post({ id: call.id, envelope: await dispatcher.dispatch(call.channel, call.args, call.caller?.token ?? null) })
  } finally {
    // an unsold ticket's inspection writes an audit entry: into the checkpoint outside the ledger file
    services?.audit.flushCheckpoint()
  }
}

/** Calls are answered one after the other: each reads through the one connection. */
let queue = Promise.resolve()

parentPort!.on('message', (m: ReadCall | { type: 'close' }) => {
  if (m.type === 'call') {
    queue = queue.then(() => answer(m)).catch((e) => post({ id: m.id, envelope: { ok: false, error: new AppError('INTERNAL', String(e)).toData() } }))
    return
  }
  void queue.then(() => {
    services?.leases.close()
    services?.audit.flushCheckpoint()
    db?.close()
    db = null
    dispatcher = null
    opening = new AppError('INTERNAL', 'the reading thread was closing: try again')
    parentPort!.close()
  })
})
