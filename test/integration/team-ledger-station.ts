/**
 * One workstation of test/integration/team-ledger-sales.test.ts: a process of its own on the
 * ledger given (and its key file), as a workstation is. It prints one line per step, each with the
 * time (ms since the epoch) it happened, and exits 0 when its work is done.
 *
 *   simulate <ledger> <sales> <seed> [--key-file <file>]
 *     the simulator sells <sales> sales on emission 1 (on its worker thread, as the app does):
 *     `started <ms>`, `simulated <n> <ms>` per progress, `done <ms>`.
 *   import <ledger> <rounds> <lines> <seed> [--key-file <file>]
 *     <rounds> times: a feed of <lines> sales from emission 1's next unit, imported as the app
 *     imports (a worker thread, streamed when large): `imported <n> <ms>`, or
 *     `refused <code> <ms>` when the units were sold by the other workstation in between.
 */
import { CARATS } from '../../game-core/carats'
import { formatSerial } from '../../game-core/serial'
import { openBackend, type Backend } from '../../electron/app/backend'
import { feedLine } from '../../electron/services/import'
import { createSalesGenerator } from '../../electron/services/simulator'

const say = (line: string) => process.stdout.write(`${line} ${Date.now()}\n`)

async function simulate(b: Backend, sales: number, seed: number): Promise<void> {
  say('started')
  await b.services.simulator.run(
    b.actor,
    { emission: 1, sales, seed },
    { signal: new AbortController().signal, progress: (done) => say(`simulated ${done}`) },
  )
  say('done')
}

/**
 * A feed of `lines` sales of emission 1 from its next unit, sold on 5 March 2026 + `round` days by
 * 300 players of the feed's own (the simulator's sales run from March to now: a late feed of the
 * simulator's players would relink their chains, which docs/benchmarks.md measures apart).
 */
function nextFeed(b: Backend, lines: number, seed: number, round: number): string {
  const next = b.services.sales.nextUnit(1)
  if (!next) throw new Error('emission 1 has no unit left to sell')
  const from = Date.parse('2026-03-05T00:00:00Z') + round * 86_400_000
  const gen = createSalesGenerator({
    seed: seed * 100 + round,
    players: 300,
    count: lines,
    fromMs: from,
    toMs: from + 86_400_000,
    zones: CARATS,
  })
  const out: string[] = []
  for (let i = 0; i < lines; i++) {
    const d = gen.next()
    const serial = formatSerial({ emission: 1, block: next.block, unit: next.unit + i })
    out.push(
      feedLine({
        saleId: `T-${seed}-${round}-${i}`,
        serial,
        player: `feed${seed}-${d.player}`,
        soldAt: d.soldAt,
        stakeCents: 500,
        play: d.play,
      }),
    )
  }
  return out.join('\n') + '\n'
}

async function importRounds(b: Backend, rounds: number, lines: number, seed: number): Promise<void> {
  for (let round = 0; round < rounds; round++) {
    const feed = nextFeed(b, lines, seed, round)
    try {
      const r = await b.services.importer.importContent(b.actor, feed, `station-${seed}-${round}.jsonl`)
      say(`imported ${r.imported}`)
    } catch (e) {
      const code = (e as { code?: string }).code
      if (code !== 'IMPORT_REJECTED') throw e
      say(`refused ${code}`)
    }
  }
}

async function main(): Promise<void> {
  const args = process.argv.slice(2)
  const k = args.indexOf('--key-file')
  const keyFile = k >= 0 ? args.splice(k, 2)[1] : undefined
  const [mode, dbPath, ...rest] = args
  const b = openBackend({ dbPath, keyFile, threads: 1, actorName: `station-${process.pid}` })
  try {
    if (mode === 'simulate') await simulate(b, Number(rest[0]), Number(rest[1]))
    else if (mode === 'import') await importRounds(b, Number(rest[0]), Number(rest[1]), Number(rest[2]))
    else
      throw new Error(
        `usage: simulate <ledger> <sales> <seed> | import <ledger> <rounds> <lines> <seed>, then [--key-file <file>]; not ${mode}`,
      )
  } finally {
    await b.closeGracefully()
  }
}

main().then(
  () => process.exit(0),
  (e) => {
    process.stderr.write(String(e?.stack ?? e) + '\n')
    process.exit(1)
  },
)
