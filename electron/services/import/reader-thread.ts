/**
 * The importer's reader thread (feed-reader-worker.ts): started at the first large import and
 * kept for a while after each, unreferenced (it keeps no process alive), so that the next import
 * skips its start-up and finds its code already optimised. One per thread that imports.
 */
import { Worker } from 'node:worker_threads'
import { FeedRing, type FeedReadJob } from './feed-ring'
import { workerEntry } from '../../threads/entry'

const IDLE_MS = 30_000
let idle: { worker: Worker; timer: ReturnType<typeof setTimeout> } | null = null

/** A reader thread for the next import, started now (the command line starts it while it reads the file). */
export function warmFeedReader(): void {
  if (idle) return
  const worker = spawn()
  worker.unref()
  keepIdle(worker)
}

function spawn(): Worker {
  const entry = workerEntry('feed-reader-worker')
  const worker = new Worker(entry.file, { eval: entry.eval })
  worker.on('exit', () => {
    if (idle?.worker === worker) {
      clearTimeout(idle.timer)
      idle = null
    }
  })
  return worker
}

/** Keeps the worker for the next import, for IDLE_MS. */
function keepIdle(worker: Worker): void {
  const timer = setTimeout(() => {
    if (idle?.worker === worker) idle = null
    void worker.terminate()
  }, IDLE_MS)
  timer.unref()
  if (idle && idle.worker !== worker) {
    clearTimeout(idle.timer)
    void idle.worker.terminate()
  }
  idle = { worker, timer }
}

/**
 * Starts reading `feed` (whose memory must be shared) into a new ring, and returns the ring. Call
 * `done` once the importer no longer reads from it, whether the reader finished or not.
 * `arrival`: the feed is still arriving (FeedArrival's memory); the reader waits for its bytes.
 * `hashed`: the feed's SHA-256 is known, the reader leaves the ring's digest as it is.
 */
export function startFeedReader(
  feed: Uint8Array,
  zones: FeedReadJob['zones'],
  opts: { arrival?: SharedArrayBuffer; hashed?: boolean } = {},
): { ring: FeedRing; done: () => void } {
  let worker: Worker
  if (idle) {
    clearTimeout(idle.timer)
    worker = idle.worker
    idle = null
  } else worker = spawn()
  worker.unref()
  const ring = FeedRing.create()
  const job: FeedReadJob = {
    feed,
    memory: ring.memory,
    zones,
    ...(opts.arrival ? { arrival: opts.arrival } : {}),
    hashed: opts.hashed === true,
  }
  worker.postMessage(job)
  return {
    ring,
    done: () => keepIdle(worker),
  }
}
