/**
 * The sales simulator's drafts made on a worker thread (sales-worker.ts), so that making the
 * next batch (players, times, reveals) overlaps with selling this one on the main thread.
 */
import { Worker } from 'node:worker_threads'
import { AppError } from '../../contract/errors'
import type { DraftBatch, DraftSource, GeneratorOptions } from './drafts'
import { workerEntry } from '../../threads/entry'

export type SalesWorkerMessage = { type: 'batch'; batch: DraftBatch } | { type: 'error'; message: string }

interface Waiting {
  resolve: (b: DraftBatch) => void
  reject: (e: Error) => void
}

/** `entry`: how to start sales-worker.ts, for a caller that is itself a worker (see workerEntry). */
export const workerDrafts = (o: GeneratorOptions, entry = workerEntry('sales-worker')): DraftSource => {
  const worker = new Worker(entry.file, { workerData: o, eval: entry.eval })
  const waiting: Waiting[] = []
  let closed = false
  const failAll = (e: Error) => {
    for (const w of waiting.splice(0)) w.reject(e)
  }
  worker.on('message', (m: SalesWorkerMessage) => {
    const w = waiting.shift()
    if (!w) return
    if (m.type === 'batch') w.resolve(m.batch)
    else w.reject(new AppError('INTERNAL', `the sales worker failed: ${m.message}`))
  })
  worker.on('error', (e) => failAll(new AppError('INTERNAL', `the sales worker failed: ${e.message}`)))
  worker.on('exit', (code) => {
    if (!closed) failAll(new AppError('INTERNAL', `the sales worker stopped (exit code ${code})`))
  })
  return {
    request(count) {
      if (closed) return Promise.reject(new AppError('INTERNAL', 'the sales worker is closed'))
      return new Promise<DraftBatch>((resolve, reject) => {
        waiting.push({ resolve, reject })
        worker.postMessage(count)
      })
    },
    close() {
      if (closed) return
      closed = true
      failAll(new AppError('CANCELLED', 'the simulation ended'))
      void worker.terminate()
    },
  }
}
