/**
 * Worker thread: answers a host's reading calls, and a team ledger's writing calls that need
 * nothing of the host's memory (read-pool.ts), through a connection of its own to the ledger, with
 * the services and the contract's dispatcher as the host has them. The session comes from the host
 * (which holds the sessions), the clock's reading with each call; the account is checked here.
 */
import { parentPort, workerData } from 'node:worker_threads'
import { createDispatcher, type Caller, type Dispatcher } from '../contract/dispatch'
import { AppError } from '../contract/errors'
import { openLedger, type Db } from '../ledger/db'
import { openLedgerKey } from '../ledger/keystore'
import { ledgerFailure } from '../ledger/failure'
import { createServices } from '../app/backend'
import type { Services } from '../app/context'
import { createHandlers } from '../app/handlers'
import { limitedLog } from '../services/log-limit'
import { provideWorkerEntries } from '../threads/entry'
import type { CallSession, ReadAnswer, ReadCall, ReadWorkerData } from '../app/read-pool'

const data = workerData as ReadWorkerData
const post = (m: ReadAnswer) => parentPort!.postMessage(m)
if (data.ledger.bridgeEntry) provideWorkerEntries({ 'pg-bridge-worker': data.ledger.bridgeEntry })

/** The host's clock and the caller's session, as they were when the call being answered was sent. */
let now = Date.now()
let session: CallSession | null = null
/** whether the session's account was found unsound while answering (the host then ends it) */
let sessionEnded = false
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
  dispatcher = createDispatcher(createHandlers(services), () => callerOfSession(services!), onUnexpected, ledgerFailure)
} catch (e) {
  opening = e
  db?.close()
  db = null
}

/** The caller as the ledger holds the account of the session the host sent, or null. */
function callerOfSession(s: Services): Caller | null {
  if (session === null) return null
  const caller = s.users.callerFor(session.userId, session.token)
  if (caller === null) sessionEnded = true
  return caller
}

function openingError(): AppError {
  if (opening instanceof AppError) return opening
  const why = opening instanceof Error ? opening.message : String(opening)
  return new AppError('INTERNAL', `a reading thread cannot open the ledger: ${why}`)
}

async function answer(call: ReadCall): Promise<void> {
  if (!dispatcher || !services) return post({ id: call.id, envelope: { ok: false, error: openingError().toData() } })
  now = call.now
  session = call.session
  sessionEnded = false
  // the host's session, held for this call only: a sign-out ends it here, and the host forgets it
  if (session) services.users.lendSession(session.userId, session.token)
  let envelope
  try {
    envelope = await dispatcher.dispatch(call.channel, call.args, call.session?.token ?? null)
  } finally {
    // the loan given back: a session no longer held was ended by the call
    if (session && !services.users.endSession(session.token)) sessionEnded = true
    // an audit entry written here (an unsold ticket's inspection, a claim's step) goes into the
    // checkpoint outside the ledger file
    services.audit.flushCheckpoint()
  }
  post({ id: call.id, envelope, sessionEnded })
}

/** Calls are answered one after the other: each reads through the one connection. */
let queue = Promise.resolve()

parentPort!.on('message', (m: ReadCall | { type: 'close' }) => {
  if (m.type === 'call') {
    queue = queue
      .then(() => answer(m))
      .catch((e) => post({ id: m.id, envelope: { ok: false, error: new AppError('INTERNAL', String(e)).toData() } }))
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
