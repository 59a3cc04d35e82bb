/**
 * `npm run bench -- load` (issue 30, item 5): a team under load on one browser host, on SQLite and
 * on PostgreSQL in one run. For each engine, a fresh ledger (load-ledger.ts: a real block opened,
 * staff accounts, a first day of sales with its claims), and in two parts, each on the real host
 * started in a child process on loopback (load-scenarios.ts, load-host.ts):
 *   1. the scenario: three feeds uploaded one after another while five colleagues sign in
 *      and out; do all succeed?
 *   2. N staff clients for a fixed time (sign-in, ticket, last game, dashboard, a claim step,
 *      sign-out; load-clients.ts) while an operator uploads feeds back to back.
 * Figures per kind of call (load-figures.ts), each engine's as soon as it is done, then side by
 * side; and the sales the ledger holds against those imported: nothing lost, nothing half-written.
 *   CARATS_BENCH_LOAD_CLIENTS=<n>   staff clients (20)
 *   CARATS_BENCH_LOAD_SECONDS=<s>   how long they work (60)
 *   CARATS_BENCH_LOAD_LINES=<n>     lines per feed (50,000)
 *   CARATS_BENCH_LOAD_FEEDS=<n>     feeds ready for the timed part (6; uploads stop when time is up)
 *   CARATS_BENCH_ENGINES=sqlite     one engine only (sqlite, postgres, or both: the default)
 * Every call has a time limit (30 s, an upload 120 s), each part a deadline after which its host
 * is killed; the hosts are stopped, the files removed and the database dropped at the end.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { availableParallelism, tmpdir } from 'node:os'
import { join } from 'node:path'
import { writeFeeds, type Feed } from './load-feeds'
import { importingSeconds, imported, opFigures, opLines, sideFigures, uploadLines } from './load-figures'
import { countSales, fillLoadLedger, newLoadLedger } from './load-ledger'
import { COLLEAGUES, QUICK_FEEDS, quickPart, timedPart, type Scenario } from './load-scenarios'
import { type BenchEngine, type Figure, printSideBySide } from './ledger-engines'
import { fmt, printTable, type BenchLine } from './stats'

interface LoadOptions {
  clients: number
  seconds: number
  lines: number
  feeds: number
  engines: BenchEngine[]
}

const log = (m: string) => process.stderr.write(`  ${m}\n`)
const ENGINE_NAME: Record<BenchEngine, string> = { sqlite: 'SQLite', postgres: 'PostgreSQL' }

function numberFrom(name: string, fallback: number): number {
  const raw = process.env[name]?.trim()
  if (!raw) return fallback
  const n = Number(raw.replace(/_/g, ''))
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name}=${raw} is not a whole number of at least 1`)
  return n
}

function enginesFrom(): BenchEngine[] {
  const raw = (process.env.CARATS_BENCH_ENGINES ?? '').trim().toLowerCase()
  if (raw === '' || raw === 'both') return ['sqlite', 'postgres']
  if (raw === 'sqlite' || raw === 'postgres') return [raw]
  throw new Error(`CARATS_BENCH_ENGINES=${raw} is not sqlite, postgres or both`)
}

export function loadOptions(): LoadOptions {
  return {
    clients: numberFrom('CARATS_BENCH_LOAD_CLIENTS', 20),
    seconds: numberFrom('CARATS_BENCH_LOAD_SECONDS', 60),
    lines: numberFrom('CARATS_BENCH_LOAD_LINES', 50_000),
    feeds: numberFrom('CARATS_BENCH_LOAD_FEEDS', 6),
    engines: enginesFrom(),
  }
}

const problemLines = (s: Scenario): BenchLine[] =>
  s.problems.map((p) => ({ name: p.slice(0, 52), value: p.slice(52, 132), ok: false }))

function quickLines(q: Scenario): BenchLine[] {
  const figures = opFigures(q.run.samples, q.uploads)
  const failed = figures.reduce((n, f) => n + f.errors, 0)
  const allOk =
    !q.problems.length && failed === 0 && q.uploads.length === QUICK_FEEDS && q.uploads.every((u) => u.outcome.ok)
  const calls = figures.flatMap((f) => [
    {
      name: `${f.op}: ${f.n.toLocaleString('en-US')} calls, ${f.errors} failed; p50 / p99 / max`,
      value: `${fmt(f.p50, 1)} / ${fmt(f.p99, 1)} / ${fmt(f.max, 0)} ms`,
    },
    ...f.why.slice(0, 4).map(([why, n]) => ({ name: `  ${n} × ${why}`.slice(0, 52), value: '' })),
  ])
  return [
    ...problemLines(q),
    ...uploadLines(q.uploads),
    ...calls,
    { name: `all ${QUICK_FEEDS} uploads and every sign-in succeed`, value: allOk ? 'yes' : 'no', ok: allOk },
  ]
}

function timedLines(engine: BenchEngine, t: Scenario, seconds: number): BenchLine[] {
  return [
    ...problemLines(t),
    ...opLines(opFigures(t.run.samples, t.uploads), engine),
    ...uploadLines(t.uploads),
    {
      name: `an upload in progress, of the ${seconds} s`,
      value: `${fmt(importingSeconds(t.uploads, t.windowMs), 1)} s`,
    },
    ...cpuLines(t),
  ]
}

/** Where the machine's cores went: the host's process, and this one's clients (the database server's are not counted). */
function cpuLines(t: Scenario): BenchLine[] {
  const cores = availableParallelism()
  const { seconds } = t.cpu
  return [
    ...(t.cpu.host === null
      ? []
      : [
          {
            name: `CPU of the host's process over ${fmt(seconds, 0)} s, of ${cores} cores`,
            value: `${fmt(t.cpu.host / seconds, 2)} cores`,
          },
        ]),
    { name: `CPU of the bench's own clients, of ${cores} cores`, value: `${fmt(t.cpu.clients / seconds, 2)} cores` },
  ]
}

function quickFigures(q: Scenario): Figure[] {
  const signIns = q.run.samples.filter((s) => s.op === 'sign-in')
  return [
    {
      name: `three uploads: imported, of ${QUICK_FEEDS}`,
      value: q.uploads.filter((u) => u.outcome.ok).length,
      target: String(QUICK_FEEDS),
      meets: (v) => v === QUICK_FEEDS,
    },
    {
      name: 'three uploads: sign-ins failed',
      value: signIns.filter((s) => s.error).length,
      target: '0',
      meets: (v) => v === 0,
    },
    { name: 'three uploads: slowest sign-in', value: Math.max(0, ...signIns.map((s) => s.ms)), unit: 'ms' },
  ]
}

/** Both parts on a fresh ledger of `engine`; prints its tables; its figures for the side-by-side table. */
async function onEngine(
  engine: BenchEngine,
  feedsFor: (emission: number, from: number) => Feed[],
  o: LoadOptions,
): Promise<Figure[]> {
  const ledger = newLoadLedger(engine)
  const name = ENGINE_NAME[engine]
  try {
    log(
      `${engine}: a real block generated, verified and opened; ${o.clients} staff accounts; a first day of ${o.lines.toLocaleString('en-US')} sales…`,
    )
    const world = await fillLoadLedger(ledger, { clients: o.clients, firstDay: o.lines })
    const feeds = feedsFor(world.emission, world.soldUnits)
    log(`${engine}: three uploads while ${COLLEAGUES} colleagues sign in…`)
    const done = new Set<Feed>()
    const quick = await quickPart(ledger, world, feeds, done)
    printTable(
      `Under load, ${name}: three feeds of ${o.lines.toLocaleString('en-US')} lines uploaded one after another while ${COLLEAGUES} colleagues sign in`,
      quickLines(quick),
    )
    log(`${engine}: ${o.clients} staff for ${o.seconds} s while feeds import…`)
    const timed = await timedPart(ledger, world, feeds, done, o.seconds)
    const held = await countSales(ledger)
    const expected = world.sales + [...quick.uploads, ...timed.uploads].reduce((n, u) => n + imported(u), 0)
    printTable(`Under load, ${name}: ${o.clients} staff for ${o.seconds} s while feeds import back to back`, [
      ...timedLines(engine, timed, o.seconds),
      {
        name: 'sales in the ledger after, against those imported',
        value: `${held.toLocaleString('en-US')} / ${expected.toLocaleString('en-US')}`,
        ok: held === expected,
      },
    ])
    return [...sideFigures(engine, opFigures(timed.run.samples, timed.uploads), timed.uploads), ...quickFigures(quick)]
  } finally {
    ledger.drop()
  }
}

export async function benchLoad(o: LoadOptions = loadOptions()): Promise<Record<BenchEngine, Figure[]>> {
  const feedDir = mkdtempSync(join(tmpdir(), 'carats-bench-load-feeds-'))
  const made = new Map<string, Feed[]>()
  // the same feeds for both engines (their first emission and units are the same), written once
  const feedsFor = (emission: number, from: number): Feed[] => {
    const key = `${emission}:${from}`
    if (!made.has(key)) {
      log(`writing ${QUICK_FEEDS + o.feeds} feeds of ${o.lines.toLocaleString('en-US')} lines…`)
      made.set(key, writeFeeds(feedDir, { emission, from, count: o.lines, day: 1, n: QUICK_FEEDS + o.feeds }))
    }
    return made.get(key)!
  }
  const figures: Record<BenchEngine, Figure[]> = { sqlite: [], postgres: [] }
  try {
    for (const engine of o.engines) figures[engine] = await onEngine(engine, feedsFor, o)
  } finally {
    rmSync(feedDir, { recursive: true, force: true })
  }
  printSideBySide(
    `Under load: ${o.clients} staff clients for ${o.seconds} s while feeds import (p50 / p99 of every call)`,
    figures.sqlite,
    figures.postgres,
  )
  return figures
}
