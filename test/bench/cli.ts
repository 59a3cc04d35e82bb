/**
 * The command line's start: `carats rules` as a user runs it (`node electron/cli/carats.mjs`, what
 * package.json's bin and `npm run carats` start), from spawning the process to its exit, with
 * out/ already built, as on any start after the first (the first-ever start builds it).
 */
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { ensureBuilt, PROJECT_ROOT } from '../../electron/host/build'
import { fmt, printTable, summarize } from './stats'

const LAUNCHER = join(PROJECT_ROOT, 'electron', 'cli', 'carats.mjs')

/** Milliseconds from spawning `carats <args>` to its exit. */
function timeCarats(args: string[]): number {
  const t0 = performance.now()
  const r = spawnSync(process.execPath, [LAUNCHER, ...args], {
    encoding: 'utf8',
    env: { ...process.env, CARATS_DB: '' },
  })
  const ms = performance.now() - t0
  if (r.status !== 0) throw new Error(`carats ${args.join(' ')} exited ${r.status}: ${r.stderr}`)
  return ms
}

export async function benchCli(opts: { runs: number }) {
  await ensureBuilt({ log: (m) => process.stderr.write(`${m}\n`) })
  timeCarats(['rules'])
  const s = summarize(Array.from({ length: opts.runs }, () => timeCarats(['rules'])))
  printTable('Command line start', [
    {
      name: `carats rules, built (median of ${opts.runs})`,
      value: `${fmt(s.p50 / 1000)} s`,
      target: '< 0.3 s',
      ok: s.p50 < 300,
    },
  ])
  return s
}
