/**
 * The process that test/integration/ledger-crash.test.ts kills: it sells in batches, generates
 * blocks, simulates sales or imports a sales feed (the last two on the app's worker threads) on
 * the ledger given (and its key file, after --key-file), forever or until it is killed. It
 * prints one line per step done.
 */
import { CARATS } from '../../game-core/carats'
import { formatSerial } from '../../game-core/serial'
import { openBackend } from '../../electron/app/backend'
import { feedLine } from '../../electron/services/import'
import type { SaleInput } from '../../electron/services/sales'
import { createSalesGenerator } from '../../electron/services/simulator'

async function main(): Promise<void> {
  const [mode, dbPath, seedText, keyFlag, keyFile] = process.argv.slice(2)
  if (keyFlag !== undefined && keyFlag !== '--key-file')
    throw new Error(`usage: ${mode} <ledger> <seed> [--key-file <file>]`)
  const b = openBackend({ dbPath, keyFile, threads: 1, actorName: 'crash-test' })
  const s = b.services
  const actor = b.actor
  if (mode === 'sell') {
    let n = Number(seedText) * 1_000_000
    for (;;) {
      const batch: SaleInput[] = []
      for (let i = 0; i < 2000; i++, n++) {
        const events = []
        let t = 0
        for (let c = 0; c < 6; c++)
          events.push({ t: (t += 200 + (n % 97)), zone: 'winning' as const, cell: c, gesture: 'click' as const })
        for (let c = 0; c < 24; c++)
          events.push({
            t: (t += 40),
            zone: 'yours' as const,
            cell: c,
            gesture: n % 2 ? ('drag' as const) : ('click' as const),
          })
        batch.push({
          emission: 1,
          player: `crash-${n % 101}`,
          soldAt: Date.parse('2026-03-02T09:00:00Z') + n * 700,
          saleId: `C-${n}`,
          play: { mode: 'play', status: 'complete', events },
        })
      }
      s.sales.sellBatch(batch, { records: false })
      process.stdout.write('sold\n')
    }
  }
  if (mode === 'simulate') {
    await s.simulator.run(
      actor,
      { emission: 1, sales: 4_000_000, seed: Number(seedText) },
      { signal: new AbortController().signal, progress: (done) => process.stdout.write(`simulated ${done}\n`) },
    )
    process.stdout.write('done\n')
    setInterval(() => {}, 1000)
  }
  if (mode === 'import') {
    // a feed of the next 30,000 units, imported as the app imports (on a worker thread); then wait to be killed
    const next = s.sales.nextUnit(1)!
    const gen = createSalesGenerator({
      seed: Number(seedText),
      players: 500,
      count: 30_000,
      fromMs: Date.parse('2026-03-03T00:00:00Z'),
      toMs: Date.parse('2026-03-04T00:00:00Z'),
      zones: CARATS,
    })
    const lines: string[] = []
    for (let i = 0; i < 30_000; i++) {
      const d = gen.next()
      lines.push(
        feedLine({
          saleId: `I-${seedText}-${i}`,
          serial: formatSerial({ emission: 1, block: next.block, unit: next.unit + i }),
          player: d.player,
          soldAt: d.soldAt,
          stakeCents: 500,
          play: d.play,
        }),
      )
    }
    process.stdout.write('importing\n')
    const r = await s.importer.importContent(actor, lines.join('\n'), `crash-${seedText}.jsonl`)
    process.stdout.write(`imported ${r.imported}\n`)
    setInterval(() => {}, 1000)
  }
  if (mode === 'generate') {
    if (s.emissions.list().every((e) => e.emission !== 2)) s.emissions.create(actor, { blocks: 2, demo: true })
    const job = s.emissions.generate(actor, 2)
    process.stdout.write('generating\n')
    const end = await s.jobs.wait(job.id)
    process.stdout.write(`${end.state}\n`)
    b.close()
  }
}

main().catch((e) => {
  process.stderr.write(String(e?.stack ?? e) + '\n')
  process.exit(1)
})
