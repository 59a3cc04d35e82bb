/**
 * The regulator's vault's cost (issue 33, item 6), on each engine in one run: a whole block
 * simulated, and a day's feed imported, first with no vault, then with the vault attached and the
 * app's rounds sending beside them (as the hosts do: the import and the simulation on worker
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
const IMPORT_LINES = 200_000

function engines(): BenchEngine[] {
  const raw = (process.env.CARATS_BENCH_ENGINES ?? '').trim().toLowerCase()
  return raw === 'sqlite' || raw === 'postgres' ? [raw] : ['sqlite', 'postgres']
}

/** A day's feed of the emission's first `count` units. */
function feedOf(emission: number, count: number, seed: number): string {
  const now = Date.now()
  const gen = createSalesGenerator({
    seed,
    players: count / 20,
    count,
    fromMs: now - 86_400_000,
    toMs: now - 60_000,
    zones: CARATS,
  })
  const lines = Array.from({ length: count }, (_, i) => {
    const d = gen.next()
    const serial = formatSerial({ emission, block: 1, unit: i })
    return feedLine({
      saleId: `V-${emission}-${i}`,
      serial,
      player: d.player,
      soldAt: d.soldAt,
      stakeCents: 500,
      play: d.play,
    })
  })
  return lines.join('\n') + '\n'
}

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

async function measure(engine: BenchEngine, sales: number): Promise<Figure[]> {
  const f: LedgerFixture = benchFixture(engine)
  const folder = join(mkdtempSync(join(tmpdir(), 'carats-bench-vault-')), 'vault')
  try {
    log('generating and verifying four blocks…')
    const open = () => f.openEmission({ startsOn: '2025-01-01' })
    const [a, b, c, d] = [await open(), await open(), await open(), await open()]
    const keys = openLedgerKey(f.db, f.path, { keyFile: f.keyFile })
    const vault = createVaultService({ db: f.db, clock: f.clock, keys, audit: () => f.audit })
    const simulate = (emission: number) => () => f.simulator.run(TEST_ACTOR, { emission, sales, seed: emission })
    const importer = workerImport(f.path, f.clock, f.keyFile)
    const feedC = feedOf(c, IMPORT_LINES, 3)
    const feedD = feedOf(d, IMPORT_LINES, 4)
    const load = (content: string, name: string) => () => importer(TEST_ACTOR, content, name)

    log(
      `no vault: simulating ${sales.toLocaleString('en-US')} sales, importing ${IMPORT_LINES.toLocaleString('en-US')} lines…`,
    )
    const simAlone = await timed(simulate(a))
    const importAlone = await timed(load(feedC, 'c.jsonl'))

    log('the vault attached: sending the backlog (a whole block and the feed)…')
    vault.attach('bench', folder)
    const backlog = vault.status().behind
    const sendSeconds = await timed(async () => vault.drain())
    const sent = backlog.sales + backlog.entries
    log('vault verify of what it holds…')
    const verifyStart = performance.now()
    const v = verifyVault(folder)
    const verifySeconds = (performance.now() - verifyStart) / 1000
    if (!v.ok) throw new Error(`the bench's vault does not verify: ${v.problems.join('; ')}`)

    log('with the vault: simulating and importing again, the rounds sending beside…')
    const simWith = await withVaultCaughtUp(vault, simulate(b))
    const importWith = await withVaultCaughtUp(vault, load(feedD, 'd.jsonl'))
    const ratio = (name: string, v: number): Figure => ({
      name,
      value: v,
      digits: 2,
      target: '≥ 0.85',
      meets: atLeast(0.85),
    })
    return [
      { name: 'simulate alone, sales per second', value: sales / simAlone },
      { name: '  with the vault sending beside: the simulation', value: sales / simWith.ended },
      ratio('  simulate, with / alone', simAlone / simWith.ended),
      { name: '  … the simulation until the vault caught up', value: sales / simWith.total },
      { name: 'import alone (worker), lines per second', value: IMPORT_LINES / importAlone },
      { name: '  with the vault sending beside: the import', value: IMPORT_LINES / importWith.ended },
      ratio('  import, with / alone', importAlone / importWith.ended),
      { name: '  … the import until the vault caught up', value: IMPORT_LINES / importWith.total },
      {
        name: `a backlog of ${sent.toLocaleString('en-US')} events sent, events per second`,
        value: sent / sendSeconds,
      },
      {
        name: `vault verify, ${v.events.toLocaleString('en-US')} events (a block's sales and a feed), seconds`,
        value: verifySeconds,
        unit: 's',
        digits: 2,
        target: sales === CARATS.blockSize ? '< 10 s' : undefined,
        meets: sales === CARATS.blockSize ? (s) => s < 10 : undefined,
      },
    ]
  } finally {
    f.close()
    rmSync(join(folder, '..'), { recursive: true, force: true })
  }
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
