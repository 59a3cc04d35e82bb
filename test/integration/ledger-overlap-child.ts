/**
 * A workstation of test/integration/ledger-overlap.test.ts, in a process of its own (a
 * workstation's calls block its thread: two backends in one process would take turns). It prints
 * one line per step with the time (ms since the epoch) it happened.
 *
 *   hold <ledger> <key-file> <release-file> <units> <players> <players-prefix>
 *     sells emission 1's next <units> units to players <prefix>0 … <prefix><players - 1>, as an import writes a
 *     feed (checkedStream, inside one transaction, its players' totals written: every lock of a
 *     feed's import held), prints `holding`, then keeps the transaction open until <release-file>
 *     exists, commits and prints `committed`.
 *   import <ledger> <key-file> <emission> <lines> <seed> <players-prefix> <players>
 *     imports a feed of <lines> sales of the emission from its next unit, a day after the held
 *     feed's (the importer, as the app imports), sold to <players-prefix>0 … <players-prefix>
 *     <players - 1> in turn; prints `importing`, then `imported <n>`.
 */
import { existsSync } from 'node:fs'
import { CARATS } from '../../game-core/carats'
import { formatSerial } from '../../game-core/serial'
import { NO_PLAY } from '../../electron/ledger/play-codec'
import { openBackend, type Backend } from '../../electron/app/backend'
import { feedLine } from '../../electron/services/import'
import { createSalesGenerator } from '../../electron/services/simulator'

const say = (line: string) => process.stdout.write(`${line} ${Date.now()}\n`)
const T0 = Date.parse('2026-03-03T08:00:00Z')

function sleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)
}

function hold(b: Backend, release: string, units: number, players: number, prefix: string): void {
  const { db, sales } = b.services
  db.transaction(() => {
    const stream = sales.checkedStream(1)
    stream.add({
      count: units,
      players: Array.from({ length: units }, (_, i) => `${prefix}${i % players}`),
      soldAt: Float64Array.from({ length: units }, (_, i) => T0 + i * 1000),
      codes: new Uint8Array(units).fill(NO_PLAY),
      ends: new Uint32Array(units),
      events: new Uint8Array(0),
    })
    stream.finish()
    say('holding')
    while (!existsSync(release)) sleep(20)
  }).immediate()
  say('committed')
}

async function importFeed(
  b: Backend,
  emission: number,
  lines: number,
  seed: number,
  prefix: string,
  players: number,
): Promise<void> {
  const next = b.services.sales.nextUnit(emission)!
  const gen = createSalesGenerator({
    seed,
    players,
    count: lines,
    fromMs: T0 + 86_400_000,
    toMs: T0 + 2 * 86_400_000,
    zones: CARATS,
  })
  const out: string[] = []
  for (let i = 0; i < lines; i++) {
    const d = gen.next()
    const serial = formatSerial({ emission, block: next.block, unit: next.unit + i })
    out.push(
      feedLine({
        saleId: `O-${seed}-${i}`,
        serial,
        player: `${prefix}${i % players}`,
        soldAt: d.soldAt,
        stakeCents: 500,
        play: d.play,
      }),
    )
  }
  say('importing')
  const r = await b.services.importer.importContent(b.actor, out.join('\n') + '\n', `overlap-${seed}.jsonl`)
  say(`imported ${r.imported}`)
}

async function main(): Promise<void> {
  const [mode, dbPath, keyFile, ...rest] = process.argv.slice(2)
  const b = openBackend({ dbPath, keyFile: keyFile || undefined, threads: 1, actorName: 'overlap-test' })
  try {
    if (mode === 'hold') hold(b, rest[0], Number(rest[1]), Number(rest[2]), rest[3])
    else if (mode === 'import')
      await importFeed(b, Number(rest[0]), Number(rest[1]), Number(rest[2]), rest[3], Number(rest[4]))
    else throw new Error(`unknown mode ${mode}`)
  } finally {
    await b.closeGracefully()
  }
}

main().catch((e) => {
  process.stderr.write(String(e?.stack ?? e) + '\n')
  process.exit(1)
})
