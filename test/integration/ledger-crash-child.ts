/**
 * The process that test/integration/ledger-crash.test.ts kills: it sells in batches, or generates
 * blocks, on the ledger given, forever or until it is killed. It prints one line per step done.
 */
import { openBackend } from '../../electron/services/backend'
import type { SaleInput } from '../../electron/services/sales'

async function main(): Promise<void> {
  const [mode, dbPath, seedText] = process.argv.slice(2)
  const b = openBackend({ dbPath, threads: 1, actorName: 'crash-test' })
  const s = b.services
  const actor = b.actor
  if (mode === 'sell') {
    let n = Number(seedText) * 1_000_000
    for (;;) {
      const batch: SaleInput[] = []
      for (let i = 0; i < 2000; i++, n++) {
        const events = []
        let t = 0
        for (let c = 0; c < 6; c++) events.push({ t: (t += 200 + (n % 97)), zone: 'winning' as const, cell: c, gesture: 'click' as const })
        for (let c = 0; c < 24; c++) events.push({ t: (t += 40), zone: 'yours' as const, cell: c, gesture: n % 2 ? ('drag' as const) : ('click' as const) })
        batch.push({ emission: 1, player: `crash-${n % 101}`, soldAt: Date.parse('2026-03-02T09:00:00Z') + n * 700, saleId: `C-${n}`, play: { mode: 'play', status: 'complete', events } })
      }
      s.sales.sellBatch(batch, { records: false })
      process.stdout.write('sold\n')
    }
  }
  if (mode === 'generate') {
    if (s.emissions.list().every((e) => e.emission !== 2)) s.emissions.create(actor, { blocks: 2 })
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
