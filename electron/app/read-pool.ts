/**
 * The reading threads of a host (issue 30): the calls that only read the ledger (the contract's
 * `ledger: 'reads'`: a ticket, a player's last game, the dashboard, the lists) are answered by a
 * few worker threads, each with a connection of its own (read-worker.ts), not on the host's thread.
 *
 * Why: on a team ledger every statement of the host's thread is a round trip it waits for
 * (ledger/pg/bridge.ts), so twenty staff's lookups queued behind one another and behind every
 * sign-in; on SQLite the lookups waited behind the host's other work (sign-ins' writes, uploads).
 * With the pool they run side by side, and the host's thread only checks the session.
 *
 * The host looks the caller's session up in its memory (its limits of time) and sends the call with
 * the session's user and its clock's reading; the thread checks the account on its own connection
 * (deactivated or changed outside the app: the session ends, and the host forgets it), validates,
 * checks the role and runs the handler with the contract's own dispatcher, so a call answers exactly
 * as it would on the host's thread, and the host's thread reads nothing of the ledger for it.
 * The threads start with the pool (a thread's start, its connection opened, takes a few hundred
 * milliseconds: not to be paid by the first staff's call) and stay until the backend closes; a
 * thread that fails is replaced at the next call, and the calls it held are answered INTERNAL.
 *
 * On a team ledger, whose writers go side by side (row locks, not a ledger-wide lock), the threads
 * also answer the writing calls that need nothing of the host's memory but the caller's session
 * (the contract's `ledger: 'writes'`: a claim's step, a sign-out): the thread holds the session
 * for the call, and a sign-out that ends it there ends it on the host. A writing call cut by its
 * thread's failure is answered INTERNAL saying it may have been made (its transaction either
 * committed or was rolled back with the connection: never half-applied).
 */
import { Worker } from 'node:worker_threads'
import { AppError, type Envelope } from '../contract/errors'
import { workerEntry } from '../threads/entry'
import type { WorkerLedgerRef } from '../ledger/worker-ref'

/** What a reading thread is started with. */
export interface ReadWorkerData {
  ledger: WorkerLedgerRef
}

/** One call asked of a reading thread. */
export interface ReadCall {
  type: 'call'
  id: number
  channel: string
  args: unknown
  /** the caller's live session as the host holds it; the thread checks the account on its connection */
  session: CallSession | null
  /** the host's clock, in milliseconds */
  now: number
}

/** A session of the host's, as a reading thread is given it. */
export interface CallSession {
  userId: number
  token: string
}

export interface ReadAnswer {
  id: number
  envelope: Envelope<unknown>
  /** the session's account is no longer sound (deactivated, changed outside the app): the host ends it */
  sessionEnded?: boolean
}

type Settle = (answer: Omit<ReadAnswer, 'id'>) => void

/** A call held by a thread: how to answer it, and whether it may write (then a failure may have applied it). */
interface Held {
  settle: Settle
  writes: boolean
}

/** One reading thread and the calls it holds. */
class ReadThread {
  readonly worker: Worker
  readonly pending = new Map<number, Held>()
  failed = false
  /** Settled when the thread has exited (its connection closed). */
  readonly ended: Promise<void>

  constructor(data: ReadWorkerData) {
    const entry = workerEntry('read-worker')
    this.worker = new Worker(entry.file, { eval: entry.eval, workerData: data })
    this.ended = new Promise((ended) => this.worker.once('exit', () => ended()))
    this.worker.on('message', (m: ReadAnswer) => this.settle(m))
    this.worker.on('error', (e) => this.fail(`a reading thread failed: ${e.message}`))
    this.worker.on('exit', (code) => this.fail(`a reading thread stopped (exit code ${code})`))
    // idle, it does not keep the process alive
    this.worker.unref()
  }

  call(message: ReadCall, held: Held): void {
    this.pending.set(message.id, held)
    this.worker.ref()
    this.worker.postMessage(message)
  }

  private settle(m: ReadAnswer): void {
    const held = this.pending.get(m.id)
    if (!held) return
    this.pending.delete(m.id)
    if (this.pending.size === 0) this.worker.unref()
    held.settle(m)
  }

  private fail(message: string): void {
    this.failed = true
    const read = new AppError('INTERNAL', `${message}: nothing was written, try again`).toData()
    const wrote = new AppError(
      'INTERNAL',
      `${message}: the change may or may not have been made; look before trying again`,
    ).toData()
    for (const held of this.pending.values())
      held.settle({ envelope: { ok: false, error: held.writes ? wrote : read } })
    this.pending.clear()
  }
}

export class ReadPool {
  private readonly threads: (ReadThread | null)[]
  private nextId = 1
  private closed = false

  constructor(
    private readonly ledger: WorkerLedgerRef,
    size: number,
  ) {
    this.threads = Array.from({ length: Math.max(1, size) }, () => new ReadThread({ ledger }))
  }

  /** The call answered by the least busy thread (a failed one replaced first); `writes`: it may write. */
  call(
    channel: string,
    args: unknown,
    session: CallSession | null,
    now: number,
    writes = false,
  ): Promise<Omit<ReadAnswer, 'id'>> {
    if (this.closed)
      return Promise.resolve({
        envelope: { ok: false, error: new AppError('INTERNAL', 'the ledger is closing: try again').toData() },
      })
    const thread = this.leastBusy()
    const message: ReadCall = { type: 'call', id: this.nextId++, channel, args, session, now }
    return new Promise((settle) => thread.call(message, { settle, writes }))
  }

  /** Ends the threads, each closing its connection first; settled once they have exited. */
  close(): Promise<void> {
    this.closed = true
    const closing = this.threads.filter((t) => t !== null)
    for (const t of closing) t.worker.postMessage({ type: 'close' })
    this.threads.fill(null)
    return Promise.all(closing.map((t) => t.ended)).then(() => undefined)
  }

  private leastBusy(): ReadThread {
    let best = 0
    for (let i = 0; i < this.threads.length; i++) {
      const t = this.threads[i]
      if (t === null || t.failed) {
        this.threads[i] = new ReadThread({ ledger: this.ledger })
        return this.threads[i]!
      }
      if (t.pending.size < this.threads[best]!.pending.size) best = i
    }
    return this.threads[best]!
  }
}
