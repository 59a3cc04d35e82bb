/**
 * The ledger on both engines, side by side in one run (issue 17 part 5): sales per second
 * (simulated, and imported from a feed), ticket and last-10 lookups, reports with a whole block
 * sold, the ledger check, and bytes per sale. A fresh ledger on each engine (ledger-engines.ts:
 * a SQLite file; a PostgreSQL database of its own on CARATS_BENCH_PG, default the local server);
 * real blocks, generated and verified on all cores.
 *   CARATS_BENCH_SALES=<n>         fewer sales than a whole block (quick runs)
 *   CARATS_BENCH_ENGINES=sqlite    one engine only (sqlite, postgres, or both: the default)
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { BlockDeriver } from '../../game-core/block'
import { CARATS } from '../../game-core/carats'
import { formatSerial } from '../../game-core/serial'
import { createHash } from 'node:crypto'
import { createImporter, feedLine, readFeedFile } from '../../electron/services/import'
import { packFastPlay, readFeedLineFast } from '../../electron/services/feed-line'
import { createAlertsService } from '../../electron/services/alerts'
import type { Catalog } from '../../electron/services/catalog'
import type { Db } from '../../electron/ledger/db'
import { checkLedgerData } from '../../electron/services/ledger-check'
import { checkLedger, checkSummary, integrityOf } from '../../electron/services/ledger-integrity'
import { createPlayersService } from '../../electron/services/players'
import { createReports } from '../../electron/services/reports'
import { createSalesGenerator } from '../../electron/services/simulator'
import { TEST_ACTOR } from '../../electron/services/simulator-fixture'
import { createTicketsService } from '../../electron/services/tickets'
import { warmFeedReader } from '../../electron/workers/feed-reader'
import { workerImport } from '../../electron/workers/import-runner'
import { type BenchEngine, benchFixture, type Figure, ledgerBytes, printSideBySide, timeStatements } from './ledger-engines'
import { timeEach } from './stats'

const cpuSeconds = () => {
  const c = process.cpuUsage()
  return (c.user + c.system) / 1e6
}

/**
 * The feeds' periods. A feed as the platform sends it each day: the last day's sales (the block's
 * simulated sales run up to now, so its players' chains take them at or near their head). A late
 * feed: a month from the emission's first weeks, arriving after the block sold since; each of its
 * players' chains is relinked from its head down to the feed's oldest sale (sale-chain.ts).
 */
const lastDay = () => ({ fromMs: Date.now() - 86_400_000, toMs: Date.now() - 60_000 })
const LATE_MONTH = { fromMs: Date.parse('2025-01-02T00:00:00Z'), toMs: Date.parse('2025-02-01T00:00:00Z') }
const LATE_LINES = 20_000

const atLeast = (n: number) => (v: number) => v >= n
const below = (n: number) => (v: number) => v < n

/** The engines this run measures: CARATS_BENCH_ENGINES, both by default. */
function benchEngines(): BenchEngine[] {
  const raw = (process.env.CARATS_BENCH_ENGINES ?? '').trim().toLowerCase()
  if (raw === '' || raw === 'both') return ['sqlite', 'postgres']
  if (raw === 'sqlite' || raw === 'postgres') return [raw]
  throw new Error(`CARATS_BENCH_ENGINES=${raw} is not sqlite, postgres or both`)
}

/**
 * PostgreSQL's autovacuum visits the millions of rows a simulation wrote in the minute after it
 * (setting their hint bits and visibility map): about 10 s of a core, which ran beside the first
 * figures below (the first ledger check took 11 s beside it, 6.7–7.3 s after). Done here first,
 * and timed apart, so that what follows measures the app and not the server's upkeep.
 */
function vacuumAfterSimulation(db: Db): Figure {
  const t = performance.now()
  db.exec('VACUUM (ANALYZE) sales, players')
  return { name: "  then the server's VACUUM of the rows written (autovacuum's work, done before the figures below)", value: (performance.now() - t) / 1000, unit: 's', digits: 2 }
}

/**
 * The server's checkpoint of what was written before (the simulation, its VACUUM), done before
 * the import is timed. With the server's default max_wal_size (1 GB), the checkpoints of that
 * work come every 10–30 s and write for as long; one that fell within the import took its time
 * (99,698 lines/s in one run, 114,672 and 119,862 in the two before). Needs a superuser or the
 * pg_checkpoint role; without it, the import is timed as it comes.
 */
function checkpointBeforeImport(db: Db): Figure {
  const t = performance.now()
  try {
    db.exec('CHECKPOINT')
  } catch (e) {
    process.stderr.write(`  no CHECKPOINT before the import (${(e as Error).message}): timed as it comes\n`)
  }
  return { name: "  before it, the server's CHECKPOINT of the work before (done before the import is timed)", value: (performance.now() - t) / 1000, unit: 's', digits: 2 }
}

export async function benchLedger(opts: { importLines: number }): Promise<Figure[][]> {
  const figures: Record<BenchEngine, Figure[]> = { sqlite: [], postgres: [] }
  for (const engine of benchEngines()) {
    process.stderr.write(`${engine}:\n`)
    figures[engine] = await measureLedger(engine, opts)
    // each engine's figures as soon as they are in (a failure of the other keeps them)
    printSideBySide(`Ledger on ${engine}`, engine === 'sqlite' ? figures.sqlite : [], engine === 'postgres' ? figures.postgres : [])
  }
  const sales = Number(process.env.CARATS_BENCH_SALES || CARATS.blockSize)
  printSideBySide(`Ledger, SQLite and PostgreSQL (${sales.toLocaleString('en-US')} sales simulated)`, figures.sqlite, figures.postgres)
  return [figures.sqlite, figures.postgres]
}

async function measureLedger(engine: BenchEngine, opts: { importLines: number }): Promise<Figure[]> {
  const lines: Figure[] = []
  const sales = Number(process.env.CARATS_BENCH_SALES || CARATS.blockSize)
  const f = benchFixture(engine)
  try {
    const log = (m: string) => process.stderr.write(`  ${m}\n`)
    log('generating and verifying two blocks…')
    const a = await f.openEmission({ startsOn: '2025-01-01' })
    const b = await f.openEmission({ startsOn: '2025-01-01' })
    const emptyBytes = ledgerBytes(engine, f.db)

    // simulate: the whole block
    log(`simulating ${sales.toLocaleString('en-US')} sales…`)
    f.catalog.deriver(a, 1).tiers
    let t = performance.now()
    let c = cpuSeconds()
    await f.simulator.run(TEST_ACTOR, { emission: a, sales, seed: 1 }, { progress: (done) => { if (done % 1_000_000 < 10_000) log(`  ${done.toLocaleString('en-US')}`) } })
    const simWall = (performance.now() - t) / 1000
    const simCpu = cpuSeconds() - c
    lines.push({ name: 'simulate, sales per second', value: sales / simWall, target: '≥ 100,000 (PostgreSQL), ≥ 150,000 (SQLite)', meets: atLeast(engine === 'postgres' ? 100_000 : 150_000) })
    lines.push({ name: '  simulate, per CPU second (this process)', value: sales / simCpu })
    if (engine === 'postgres') lines.push(vacuumAfterSimulation(f.db))

    // bytes per sale
    const perSale = (ledgerBytes(engine, f.db) - emptyBytes) / sales
    lines.push({ name: 'bytes per sale on disk (SQLite: pages in use; PostgreSQL: the database)', value: perSale, unit: 'B', digits: 1, target: '< 250 (SQLite)', meets: engine === 'sqlite' ? below(250) : undefined })

    // lookups
    const tickets = createTicketsService({ db: f.db, catalog: f.catalog, audit: f.audit })
    const players = createPlayersService({ db: f.db, catalog: f.catalog })
    const auditor = { name: 'bench', role: 'auditor' as const }
    const serials = Array.from({ length: 2000 }, (_, i) => formatSerial({ emission: a, block: 1, unit: Math.floor(((i * 7_919_011) % sales)) }))
    const ticket = timeStatements(engine, f.db, 'ticket lookups', () => timeEach(serials.length, (i) => tickets.get(auditor, serials[i])))
    lines.push({ name: 'ticket lookup, p50', value: ticket.p50, unit: 'ms', digits: 3 })
    lines.push({ name: 'ticket lookup, p99', value: ticket.p99, unit: 'ms', digits: 3, target: '< 5 ms', meets: below(5) })
    const names = f.db.prepare('SELECT name FROM players ORDER BY random() LIMIT 2000').pluck().all() as string[]
    const last = timeStatements(engine, f.db, "players' last 10", () => timeEach(names.length, (i) => players.last(names[i])))
    lines.push({ name: "player's last 10, p50", value: last.p50, unit: 'ms', digits: 3 })
    lines.push({ name: "player's last 10, p99", value: last.p99, unit: 'ms', digits: 3, target: '< 5 ms', meets: below(5) })

    // reports, with the whole block sold
    const alerts = createAlertsService({ db: f.db, clock: f.clock, audit: f.audit, catalog: f.catalog })
    const reports = createReports({ db: f.db, clock: f.clock, catalog: f.catalog, alerts })
    t = performance.now()
    reports.depletion({ emission: a, block: 1 })
    lines.push({ name: 'depletion, first (counts the checkpoints)', value: performance.now() - t, unit: 'ms', digits: 1 })
    const dep = timeStatements(engine, f.db, 'depletion of the block', () => timeEach(50, () => reports.depletion({ emission: a, block: 1 })))
    lines.push({ name: 'depletion of the block, p50', value: dep.p50, unit: 'ms', digits: 2 })
    lines.push({ name: 'depletion of the block, p99', value: dep.p99, unit: 'ms', digits: 2, target: '< 100 ms', meets: below(100) })
    const depE = timeEach(50, () => reports.depletion({ emission: a }))
    lines.push({ name: 'depletion of the emission, p99', value: depE.p99, unit: 'ms', digits: 2, target: '< 100 ms', meets: below(100) })
    const dash = timeStatements(engine, f.db, 'dashboard', () => timeEach(50, () => reports.dashboard()))
    lines.push({ name: 'dashboard, p50', value: dash.p50, unit: 'ms', digits: 2 })
    lines.push({ name: 'dashboard, p99', value: dash.p99, unit: 'ms', digits: 2, target: '< 100 ms', meets: below(100) })

    // the ledger check, with the block's tier table derived again from its secret (not the catalog's cached one)
    log('checking the ledger…')
    const fresh: Catalog = { ...f.catalog, deriver: (e, blk) => { const d = f.catalog.deriver(e, blk); return new BlockDeriver(d.def, d.prim, d.ref) } }
    t = performance.now()
    const checked = checkLedgerData({ db: f.db, catalog: fresh })
    const checkSeconds = (performance.now() - t) / 1000
    if (!checked.ok || checked.unitsRederived !== sales) throw new Error(`the ledger check found ${checked.problemCount} problems, re-derived ${checked.unitsRederived} of ${sales} units`)
    lines.push({ name: 'ledger check (counters + prizes re-derived), whole block sold', value: checkSeconds, unit: 's', digits: 2, target: '< 10 s', meets: below(10) })
    // the whole check as `carats ledger check` runs it: the engine's integrity check, the audit log, then the same data check
    t = performance.now()
    const whole = await checkLedger({ db: f.db, dbPath: f.path, catalog: fresh, audit: f.audit, clock: f.clock })
    const wholeSeconds = (performance.now() - t) / 1000
    if (!whole.ok) throw new Error(`the whole ledger check failed: ${JSON.stringify(checkSummary(whole))}`)
    lines.push({ name: 'whole ledger check (integrity beside the above, audit)', value: wholeSeconds, unit: 's', digits: 2, target: '< 10 s', meets: below(10) })
    if (engine === 'sqlite') {
      t = performance.now()
      integrityOf(f.db)
      lines.push({ name: '  SQLite integrity_check alone', value: (performance.now() - t) / 1000, unit: 's', digits: 2 })
    }

    // import: a feed of valid lines into the second emission
    log(`importing a feed of ${opts.importLines.toLocaleString('en-US')} lines…`)
    /** A feed of emission b's units from `from`, as the sales platform would send it: by default the last day's sales. */
    const makeFeed = (from: number, seed: number, period = lastDay(), count = opts.importLines): string[] => {
      const gen = createSalesGenerator({ seed, players: Math.ceil(count / 20), count, ...period, zones: CARATS })
      return Array.from({ length: count }, (_, i) => {
        const d = gen.next()
        return feedLine({ saleId: `F-${from + i}`, serial: formatSerial({ emission: b, block: 1, unit: from + i }), player: d.player, soldAt: d.soldAt, stakeCents: 500, play: d.play })
      })
    }
    const feed = makeFeed(0, 9)
    // read from a file, as `carats sales import` does: the importer is timed from the file's
    // bytes, as it gets them from the command line (the app's way is timed below)
    const feedPath = join(f.dir, 'bench.jsonl')
    writeFileSync(feedPath, feed.join('\n') + '\n')
    feed.length = 0
    f.catalog.deriver(b, 1).tiers
    const importer = createImporter({ db: f.db, clock: f.clock, catalog: f.catalog, sales: f.sales, audit: f.audit })
    t = performance.now()
    // as the command line does: the reader thread starts while the file is read
    warmFeedReader()
    const content = readFeedFile(feedPath)
    // On this sandbox's kernel (gVisor) the pages that read() filled are mapped into the process
    // only when first touched: about 0.5 s for this file, paid by whoever reads the buffer first.
    // Counted here, as part of reading the file; a workstation's kernel maps them during read().
    let touched = 0
    for (let i = 0; i < content.length; i += 4096) touched += content[i]
    const readMs = performance.now() - t
    if (touched < 0) throw new Error('unreachable')
    if (engine === 'postgres') lines.push(checkpointBeforeImport(f.db))
    t = performance.now()
    c = cpuSeconds()
    const r = importer.importContent(TEST_ACTOR, content, 'bench.jsonl')
    const impWall = (performance.now() - t) / 1000
    const impCpu = cpuSeconds() - c
    if (r.imported !== opts.importLines) throw new Error(`the bench feed imported ${r.imported} of ${opts.importLines} lines`)
    lines.push({ name: `import ${opts.importLines.toLocaleString("en-US")} lines (${Math.round(content.length / opts.importLines)} B each, the last day's sales), lines per second`, value: opts.importLines / impWall, target: '≥ 100,000 (PostgreSQL), ≥ 150,000 (SQLite)', meets: atLeast(engine === 'postgres' ? 100_000 : 150_000) })
    lines.push({ name: '  import, per CPU second (this process)', value: opts.importLines / impCpu })
    lines.push({ name: `  before that, reading the ${Math.round(content.length / 1e6)} MB file as the CLI does`, value: readMs / 1000, unit: 's', digits: 2 })
    // the parts of the importer's work that come before any check across lines or any write
    t = performance.now()
    for (let pos = 0; pos < content.length; ) {
      let end = content.indexOf(0x0a, pos)
      if (end < 0) end = content.length
      const l = readFeedLineFast(content, pos, end)
      if (l?.play) packFastPlay(l.play, CARATS.winningCells, CARATS.yoursCells)
      pos = end + 1
    }
    lines.push({ name: '  of which reading the lines alone (plays packed), lines per second', value: opts.importLines / ((performance.now() - t) / 1000) })
    t = performance.now()
    createHash('sha256').update(content).digest('hex')
    lines.push({ name: "  of which the file's SHA-256 alone, lines per second", value: opts.importLines / ((performance.now() - t) / 1000) })
    t = performance.now()
    importer.importContent(TEST_ACTOR, content, 'bench.jsonl')
    lines.push({ name: '  re-import (all already imported), lines per second', value: opts.importLines / ((performance.now() - t) / 1000) })
    // the app's way: the next units' feed as text (as the screen sends it), imported on a worker
    // thread with its own connection. A second feed of the same day and the same players: each of
    // their chains is relinked among the first feed's sales, which costs more than the app's way
    // (on PostgreSQL the same feed from the command line: 33,000-37,000 lines/s; docs/benchmarks.md)
    const text = makeFeed(opts.importLines, 10).join('\n') + '\n'
    t = performance.now()
    const viaApp = await workerImport(f.path, f.clock, f.keyFile)(TEST_ACTOR, text, 'bench-app.jsonl')
    if (viaApp.imported !== opts.importLines) throw new Error(`the app's import took ${viaApp.imported} of ${opts.importLines} lines`)
    lines.push({ name: '  a second feed of the same day and players, from the app (text, worker thread), lines per second', value: opts.importLines / ((performance.now() - t) / 1000) })
    // a late feed: a month of sales from the emission's first weeks, after the block sold since
    const late = makeFeed(2 * opts.importLines, 11, LATE_MONTH, LATE_LINES).join('\n') + '\n'
    t = performance.now()
    const lateImport = importer.importContent(TEST_ACTOR, Buffer.from(late), 'bench-late.jsonl')
    if (lateImport.imported !== LATE_LINES) throw new Error(`the late feed imported ${lateImport.imported} of ${LATE_LINES} lines`)
    lines.push({ name: `late feed (${LATE_LINES.toLocaleString('en-US')} lines of January 2025: each player's newer sales relinked), lines per second`, value: LATE_LINES / ((performance.now() - t) / 1000) })
  } finally {
    f.close()
  }
  return lines
}
