/** Game core: whole-block verification on all cores, one unit's derivation, memory. */
import { availableParallelism } from 'node:os'
import { CARATS } from '../../game-core/carats'
import { BlockDeriver } from '../../game-core/block'
import { batchRoots, canonicalJson } from '../../game-core/commitment'
import { buildUnitProof, verifyUnitProof } from '../../game-core/proof'
import type { CommitmentVersion } from '../../game-core/unit-commitment'
import type { BlockVerification } from '../../game-core/verify'
import { nodePrimitives, newBlockSecret } from '../../electron/crypto/node-primitives'
import { verifyBlockInWorkers } from '../../electron/services/emissions'
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

  // Both commitment versions in the same process, runs alternated so that they share the load.
  const times: Record<CommitmentVersion, number[]> = { 1: [], 2: [] }
  const cpuByVersion: Record<CommitmentVersion, number[]> = { 1: [], 2: [] }
  const mem = memoryWatch()
  const commitments: Record<number, string> = {}
  let last: BlockVerification | null = null
  for (let r = 0; r < opts.runs; r++) {
    for (const version of [1, 2] as const) {
      const t = performance.now()
      const cpu = process.cpuUsage()
      const v = await verifyBlockInWorkers(CARATS, { ...ref, commitmentVersion: version }, { threads })
      times[version].push((performance.now() - t) / 1000)
      const used = process.cpuUsage(cpu)
      cpuByVersion[version].push((used.user + used.system) / 1e6)
      if (!v.sound) throw new Error('the benchmark block is not sound')
      if (commitments[version] && v.commitment !== commitments[version])
        throw new Error('the commitment changed between runs')
      commitments[version] = v.commitment
      if (version === 2) last = v
    }
  }
  const cpuSeconds = cpuByVersion[2]
  const peak = mem.stop()
  const s = summarize(times[2])
  const s1 = summarize(times[1])
  lines.push({
    name: `whole block verified + commitment v2 (${threads} threads), median of ${opts.runs}`,
    value: `${fmt(s.p50)} s`,
    target: '≤ 2 s',
    ok: s.p50 <= 2,
  })
  lines.push({ name: `  the same block under v1 (runs alternated), median`, value: `${fmt(s1.p50)} s` })
  lines.push({ name: '  v2 / v1, wall time (medians)', value: `${fmt(s.p50 / s1.p50)}` })
  lines.push({
    name: '  v2 / v1, CPU time of all threads (medians)',
    value: `${fmt(summarize(cpuByVersion[2]).p50 / summarize(cpuByVersion[1]).p50)}`,
  })
  lines.push({ name: 'whole block, best run', value: `${fmt(s.min)} s` })
  // The pool keeps its workers warm between jobs: the first job of a process also starts them.
  lines.push({ name: 'first block of the process (starts the workers; v1)', value: `${fmt(times[1][0])} s` })
  lines.push({ name: 'units per second (median run)', value: `${fmt(CARATS.blockSize / s.p50, 0)}` })
  // CPU time of all threads: what the block costs whatever else the machine is doing.
  const cpuMedian = summarize(cpuSeconds).p50
  lines.push({ name: 'CPU time per block, all threads (median)', value: `${fmt(cpuMedian)} s` })
  lines.push({ name: `  so on ${threads} idle cores, about`, value: `${fmt(cpuMedian / threads)} s` })
  lines.push({
    name: 'peak memory (resident, all threads)',
    value: `${fmt(peak / 2 ** 20, 0)} MB`,
    target: '< 512 MB',
    ok: peak < 512 * 2 ** 20,
  })
  // A unit's proof: 16 chunks derived and hashed (2,048 units) and the path from the batch roots.
  const stored = {
    definition: canonicalJson(CARATS),
    batchRoots: batchRoots(nodePrimitives, last!.leafHashes),
    merkleRoot: last!.merkleRoot,
    commitment: last!.commitment,
  }
  const proofMs: number[] = []
  const checkMs: number[] = []
  for (let i = 0; i < 50; i++) {
    const u = Math.floor((i * 7_919_011) % CARATS.blockSize)
    let t = performance.now()
    const p = buildUnitProof(deriver, u, stored)
    proofMs.push(performance.now() - t)
    t = performance.now()
    if (!verifyUnitProof(nodePrimitives, p).valid) throw new Error('a benchmark proof does not verify')
    checkMs.push(performance.now() - t)
  }
  lines.push({ name: 'a unit proof (v2), made, median of 50', value: `${fmt(summarize(proofMs).p50, 1)} ms` })
  lines.push({ name: 'a unit proof (v2), checked, median of 50', value: `${fmt(summarize(checkMs).p50, 2)} ms` })
  printTable('Game core', lines)
  return lines
}
