/**
 * A sample sales feed, made by the app in the feed's real format (feedLine, the format the
 * importer reads: README.md beside this file): three sales, one played by hand (clicks, then a
 * drag across "your numbers"), one revealed automatically, one interrupted; times of sale in UTC
 * (`Z`) and with Paris's offset (`+01:00` or `+02:00`).
 *
 * Its units are the next ones of the first open demonstration emission, so the sample imports as
 * it is there (and its sales are demonstration sales). With no demonstration emission open that
 * can sell them now, it is written for an emission number that does not exist yet: the format
 * only, which an import refuses (EMISSION_UNKNOWN), so that a sample never lands in a real
 * emission's sales.
 */
import type { FeedSample } from '../../contract/types'
import type { Db } from '../../ledger/db'
import { CARATS } from '../../../game-core/carats'
import type { Play, RevealEvent, Zone } from '../../../game-core/play'
import type { GameDefinition } from '../../../game-core/rules'
import type { Catalog } from '../catalog'
import type { Clock } from '../common'
import { feedLine } from './feed'
import { nextPosition, readEmission, sellingFault, serialAt, soldOutAt, soldTooEarly } from './rules'

/** How many sales a sample holds. */
export const SAMPLE_SALES = 3
/** The time zone of the sample's second time of sale (the platform's, in France). */
const SAMPLE_ZONE = 'Europe/Paris'

type Zones = Pick<GameDefinition, 'winningCells' | 'yoursCells'>

/** Cells `from`…`to - 1` of a zone revealed one gesture each, `step` ms apart from `t`. */
function reveal(
  zone: Zone,
  from: number,
  to: number,
  t: number,
  step: number,
  gesture: 'click' | 'drag',
): RevealEvent[] {
  return Array.from({ length: to - from }, (_, i) => ({ t: t + i * step, zone, cell: from + i, gesture }))
}

/** A play by hand: the winning numbers clicked one by one, then a drag across eight of "your numbers", then clicks. */
function playedByHand(z: Zones): Play {
  const winning = reveal('winning', 0, z.winningCells, 900, 450, 'click')
  const dragFrom = winning[winning.length - 1].t + 1200
  const drag = reveal('yours', 0, Math.min(8, z.yoursCells), dragFrom, 40, 'drag')
  const clicks = reveal('yours', drag.length, z.yoursCells, dragFrom + drag.length * 40 + 700, 380, 'click')
  return { mode: 'play', status: 'complete', events: [...winning, ...drag, ...clicks] }
}

/** An automatic reveal: every cell by the game, the winning numbers first. */
function revealedAutomatically(z: Zones): Play {
  const winning = reveal('winning', 0, z.winningCells, 0, 90, 'click')
  return {
    mode: 'auto',
    status: 'complete',
    events: [...winning, ...reveal('yours', 0, z.yoursCells, 600, 90, 'click')],
  }
}

/** A play left before its end: the winning numbers and four of "your numbers". */
function interrupted(z: Zones): Play {
  const winning = reveal('winning', 0, z.winningCells, 1100, 500, 'click')
  const yours = reveal('yours', 0, Math.min(4, z.yoursCells - 1), 5200, 600, 'click')
  return { mode: 'play', status: 'interrupted', events: [...winning, ...yours] }
}

/** `ms` written with the zone's offset at that moment (`2026-03-01T13:30:00+01:00`). */
export function withOffset(ms: number, timeZone: string): string {
  const name =
    new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'longOffset' })
      .formatToParts(ms)
      .find((p) => p.type === 'timeZoneName')?.value ?? 'GMT'
  const m = /GMT([+-])(\d{2}):(\d{2})/.exec(name)
  const minutes = m ? (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3])) : 0
  const local = new Date(ms + minutes * 60_000).toISOString().slice(0, 19)
  const abs = Math.abs(minutes)
  const hhmm = `${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`
  return `${local}${minutes < 0 ? '-' : '+'}${hhmm}`
}

/** Where the sample's units come from: an open demonstration emission's next units, or an emission to come. */
interface SampleTarget {
  emission: number
  zones: Zones
  stakeCents: number
  size: number
  first: number
  /** the earliest time a sale of it may have (its first sale day, else its creation) */
  floor: number
  /** whether every unit can sell now, at these times */
  importable: (soldAt: number[]) => boolean
}

function demoTarget(catalog: Catalog, emission: number): SampleTarget {
  const e = readEmission(catalog, emission)
  const first = nextPosition(e)
  const size = e.def.blockSize
  const positions = Array.from({ length: SAMPLE_SALES }, (_, i) => first + i)
  const importable = (soldAt: number[]) =>
    positions.every((p) => !soldOutAt(e, p) && sellingFault(e, e.blocks[Math.floor(p / size)]) === null) &&
    soldAt.every((t) => !soldTooEarly(e, t))
  return { emission, zones: e.def, stakeCents: e.def.unitPriceCents, size, first, floor: e.floor, importable }
}

/** The format only, for the emission after the last one: no emission has it yet. */
function formatTarget(db: Db): SampleTarget {
  const last = Number(db.prepare('SELECT max(emission) FROM emissions').pluck().get() ?? 0)
  const emission = Math.min(last + 1, 9999)
  const { blockSize: size, unitPriceCents: stakeCents } = CARATS
  return { emission, zones: CARATS, stakeCents, size, first: 0, floor: 0, importable: () => false }
}

/** The sample's times of sale: in the last three minutes, a minute apart, and none before its emission's first sale (whole seconds). */
function saleTimes(now: number, floor: number): number[] {
  const start = Math.max(now - 180_000, Math.ceil(floor / 1000) * 1000)
  const step = Math.floor((now - start) / SAMPLE_SALES / 1000) * 1000
  return Array.from({ length: SAMPLE_SALES }, (_, i) => start + i * step)
}

/** The first open demonstration emission when the sample imports there as it is, else the format only. */
function targetOf(db: Db, catalog: Catalog, now: number): { target: SampleTarget; soldAt: number[] } {
  const demo = db
    .prepare("SELECT emission FROM emissions WHERE status = 'open' AND demo = 1 ORDER BY emission LIMIT 1")
    .pluck()
    .get() as number | undefined
  if (demo !== undefined) {
    const target = demoTarget(catalog, demo)
    const soldAt = saleTimes(now, target.floor)
    if (target.importable(soldAt)) return { target, soldAt }
  }
  const target = formatTarget(db)
  return { target, soldAt: saleTimes(now, target.floor) }
}

/** The sample: three sales of the target's next units, sold in the last minutes. */
export function sampleFeed(db: Db, catalog: Catalog, clock: Clock): FeedSample {
  const now = clock().getTime()
  const { target: t, soldAt } = targetOf(db, catalog, now)
  const plays = [playedByHand(t.zones), revealedAutomatically(t.zones), interrupted(t.zones)]
  const stamp = new Date(now).toISOString().replace(/[-:]/g, '').slice(0, 15)
  const lines = plays.map((play, i) =>
    feedLine({
      saleId: `sample-${stamp}-${i + 1}`,
      serial: serialAt(t.emission, t.first + i, t.size),
      player: `sample-player-${i + 1}`,
      soldAt: i === 1 ? withOffset(soldAt[i], SAMPLE_ZONE) : soldAt[i],
      stakeCents: t.stakeCents,
      play,
    }),
  )
  const emissionNo = String(t.emission).padStart(4, '0')
  return {
    fileName: `sample-feed-E${emissionNo}.jsonl`,
    content: lines.join('\n') + '\n',
    emission: t.emission,
    importable: t.importable(soldAt),
  }
}
