/**
 * The importer's reader thread (feed-reader-worker.ts): started at the first large import and
 * kept for a while after each, unreferenced (it keeps no process alive), so that the next import
 * skips its start-up and finds its code already optimised. One per thread that imports.
 */
import { Worker } from 'node:worker_threads'
import { FeedRing, type FeedReadJob } from '../services/feed-ring'
import { workerEntry } from './entry'

const IDLE_MS = 30_000
let idle: { worker: Worker; timer: ReturnType<typeof setTimeout> } | null = null

/**
 * Starts reading `feed` (whose memory must be shared) into a new ring, and returns the ring. Call
 * `done` once the importer no longer reads from it, whether the reader finished or not.
 */
export function startFeedReader(feed: Uint8Array, zones: FeedReadJob['zones']): { ring: FeedRing; done: () => void } {
  let worker: Worker
  if (idle) {
    clearTimeout(idle.timer)
    worker = idle.worker
    idle = null
  } else {
    const entry = workerEntry('feed-reader-worker')
    worker = new Worker(entry.file, { eval: entry.eval })
    worker.on('exit', () => {
      if (idle?.worker === worker) {
        clearTimeout(idle.timer)
        idle = null
      }
    })
  }
  worker.unref()
  const ring = FeedRing.create()
  const job: FeedReadJob = { feed, memory: ring.memory, zones }
  worker.postMessage(job)
  return {
    ring,
    done() {
      const timer = setTimeout(() => {
        if (idle?.worker === worker) idle = null
        void worker.terminate()
      }, IDLE_MS)
      timer.unref()
      if (idle) void idle.worker.terminate()
      idle = { worker, timer }
    },
  }
}
