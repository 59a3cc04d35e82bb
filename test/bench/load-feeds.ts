/**
 * The load bench's sales feeds: each a day of the platform's sales of one block's next units, as
 * the import screen sends them (JSONL, one line per sale with its play), written to a file before
 * the timed part starts (so that making them costs the measured processes nothing), with the
 * SHA-256 the screen computes before it uploads.
 */
import { createHash } from 'node:crypto'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { CARATS } from '../../game-core/carats'
import { formatSerial } from '../../game-core/serial'
import { feedLine } from '../../electron/services/import'
import { createSalesGenerator } from '../../electron/services/simulator'

export interface Feed {
  path: string
  fileName: string
  lines: number
  bytes: number
  sha256: string
  /** The players who bought in it, each once. */
  players: string[]
  /** Its first unit, and the unit after its last. */
  from: number
  to: number
}

const DAY_MS = 86_400_000
/** The first day of sales; feed `day` holds the sales of the day after it. */
const FIRST_DAY = Date.parse('2025-01-02T00:00:00Z')
/** The emission's first day, on or before the feeds' first. */
export const LOAD_STARTS_ON = '2025-01-01'

/**
 * A day's feed of `count` sales of the emission's block 1, units `from` onwards, sold on day
 * `day` (0: the first) to the same few thousand players each day, so each feed follows the one
 * before in time, as one feed a day does.
 */
export function writeFeed(dir: string, o: { emission: number; from: number; count: number; day: number }): Feed {
  const fromMs = FIRST_DAY + o.day * DAY_MS
  const gen = createSalesGenerator({
    seed: 1000 + o.day,
    players: Math.ceil(o.count / 20),
    count: o.count,
    fromMs,
    toMs: fromMs + DAY_MS - 1,
    zones: CARATS,
  })
  const players = new Set<string>()
  const lines = new Array<string>(o.count)
  for (let i = 0; i < o.count; i++) {
    const d = gen.next()
    const unit = o.from + i
    players.add(d.player)
    const serial = formatSerial({ emission: o.emission, block: 1, unit })
    lines[i] = feedLine({
      saleId: `L-${unit}`,
      serial,
      player: d.player,
      soldAt: d.soldAt,
      stakeCents: CARATS.unitPriceCents,
      play: d.play,
    })
  }
  const text = Buffer.from(lines.join('\n') + '\n')
  const fileName = `day-${o.day + 1}-units-${o.from}.jsonl`
  const path = join(dir, fileName)
  writeFileSync(path, text)
  const sha256 = createHash('sha256').update(text).digest('hex')
  return {
    path,
    fileName,
    lines: o.count,
    bytes: text.length,
    sha256,
    players: [...players],
    from: o.from,
    to: o.from + o.count,
  }
}

/** `n` feeds of `count` lines that follow one another, from unit `from` and day `day`. */
export function writeFeeds(
  dir: string,
  o: { emission: number; from: number; count: number; day: number; n: number },
): Feed[] {
  return Array.from({ length: o.n }, (_, k) =>
    writeFeed(dir, { emission: o.emission, from: o.from + k * o.count, count: o.count, day: o.day + k }),
  )
}
