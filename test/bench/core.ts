/** Game core: whole-block verification on all cores, one unit's derivation, memory. */
import { availableParallelism } from 'node:os'
import { CARATS } from '../../game-core/carats'
import { BlockDeriver } from '../../game-core/block'
import { nodePrimitives, newBlockSecret } from '../../electron/crypto/node-primitives'
import { verifyBlockInWorkers } from '../../electron/workers/block-pool'
import { fmt, memoryWatch, printTable, summarize, type BenchLine } from './stats'

export async function benchCore(opts: { runs: number }): Promise<BenchLine[]> {
  const lines: BenchLine[] = []
  const threads = availableParallelism()
  const secret = newBlockSecret()
  const ref = { emission: 1, block: 1, secret }

  // One unit, cold: the first unit of a block builds the block's tier table.
  const cold: number[] = []
  for (let i = 0; i < 3; i++) {
    const t = performance.now()
    new BlockDeriver(CARATS, nodePrimitives, { ...ref, secret: newBlockSecret() }).ticket(0)
    cold.push(performance.now() - t)
  }
  const deriver = new BlockDeriver(CARATS, nodePrimitives, ref)
  deriver.ticket(0)
  const warm: number[] = []
  for (let i = 0; i < 20_000; i++) {
    const u = Math.floor((i * 7_919_011) % CARATS.blockSize)
    const t = performance.now()
    deriver.ticket(u)
    warm.push(performance.now() - t)
  }
  const w = summarize(warm)
  const c = summarize(cold)
  lines.push({ name: 'one unit, p50', value: `${fmt(w.p50 * 1000, 1)} µs`, target: '< 200 µs', ok: w.p50 < 0.2 })
  lines.push({ name: 'one unit, p99', value: `${fmt(w.p99 * 1000, 1)} µs`, target: '< 200 µs', ok: w.p99 < 0.2 })
  lines.push({ name: 'first unit of a block (builds its tier table), median', value: `${fmt(c.p50, 0)} ms` })

  const times: number[] = []
  const cpuSeconds: number[] = []
  const mem = memoryWatch()
  let commitment = ''
  for (let r = 0; r < opts.runs; r++) {
    const t = performance.now()
    const cpu = process.cpuUsage()
    const v = await verifyBlockInWorkers(CARATS, ref, { threads })
    times.push((performance.now() - t) / 1000)
    const used = process.cpuUsage(cpu)
    cpuSeconds.push((used.user + used.system) / 1e6)
    if (!v.sound) throw new Error('the benchmark block is not sound')
    if (commitment && v.commitment !== commitment) throw new Error('the commitment changed between runs')
    commitment = v.commitment
  }
  const peak = mem.stop()
  const s = summarize(times)
  lines.push({ name: `whole block verified + commitment (${threads} threads), median of ${opts.runs}`, value: `${fmt(s.p50)} s`, target: '≤ 2 s', ok: s.p50 <= 2 })
  lines.push({ name: 'whole block, best run', value: `${fmt(s.min)} s` })
  // The pool keeps its workers warm between jobs: the first job of a process also starts them.
  lines.push({ name: 'first block of the process (starts the workers)', value: `${fmt(times[0])} s` })
  lines.push({ name: 'units per second (median run)', value: `${fmt(CARATS.blockSize / s.p50, 0)}` })
  // CPU time of all threads: what the block costs whatever else the machine is doing.
  const cpuMedian = summarize(cpuSeconds).p50
  lines.push({ name: 'CPU time per block, all threads (median)', value: `${fmt(cpuMedian)} s` })
  lines.push({ name: `  so on ${threads} idle cores, about`, value: `${fmt(cpuMedian / threads)} s` })
  lines.push({ name: 'peak memory (resident, all threads)', value: `${fmt(peak / 2 ** 20, 0)} MB`, target: '< 512 MB', ok: peak < 512 * 2 ** 20 })
  printTable('Game core', lines)
  return lines
}
