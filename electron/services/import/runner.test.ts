import { readdirSync, readFileSync } from 'node:fs'
import { getPriority } from 'node:os'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { formatSerial } from '../../../game-core/serial'
import { smallDefinition } from '../../../test/support/game-fixtures'
import { STREAM_FROM_BYTES } from './importer'
import { feedLine } from './feed'
import { createSalesGenerator } from '../simulator'
import { openLedgerFixture, TEST_ACTOR, type LedgerFixture } from '../../../test/support/simulator-world'
import { workerImport } from './runner'
import { BACKGROUND_NICE } from '../../threads/priority'

const NOW = Date.parse('2025-03-20T15:00:00Z')

/** The niceness of each thread of this process (Linux: /proc/self/task/<tid>/stat, its 19th field). */
function threadNiceness(): number[] {
  return readdirSync('/proc/self/task').map((tid) =>
    Number(readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ')[1].split(' ')[16]),
  )
}

describe("the app's import, on a worker thread of its own", () => {
  let f: LedgerFixture
  beforeAll(async () => {
    f = openLedgerFixture({ definition: smallDefinition(), clock: () => new Date(NOW) })
    await f.openEmission({ startsOn: '2025-03-01' })
  })
  afterAll(() => f.close())

  it('imports a feed large enough to be streamed, its reader thread started from the worker, and refuses a bad one whole', async () => {
    const count = 3_000
    const gen = createSalesGenerator({
      seed: 3,
      players: 200,
      count,
      fromMs: Date.parse('2025-03-02T00:00:00Z'),
      toMs: Date.parse('2025-03-19T00:00:00Z'),
      zones: smallDefinition(),
    })
    const lines = Array.from({ length: count }, (_, i) => {
      const d = gen.next()
      return feedLine({
        saleId: `A-${i}`,
        serial: formatSerial({ emission: 1, block: 1, unit: i }, 10_000),
        player: d.player,
        soldAt: d.soldAt,
        stakeCents: 500,
        play: d.play,
      })
    })
    const text = lines.join('\n') + '\n'
    expect(Buffer.byteLength(text)).toBeGreaterThan(STREAM_FROM_BYTES)
    const importOnWorker = workerImport(f.path, f.clock, f.keyFile)
    await expect(importOnWorker(TEST_ACTOR, text, 'big.jsonl')).resolves.toEqual({
      lines: count,
      imported: count,
      alreadyImported: 0,
    })
    expect(f.catalog.block(1, 1).units_sold).toBe(count)
    // the same file again: every line already imported
    await expect(importOnWorker(TEST_ACTOR, text, 'big.jsonl')).resolves.toEqual({
      lines: count,
      imported: 0,
      alreadyImported: count,
    })
    // a bad last line: nothing of the next file stored
    const next = Array.from({ length: count }, (_, i) =>
      lines[i]
        .replace(/"serial":"[^"]*"/, `"serial":"${formatSerial({ emission: 1, block: 1, unit: count + i }, 10_000)}"`)
        .replace(/"saleId":"A-/, '"saleId":"B-'),
    )
    next[count - 1] = next[count - 1].replace('"stakeCents":500', '"stakeCents":50')
    await expect(importOnWorker(TEST_ACTOR, next.join('\n'), 'bad.jsonl')).rejects.toMatchObject({
      code: 'IMPORT_REJECTED',
      extras: { details: [{ line: count, problems: [{ code: 'STAKE' }] }] },
    })
    expect(f.catalog.block(1, 1).units_sold).toBe(count)
  }, 60_000)

  it.runIf(process.platform === 'linux')(
    'runs at a lower CPU priority than the thread that answers staff',
    async () => {
      const importOnWorker = workerImport(f.path, f.clock, f.keyFile)
      // a file refused whole: the worker (and its connection's threads) started, nothing stored
      await expect(importOnWorker(TEST_ACTOR, 'not json\n', 'bad.jsonl')).rejects.toMatchObject({
        code: 'IMPORT_REJECTED',
      })
      // the worker, its feed reader and its connection's threads: lowered; this thread: as it was
      expect(threadNiceness()).toContain(BACKGROUND_NICE)
      expect(getPriority()).toBe(0)
    },
  )
})
