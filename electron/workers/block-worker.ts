/** Worker thread: regenerates one range of chunks of a block (verify.ts processChunks). */
import { parentPort, workerData } from 'node:worker_threads'
import { BlockDeriver } from '../../game-core/block'
import { processChunks } from '../../game-core/verify'
import { nodePrimitives } from '../crypto/node-primitives'
import type { BlockTask, BlockWorkerMessage } from './messages'

const task = workerData as BlockTask
const stop = new Int32Array(task.stop)
const progress = new Float64Array(task.progress)
let message: BlockWorkerMessage
try {
  const deriver = new BlockDeriver(task.def, nodePrimitives, { emission: task.emission, block: task.block, secret: task.secret })
  const result = processChunks(deriver, task.firstChunk, task.chunkCount, {
    onProgress: (done) => { progress[task.index] = done },
    shouldStop: () => Atomics.load(stop, 0) === 1,
  })
  message = { type: 'done', result }
} catch (e) {
  message = { type: 'error', message: e instanceof Error ? e.message : String(e) }
}
parentPort!.postMessage(message)
