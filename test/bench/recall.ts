/**
 * Last-game recall with a whole block sold: the player's last 10 and a page of history (read on
 * the index sales_by_player); what a late feed costs against the same feed on time, in the same
 * process; and the ledger check after them. CARATS_BENCH_SALES=<n> sells fewer units (quick runs).
 */
import { join } from 'node:path'
import { writeFileSync } from 'node:fs'
import { CARATS } from '../../game-core/carats'
import { formatSerial } from '../../game-core/serial'
import { createImporter, feedLine, readFeedFile } from '../../electron/services/import'
import { createPlayersService } from '../../electron/services/players'
import { checkLedgerData } from '../../electron/services/ledger-office'
import { openLedgerFixture, TEST_ACTOR } from '../support/simulator-world'
import { type BenchLine, fmt, printTable, seconds, timeEach } from './stats'

const FEED_LINES = 100_000

export async function benchRecall(): Promise<BenchLine[]> {
  const lines: BenchLine[] = []
  const sales = Number(process.env.CARATS_BENCH_SALES || CARATS.blockSize)
  const f = openLedgerFixture({ workers: true })
  const log = (m: string) => process.stderr.write(`  ${m}\n`)
  try {
    log('generating and verifying two blocks…')
    const a = await f.openEmission({ startsOn: '2025-01-01' })
    const b = await f.openEmission({ startsOn: '2025-01-01' })
    log(`simulating ${sales.toLocaleString('en-US')} sales…`)
    await f.simulator.run(TEST_ACTOR, { emission: a, sales, seed: 1 })
    const players = createPlayersService({ db: f.db, catalog: f.catalog })
    const names = f.db.prepare('SELECT name FROM players ORDER BY random() LIMIT 2000').pluck().all() as string[]
    const last = timeEach(names.length, (i) => players.last(names[i]))
    lines.push({ name: "player's last 10, p50", value: `${fmt(last.p50, 3)} ms` })
    lines.push({ name: "player's last 10, p99", value: `${fmt(last.p99, 3)} ms`, target: '< 5 ms', ok: last.p99 < 5 })
    const page = timeEach(names.length, (i) => players.history(names[i], { page: 2, pageSize: 20 }))
    lines.push({ name: 'history page 2 (20 units), p99', value: `${fmt(page.p99, 3)} ms` })

    // two feeds of emission b to the simulated players: one sold after every simulated sale,
    // the other sold before all of them (a late feed); each is timed against the other
    const [from, to] = f.db.prepare('SELECT min(sold_at), max(sold_at) FROM sales').raw().get() as [number, number]
    const importer = createImporter({ db: f.db, clock: f.clock, catalog: f.catalog, sales: f.sales, audit: f.audit })
    const feedFile = (first: number, at: (i: number) => number, name: string) => {
      const path = join(f.dir, name)
      writeFileSync(
        path,
        Array.from({ length: FEED_LINES }, (_, i) =>
          feedLine({
            saleId: `${name}-${i}`,
            serial: formatSerial({ emission: b, block: 1, unit: first + i }),
            player: names[i % names.length],
            soldAt: at(i),
            stakeCents: 500,
            play: null,
          }),
        ).join('\n') + '\n',
      )
      return path
    }
    const span = Math.max(1, to - from)
    const onTime = feedFile(0, (i) => to + 1 + i, 'on-time.jsonl')
    const late = feedFile(FEED_LINES, (i) => from + Math.floor((i * span) / FEED_LINES), 'late.jsonl')
    f.catalog.deriver(b, 1).tiers
    const onTimeS = seconds(() => importer.importContent(TEST_ACTOR, readFeedFile(onTime), 'on-time.jsonl'))
    const lateS = seconds(() => importer.importContent(TEST_ACTOR, readFeedFile(late), 'late.jsonl'))
    lines.push({
      name: `import ${FEED_LINES.toLocaleString('en-US')} lines sold after all others, lines per second`,
      value: fmt(FEED_LINES / onTimeS, 0),
    })
    lines.push({
      name: '  the same, sold among the older sales (a late feed), lines per second',
      value: fmt(FEED_LINES / lateS, 0),
    })
    lines.push({ name: '  late / on time', value: fmt(onTimeS / lateS, 2) })

    let problems = 0
    const checkS = seconds(
      () => (problems = checkLedgerData({ db: f.db, catalog: f.catalog }, { prizes: false }).problemCount),
    )
    if (problems) throw new Error(`the ledger check found ${problems} problems after the feeds`)
    lines.push({
      name: 'ledger check of the counters and newest sales (prizes not re-derived), seconds',
      value: fmt(checkS, 2),
    })
  } finally {
    f.close()
  }
  printTable('Last-game recall', lines)
  return lines
}
