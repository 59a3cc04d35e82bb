/**
 * `npm run bench -- load` (issue 30, item 5): a team under load on one browser host, on SQLite and
 * on PostgreSQL in one run. For each engine, a fresh ledger (load-ledger.ts: a real block opened,
 * staff accounts, a first day of sales with its claims) and the real host in a child process on
 * loopback (load-host.ts). Then:
 *   1. the scenario: three feeds uploaded one after another while five colleagues sign in
 *      and out; do all succeed?
 *   2. N staff clients for a fixed time (sign-in, ticket, last game, dashboard, a claim step,
 *      sign-out; load-clients.ts) while an operator uploads feeds back to back.
 * Figures per kind of call, side by side (load-figures.ts), then the sales the ledger holds
 * against those imported: nothing lost, nothing half-written.
 *   CARATS_BENCH_LOAD_CLIENTS=<n>   staff clients (20)
 *   CARATS_BENCH_LOAD_SECONDS=<s>   how long they work (60)
 *   CARATS_BENCH_LOAD_LINES=<n>     lines per feed (50,000)
 *   CARATS_BENCH_LOAD_FEEDS=<n>     feeds ready for the timed part (6; uploads stop when time is up)
 *   CARATS_BENCH_ENGINES=sqlite     one engine only (sqlite, postgres, or both: the default)
 * Every call has a time limit (30 s, an upload 180 s), each part a deadline after which the host
 * is killed; the host is stopped, the files removed and the database dropped at the end.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Session } from '../../electron/contract/types'
import { ClaimDesk, signingInColleague, staffClient, uploadInTurn, type Run, type Upload } from './load-clients'
import { writeFeeds, type Feed } from './load-feeds'
import { importingSeconds, imported, opFigures, opLines, sideFigures, uploadLines } from './load-figures'
import { callApi, startChildHost, type ChildHost } from './load-host'
import { countSales, fillLoadLedger, LOAD_PASSWORD, newLoadLedger, type LoadLedger, type LoadWorld } from './load-ledger'
import { type BenchEngine, type Figure, printSideBySide } from './ledger-engines'
import { fmt, printTable, type BenchLine } from './stats'

interface LoadOptions {
  clients: number
  seconds: number
  lines: number
  feeds: number
  engines: BenchEngine[]
}

const CALL_TIMEOUT_MS = 30_000
const UPLOAD_TIMEOUT_MS = 180_000
/** The scenario: three uploads, five colleagues. */
const QUICK_FEEDS = 3
const COLLEAGUES = 5

const log = (m: string) => process.stderr.write(`  ${m}\n`)

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

/** `work`, unless it outlasts `ms`: then `kill` (the host) and a clear error. */
async function within<T>(ms: number, what: string, kill: () => void, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      kill()
      reject(new Error(`${what} did not end within ${fmt(ms / 1000, 0)} s: the host was killed`))
    }, ms)
  })
  try {
    return await Promise.race([work, late])
  } finally {
    clearTimeout(timer)
  }
}

async function operatorToken(base: string, world: LoadWorld): Promise<string> {
  const r = await callApi<Session>(base, 'auth:login', { name: world.operator.name, password: LOAD_PASSWORD }, null, CALL_TIMEOUT_MS)
  if (!r.ok) throw new Error(`the operator could not sign in to upload the feeds: ${r.error}`)
  return r.result.token
}

interface Scenario {
  run: Run
  uploads: Upload[]
  windowMs: number
}

/** The scenario: the uploads one after another, the colleagues signing in until the last ends. */
async function quickScenario(base: string, world: LoadWorld, feeds: Feed[]): Promise<Scenario> {
  const token = await operatorToken(base, world)
  const run: Run = { base, world, t0: performance.now(), timeoutMs: CALL_TIMEOUT_MS, samples: [] }
  let done = false
  const colleagues = world.staff.slice(0, COLLEAGUES).map((who) => signingInColleague(run, who, () => done))
  const uploads = await uploadInTurn(run, token, feeds, Infinity, UPLOAD_TIMEOUT_MS).finally(() => (done = true))
  await Promise.all(colleagues)
  return { run, uploads, windowMs: performance.now() - run.t0 }
}

/** The staff at their desks for the fixed time, the operator uploading feeds back to back meanwhile. */
async function loadScenario(base: string, world: LoadWorld, feeds: Feed[], o: LoadOptions): Promise<Scenario> {
  const token = await operatorToken(base, world)
  const run: Run = { base, world, t0: performance.now(), timeoutMs: CALL_TIMEOUT_MS, samples: [] }
  const windowMs = o.seconds * 1000
  const desk = new ClaimDesk(world.pendingClaims)
  const clients = world.staff.map((who, i) => staffClient(run, desk, who, i + 1, windowMs))
  const uploads = await uploadInTurn(run, token, feeds, windowMs, UPLOAD_TIMEOUT_MS)
  await Promise.all(clients)
  if (desk.idle) log(`${desk.idle} claim steps skipped: no claim was waiting at that step`)
  return { run, uploads, windowMs }
}

interface EngineResult {
  engine: BenchEngine
  quick: Scenario
  load: Scenario
  salesBefore: number
  salesAfter: number
  hostExit: string | null
}

async function scenarios(ledger: LoadLedger, host: ChildHost, world: LoadWorld, feeds: Feed[], o: LoadOptions) {
  const kill = () => void host.stop(0)
  log(`${ledger.engine}: three uploads while ${COLLEAGUES} colleagues sign in…`)
  const quick = await within(QUICK_FEEDS * UPLOAD_TIMEOUT_MS + 60_000, 'the three uploads', kill, quickScenario(host.url, world, feeds.slice(0, QUICK_FEEDS)))
  log(`${ledger.engine}: ${o.clients} staff for ${o.seconds} s while feeds import…`)
  const load = await within(o.seconds * 1000 + UPLOAD_TIMEOUT_MS + 60_000, 'the timed part', kill, loadScenario(host.url, world, feeds.slice(QUICK_FEEDS), o))
  return { quick, load }
}

async function onEngine(engine: BenchEngine, feedsFor: (emission: number, from: number) => Feed[], o: LoadOptions): Promise<EngineResult> {
  const ledger = newLoadLedger(engine)
  let host: ChildHost | null = null
  try {
    log(`${engine}: a real block generated, verified and opened; ${o.clients} staff accounts; a first day of ${o.lines.toLocaleString('en-US')} sales…`)
    const world = await fillLoadLedger(ledger, { clients: o.clients, firstDay: o.lines })
    const feeds = feedsFor(world.emission, world.soldUnits)
    host = await startChildHost(ledger)
    const { quick, load } = await scenarios(ledger, host, world, feeds, o)
    const hostExit = host.exit()
    if (hostExit) log(`${engine}: the host ended during the run (${hostExit}):\n${host.stderrTail()}`)
    await host.stop()
    return { engine, quick, load, salesBefore: world.sales, salesAfter: await countSales(ledger), hostExit }
  } finally {
    await host?.stop(1000)
    ledger.drop()
  }
}

function quickLines(q: Scenario): BenchLine[] {
  const figures = opFigures(q.run.samples, q.uploads)
  const failed = figures.reduce((n, f) => n + f.errors, 0)
  const allOk = failed === 0 && q.uploads.length === QUICK_FEEDS && q.uploads.every((u) => u.outcome.ok)
  const calls = figures.flatMap((f) => [
    { name: `${f.op}: ${f.n.toLocaleString('en-US')} calls, ${f.errors} failed; p50 / p99 / max`, value: `${fmt(f.p50, 1)} / ${fmt(f.p99, 1)} / ${fmt(f.max, 0)} ms` },
    ...f.why.slice(0, 4).map(([why, n]) => ({ name: `  ${n} × ${why}`.slice(0, 52), value: '' })),
  ])
  return [...uploadLines(q.uploads), ...calls, { name: `all ${QUICK_FEEDS} uploads and every sign-in succeed`, value: allOk ? 'yes' : 'no', ok: allOk }]
}

function loadLines(r: EngineResult, o: LoadOptions): BenchLine[] {
  const { load } = r
  const expected = r.salesBefore + r.quick.uploads.reduce((n, u) => n + imported(u), 0) + load.uploads.reduce((n, u) => n + imported(u), 0)
  return [
    ...opLines(opFigures(load.run.samples, load.uploads), r.engine),
    ...uploadLines(load.uploads),
    { name: `an upload in progress, of the ${o.seconds} s`, value: `${fmt(importingSeconds(load.uploads, load.windowMs), 1)} s` },
    { name: 'sales in the ledger after, against those imported', value: `${r.salesAfter.toLocaleString('en-US')} / ${expected.toLocaleString('en-US')}`, ok: r.salesAfter === expected },
    ...(r.hostExit ? [{ name: 'the host ended during the run', value: r.hostExit, ok: false }] : []),
  ]
}

const ENGINE_NAME: Record<BenchEngine, string> = { sqlite: 'SQLite', postgres: 'PostgreSQL' }

function quickFigures(q: Scenario): Figure[] {
  const signIns = q.run.samples.filter((s) => s.op === 'sign-in')
  return [
    { name: `three uploads: imported, of ${QUICK_FEEDS}`, value: q.uploads.filter((u) => u.outcome.ok).length, target: String(QUICK_FEEDS), meets: (v) => v === QUICK_FEEDS },
    { name: 'three uploads: sign-ins failed', value: signIns.filter((s) => s.error).length, target: '0', meets: (v) => v === 0 },
    { name: 'three uploads: slowest sign-in', value: Math.max(...signIns.map((s) => s.ms)), unit: 'ms' },
  ]
}

export async function benchLoad(o: LoadOptions = loadOptions()): Promise<Figure[][]> {
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
  const results: EngineResult[] = []
  try {
    for (const engine of o.engines) results.push(await onEngine(engine, feedsFor, o))
  } finally {
    rmSync(feedDir, { recursive: true, force: true })
  }
  for (const r of results) {
    printTable(`Under load, ${ENGINE_NAME[r.engine]}: three feeds of ${o.lines.toLocaleString('en-US')} lines uploaded one after another while ${COLLEAGUES} colleagues sign in`, quickLines(r.quick))
    printTable(`Under load, ${ENGINE_NAME[r.engine]}: ${o.clients} staff for ${o.seconds} s while feeds import back to back`, loadLines(r, o))
  }
  const side = results.map((r) => [...sideFigures(r.engine, opFigures(r.load.run.samples, r.load.uploads), r.load.uploads), ...quickFigures(r.quick)])
  const [lite, pg] = [results.findIndex((r) => r.engine === 'sqlite'), results.findIndex((r) => r.engine === 'postgres')]
  printSideBySide(`Under load: ${o.clients} staff clients for ${o.seconds} s while feeds import (p50 / p99 of every call)`, side[lite] ?? [], side[pg] ?? [])
  return side
}

