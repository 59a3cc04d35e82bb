/**
 * Worker thread: takes batches of one block's chunks until none is left (verify.ts
 * processChunks), with the tier table shared by all workers. It stays alive between jobs (the pool
 * keeps it warm), one job at a time.
 */
import { parentPort } from 'node:worker_threads'
import { BlockDeriver, CHUNK_UNITS, buildTierTable } from '../../game-core/block'
import { chunkCount } from '../../game-core/commitment'
import { processChunks, type UnitProblem } from '../../game-core/verify'
import { nodePrimitives } from '../crypto/node-primitives'
import { CONTROL, type BlockTask, type BlockWorkerMessage, type BlockWorkerResult } from '../services/emissions'

class Stopped extends Error {}

function run(task: BlockTask): BlockWorkerResult {
  const { def } = task
  const control = new Int32Array(task.control)
  const progress = new Float64Array(task.progress)
  const leaves = new Uint8Array(task.leaves)
  const tiers = new Uint8Array(task.tiers)
  const stopped = () => Atomics.load(control, CONTROL.stop) === 1
  const deriver = new BlockDeriver(def, nodePrimitives, {
    emission: task.emission,
    block: task.block,
    secret: task.secret,
  })

  if (task.buildTiers) {
    try {
      buildTierTable(def, nodePrimitives, deriver.keys, {
        into: tiers,
        onProgress: (from) => {
          Atomics.store(control, CONTROL.tiersFinalFrom, from)
          Atomics.notify(control, CONTROL.tiersFinalFrom)
        },
      })
    } catch (e) {
      Atomics.store(control, CONTROL.tiersFailed, 1)
      Atomics.notify(control, CONTROL.tiersFinalFrom)
      throw e
    }
  }
  deriver.adoptTierTable(tiers)

  const total = chunkCount(def)
  const B = task.batchChunks
  const batchTotal = Math.ceil(total / B)
  const T = def.tiers.length
  const result: BlockWorkerResult = {
    batches: [],
    roots: new Uint8Array(0),
    units: 0,
    tierCounts: new Array<number>(T + 1).fill(0),
    problems: [],
    failures: 0,
    cancelled: false,
  }
  const roots: Uint8Array[] = []
  /** Waits until the tier table is final from `unit` on; false when asked to stop. */
  const tiersReady = (unit: number): boolean => {
    for (;;) {
      if (Atomics.load(control, CONTROL.tiersFailed) === 1) throw new Error('the tier table could not be built')
      const from = Atomics.load(control, CONTROL.tiersFinalFrom)
      if (from <= unit) return true
      if (stopped()) return false
      Atomics.wait(control, CONTROL.tiersFinalFrom, from, 50)
    }
  }
  try {
    for (;;) {
      if (stopped()) throw new Stopped()
      const taken = Atomics.add(control, CONTROL.nextBatch, 1)
      if (taken >= batchTotal) break
      const first = (batchTotal - 1 - taken) * B
      const count = Math.min(B, total - first)
      if (!tiersReady(first * CHUNK_UNITS)) throw new Stopped()
      const before = result.units
      const r = processChunks(deriver, first, count, {
        maxProblems: task.maxProblems,
        commitmentVersion: task.commitmentVersion,
        onProgress: (done) => {
          progress[task.index] = before + done
        },
        shouldStop: stopped,
      })
      if (r.cancelled) throw new Stopped()
      leaves.set(r.leafHashes, 32 * first)
      result.batches.push(first, count, r.units)
      roots.push(r.subtreeRoot!)
      result.units += r.units
      r.tierCounts.forEach((n, i) => (result.tierCounts[i] += n))
      result.failures += r.failures
      if (r.problems.length > 0) result.problems = lowestUnits([...result.problems, ...r.problems], task.maxProblems)
    }
  } catch (e) {
    if (!(e instanceof Stopped)) throw e
    result.cancelled = true
  }
  result.roots = new Uint8Array(32 * roots.length)
  roots.forEach((r, i) => result.roots.set(r, 32 * i))
  return result
}

function lowestUnits(problems: UnitProblem[], max: number): UnitProblem[] {
  return problems.sort((a, b) => a.unit - b.unit).slice(0, max)
}

parentPort!.on('message', (task: BlockTask) => {
  let message: BlockWorkerMessage
  try {
    message = { type: 'done', result: run(task) }
  } catch (e) {
    message = { type: 'error', message: e instanceof Error ? e.message : String(e) }
  }
  parentPort!.postMessage(message)
})
