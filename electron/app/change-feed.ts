/**
 * A host's change feed: one worker thread (workers/change-watch-worker.ts) reads
 * the audit log's new entries every half second on a connection of its own and posts what they
 * changed (services/changes); the host hands each batch to its listeners: the browser host's event
 * streams (host/host-events.ts), the Electron window (main/changes.ts). Since every workstation of a
 * team ledger appends to the one log, each host sees every other's changes.
 *
 * A thread that stops is started again after RESTART_MS, from the last entry it had read: nothing
 * is missed. Idle, the thread does not keep the process alive.
 */
import { Worker } from 'node:worker_threads'
import type { Change } from '../contract/changes'
import type { WorkerLedgerRef } from '../ledger/worker-ref'
import { limitedLog } from '../services/log-limit'
import { workerEntry } from '../threads/entry'

/** How often the log is read: changes reach the screens within about this long. */
export const WATCH_INTERVAL_MS = 500
const RESTART_MS = 2000

export interface WatchWorkerData {
  ledger: WorkerLedgerRef
  /** The last entry already told (null: start from the log's head). */
  after: number | null
  intervalMs: number
}

export type WatchMessage =
  | { type: 'ready'; last: number }
  | { type: 'changes'; last: number; changes: Change[] }
  | { type: 'trouble'; message: string }
  | { type: 'failed'; message: string }

export type ChangeListener = (changes: Change[]) => void

/** What the hosts subscribe to. */
export interface ChangeSource {
  subscribe(listener: ChangeListener): () => void
}

export interface ChangeFeed extends ChangeSource {
  /** Reads the log now: this host just answered a call that may have written (its own changes go out at once). */
  nudge(): void
  /** Stops the thread; settled once it has closed its connection. */
  close(): Promise<void>
}

export function startChangeFeed(ledger: WorkerLedgerRef, opts: { intervalMs?: number } = {}): ChangeFeed {
  const listeners = new Set<ChangeListener>()
  const intervalMs = opts.intervalMs ?? WATCH_INTERVAL_MS
  let last: number | null = null
  let worker: Worker | null = null
  let restart: NodeJS.Timeout | undefined
  let closed = false

  const tell = (changes: Change[]) => {
    for (const l of listeners) {
      try {
        l(changes)
      } catch (e) {
        limitedLog('change-feed', '[changes] a listener failed:', e)
      }
    }
  }

  const onMessage = (m: WatchMessage) => {
    if (m.type === 'ready') last = m.last
    else if (m.type === 'changes') {
      last = m.last
      tell(m.changes)
    } else limitedLog(`change-feed:${m.type}`, `[changes] the ledger's watch: ${m.message}`)
  }

  function start(): void {
    const entry = workerEntry('change-watch-worker')
    const data: WatchWorkerData = { ledger, after: last, intervalMs }
    const w = new Worker(entry.file, { eval: entry.eval, workerData: data })
    worker = w
    w.unref()
    w.on('message', onMessage)
    w.on('error', (e) => limitedLog('change-feed:error', "[changes] the ledger's watch failed:", e))
    w.once('exit', () => {
      if (worker === w) worker = null
      if (closed) return
      restart = setTimeout(start, RESTART_MS)
      restart.unref()
    })
  }

  start()
  return {
    subscribe(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    nudge() {
      worker?.postMessage({ type: 'now' })
    },
    close() {
      closed = true
      clearTimeout(restart)
      listeners.clear()
      const w = worker
      if (!w) return Promise.resolve()
      const ended = new Promise<void>((done) => w.once('exit', () => done()))
      w.postMessage({ type: 'close' })
      return ended
    },
  }
}
