/**
 * Worker thread: makes the sales simulator's drafts (services/simulator createSalesGenerator), one
 * batch per request, in the order asked, while the main thread sells the batch before.
 */
import { parentPort, workerData } from 'node:worker_threads'
import { createSalesGenerator, packDrafts, type GeneratorOptions, type SalesWorkerMessage } from '../services/simulator'

const gen = createSalesGenerator(workerData as GeneratorOptions)
parentPort!.on('message', (count: number) => {
  let message: SalesWorkerMessage
  try {
    const batch = packDrafts(gen, count)
    message = { type: 'batch', batch }
    const buffers = [batch.ranks, batch.soldAt, batch.codes, batch.ends, batch.events].map(
      (a) => a.buffer as ArrayBuffer,
    )
    parentPort!.postMessage(message, buffers)
  } catch (e) {
    message = { type: 'error', message: e instanceof Error ? e.message : String(e) }
    parentPort!.postMessage(message)
  }
})
