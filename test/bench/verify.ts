/**
 * Whole-block verification against a plain derivation (issue 35): `carats block verify` of a
 * whole block under commitment version 2, spawned as a user runs it, against a plain
 * single-threaded derivation of the same block in this process (tier permutation, ticket
 * synthesis, evaluation, no commitment); best of three each, alternated, so the ratio is read
 * in one run. CARATS_BENCH_VERIFY_TOOL=1 adds the outsiders' verifier (tools/carats-verify.mjs).
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { CARATS } from '../../game-core/carats'
import { BlockDeriver } from '../../game-core/block'
import { toHex } from '../../game-core/primitives'
import { nodePrimitives, newBlockSecret } from '../../electron/crypto/node-primitives'
import { ensureBuilt, PROJECT_ROOT } from '../../electron/host/build'
import { fmt, printTable, type BenchLine } from './stats'

const LAUNCHER = join(PROJECT_ROOT, 'electron', 'cli', 'carats.mjs')
const TOOL = join(PROJECT_ROOT, 'tools', 'carats-verify.mjs')
const RUNS = 3

/** The plain reference: one thread, every unit derived and evaluated, nothing hashed. */
function plainDerivation(secret: Uint8Array): { wall: number; prizes: number } {
  const t = performance.now()
  const d = new BlockDeriver(CARATS, nodePrimitives, { emission: 1, block: 1, secret })
  const rb = d.synthesizer.recordBytes
  const buf = new Uint8Array(4096 * rb)
  let prizes = 0
  for (let u = 0; u < CARATS.blockSize; u += 4096) {
    const n = Math.min(4096, CARATS.blockSize - u)
    const records = d.records(u, n, buf)
    for (let i = 0; i < n; i++) prizes += d.evaluator.runRecord(records, i * rb)
  }
  return { wall: (performance.now() - t) / 1000, prizes }
}

/** Seconds from spawning `node <args>` to its exit, and what it printed. */
function timeProcess(args: string[]): { wall: number; stdout: string } {
  const t = performance.now()
  const r = spawnSync(process.execPath, args, {
    encoding: 'utf8',
    env: { ...process.env, CARATS_DB: '' },
    maxBuffer: 1 << 26,
  })
  const wall = (performance.now() - t) / 1000
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr}`)
  return { wall, stdout: r.stdout }
}

function best(xs: number[]): number {
  return Math.min(...xs)
}

export async function benchVerify(): Promise<BenchLine[]> {
  await ensureBuilt({ log: (m) => process.stderr.write(`${m}\n`) })
  const secret = toHex(newBlockSecret())
  const block = ['--secret', secret, '--emission', '1', '--block', '1']
  const stats = JSON.parse(timeProcess([LAUNCHER, 'block', 'stats', ...block, '--json']).stdout)
  const commitment: string = stats.commitment
  const cli: number[] = []
  const plain: number[] = []
  for (let r = 0; r < RUNS; r++) {
    const v = timeProcess([LAUNCHER, 'block', 'verify', ...block, '--commitment', commitment])
    cli.push(v.wall)
    const p = plainDerivation(Buffer.from(secret, 'hex'))
    if (p.prizes !== stats.prizeTotalCents) throw new Error('the plain derivation disagrees with the command line')
    plain.push(p.wall)
  }
  const lines: BenchLine[] = [
    { name: `carats block verify, whole block, v2, best of ${RUNS}`, value: `${fmt(best(cli))} s` },
    { name: `plain derivation, one thread, no commitment, best of ${RUNS}`, value: `${fmt(best(plain))} s` },
    {
      name: '  verify / plain',
      value: fmt(best(cli) / best(plain)),
      target: '≤ 0.3',
      ok: best(cli) / best(plain) <= 0.3,
    },
  ]
  if (process.env.CARATS_BENCH_VERIFY_TOOL === '1') lines.push(...benchTool(secret, commitment, best(cli)))
  printTable('Whole-block verification', lines)
  return lines
}

/** The outsiders' verifier on the same block, once (it takes the longest). */
function benchTool(secret: string, commitment: string, cliSeconds: number): BenchLine[] {
  const dir = mkdtempSync(join(tmpdir(), 'carats-bench-verify-'))
  try {
    // the tool reads `carats rules --json` as it is printed
    const definition = join(dir, 'rules.json')
    writeFileSync(definition, timeProcess([LAUNCHER, 'rules', '--json']).stdout)
    const args = [TOOL, 'block', '--definition', definition, '--secret', secret, '--emission', '1', '--block', '1']
    const t = timeProcess([...args, '--commitment-version', '2', '--commitment', commitment])
    return [
      { name: 'tools/carats-verify.mjs block, once', value: `${fmt(t.wall)} s` },
      { name: '  tool / command line', value: fmt(t.wall / cliSeconds), target: '≤ 3', ok: t.wall / cliSeconds <= 3 },
    ]
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
