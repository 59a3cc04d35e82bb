/**
 * The regulator's vault's cost (issue 33, item 6), on each engine in one run: a whole block
 * simulated, and a day's feed imported, on a fresh ledger with no vault, then the same on a second
 * fresh ledger with the vault attached and the app's rounds sending beside them (as the hosts do: the import and the simulation on worker
 * threads, the rounds on the main thread), each timed until the vault has caught up; the rate at
 * which a backlog is sent; and `vault verify` of the vault holding a whole block's sales.
 *   CARATS_BENCH_SALES=<n>      fewer sales than a whole block (quick runs)
 *   CARATS_BENCH_ENGINES=sqlite one engine only (sqlite, postgres, or both: the default)
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { CARATS } from '../../game-core/carats'
import { formatSerial } from '../../game-core/serial'
import { feedLine, workerImport } from '../../electron/services/import'
import { createSalesGenerator } from '../../electron/services/simulator'
import { createVaultService, verifyVault, type VaultService } from '../../electron/services/vault'
import { openLedgerKey } from '../../electron/ledger/keystore'
import { TEST_ACTOR, type LedgerFixture } from '../support/simulator-world'
import { type BenchEngine, benchFixture, type Figure, printSideBySide } from './ledger-engines'

const atLeast = (n: number) => (v: number) => v >= n
const log = (m: string) => process.stderr.write(`  ${m}\n`)
/** Feeds imported on each side, one after the other (their median is kept: one import is a noisy measure). */
const IMPORTS = 3
const IMPORT_LINES = 100_000
const DAY_MS = 86_400_000

function engines(): BenchEngine[] {
  const raw = (process.env.CARATS_BENCH_ENGINES ?? '').trim().toLowerCase()
  return raw === 'sqlite' || raw === 'postgres' ? [raw] : ['sqlite', 'postgres']
}

/** Feed `round` of the emission: `count` units after the rounds before, sold on a day of its own (in order). */
function feedOf(emission: number, count: number, round: number): string {
  const from = Date.now() - (IMPORTS + 1) * DAY_MS + round * DAY_MS
  const gen = createSalesGenerator({
    seed: round + 3,
    players: count / 20,
    count,
    fromMs: from,
    toMs: from + DAY_MS - 60_000,
    zones: CARATS,
  })
  const lines = Array.from({ length: count }, (_, k) => {
    const d = gen.next()
    const unit = round * count + k
    return feedLine({
      saleId: `V-${emission}-${unit}`,
      serial: formatSerial({ emission, block: 1, unit }),
      player: d.player,
      soldAt: d.soldAt,
      stakeCents: 500,
      play: d.play,
    })
  })
  return lines.join('\n') + '\n'
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

/** Seconds until `work` has ended and the vault has received everything (the app's rounds send beside it). */
async function withVaultCaughtUp(
  vault: VaultService,
  work: () => Promise<unknown>,
): Promise<{ ended: number; total: number }> {
  const t = performance.now()
  vault.startShipping()
  await work()
  const ended = (performance.now() - t) / 1000
  while (vault.status().behind.sales + vault.status().behind.entries > 0) await new Promise((r) => setTimeout(r, 20))
  vault.stopShipping()
  const total = (performance.now() - t) / 1000
  log(`  the work ended at ${ended.toFixed(1)} s, the vault caught up at ${total.toFixed(1)} s`)
  return { ended, total }
}

async function timed(work: () => Promise<unknown>): Promise<number> {
  const t = performance.now()
  await work()
  return (performance.now() - t) / 1000
}

/** One ledger, two emissions on sale: a whole block simulated into the first, a feed of the second imported. */
async function ledgerWithTwoEmissions(engine: BenchEngine) {
  const f: LedgerFixture = benchFixture(engine)
  log('generating and verifying two blocks…')
  const open = () => f.openEmission({ startsOn: '2025-01-01' })
  const [sim, feed] = [await open(), await open()]
  const keys = openLedgerKey(f.db, f.path, { keyFile: f.keyFile })
  const vault = createVaultService({ db: f.db, clock: f.clock, keys, audit: () => f.audit })
  const importer = workerImport(f.path, f.clock, f.keyFile)
  const simulate = (sales: number) => () => f.simulator.run(TEST_ACTOR, { emission: sim, sales, seed: 7 })
  const feeds = Array.from({ length: IMPORTS }, (_, r) => feedOf(feed, IMPORT_LINES, r))
  const load = (r: number) => () => importer(TEST_ACTOR, feeds[r], `day-${r}.jsonl`)
  return { f, vault, simulate, load }
}

/**
 * The same work on two fresh ledgers: one with no vault (then attached, to send its backlog and
 * verify it), one with the vault attached before the work and its rounds sending beside it.
 */
async function measure(engine: BenchEngine, sales: number): Promise<Figure[]> {
  const dir = mkdtempSync(join(tmpdir(), 'carats-bench-vault-'))
  const alone = await ledgerWithTwoEmissions(engine)
  let simAlone: number, importAlone: number, sent: number, sendSeconds: number
  let verifySeconds: number, verified: number
  try {
    log(
      `no vault: simulating ${sales.toLocaleString('en-US')} sales, importing ${IMPORTS} feeds of ${IMPORT_LINES.toLocaleString('en-US')} lines…`,
    )
    simAlone = await timed(alone.simulate(sales))
    const took: number[] = []
    for (let r = 0; r < IMPORTS; r++) took.push(await timed(alone.load(r)))
    importAlone = median(took)
    log('the vault attached after: sending the backlog (a whole block and the feed)…')
    alone.vault.attach('bench', join(dir, 'after'))
    const backlog = alone.vault.status().behind
    sent = backlog.sales + backlog.entries
    sendSeconds = await timed(async () => alone.vault.drain())
    log('vault verify of what it holds…')
    verifySeconds = await timed(async () => {
      const v = verifyVault(join(dir, 'after'))
      if (!v.ok) throw new Error(`the bench's vault does not verify: ${v.problems.join('; ')}`)
      verified = v.events
    })
  } finally {
    alone.f.close()
  }
  const beside = await ledgerWithTwoEmissions(engine)
  let simWith: { ended: number; total: number }, importWith: { ended: number; total: number }
  try {
    log('a second ledger, the vault attached before: the same work, the rounds sending beside…')
    beside.vault.attach('bench', join(dir, 'before'))
    simWith = await withVaultCaughtUp(beside.vault, beside.simulate(sales))
    const runs: { ended: number; total: number }[] = []
    for (let r = 0; r < IMPORTS; r++) runs.push(await withVaultCaughtUp(beside.vault, beside.load(r)))
    importWith = { ended: median(runs.map((x) => x.ended)), total: median(runs.map((x) => x.total)) }
  } finally {
    beside.f.close()
    rmSync(dir, { recursive: true, force: true })
  }
  const ratio = (name: string, v: number): Figure => ({
    name,
    value: v,
    digits: 2,
    target: '≥ 0.85',
    meets: atLeast(0.85),
  })
  const whole = sales === CARATS.blockSize
  return [
    { name: 'simulate alone, sales per second', value: sales / simAlone },
    { name: '  with the vault sending beside: the simulation', value: sales / simWith.ended },
    ratio('  simulate, with / alone', simAlone / simWith.ended),
    { name: '  … the simulation until the vault caught up', value: sales / simWith.total },
    { name: `import alone (worker), lines per second, median of ${IMPORTS}`, value: IMPORT_LINES / importAlone },
    { name: '  with the vault sending beside: the import', value: IMPORT_LINES / importWith.ended },
    ratio('  import, with / alone', importAlone / importWith.ended),
    { name: '  … the import until the vault caught up', value: IMPORT_LINES / importWith.total },
    { name: `a backlog of ${sent.toLocaleString('en-US')} events sent, events per second`, value: sent / sendSeconds },
    {
      name: `vault verify, ${verified!.toLocaleString('en-US')} events (a block's sales and a feed), seconds`,
      value: verifySeconds,
      unit: 's',
      digits: 2,
      target: whole ? '< 10 s' : undefined,
      meets: whole ? (s) => s < 10 : undefined,
    },
  ]
}

export async function benchVault(): Promise<void> {
  const sales = Number(process.env.CARATS_BENCH_SALES || CARATS.blockSize)
  const out: Record<BenchEngine, Figure[]> = { sqlite: [], postgres: [] }
  for (const engine of engines()) {
    process.stderr.write(`${engine}:\n`)
    out[engine] = await measure(engine, sales)
  }
  printSideBySide(`The vault (${sales.toLocaleString('en-US')} sales a block)`, out.sqlite, out.postgres)
}
