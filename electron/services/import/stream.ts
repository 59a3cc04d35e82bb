/**
 * The usual feed's fast import: read on a second thread (feed-ring.ts) while its lines are
 * checked and written here as they come, in the caller's transaction: lines in unit order, each
 * its emission's next unit, no sale id recorded before, nothing to refuse. The rules it keeps are
 * the careful import's, asked of the same place (rules.ts); at the first line it does not
 * take as it comes it throws Irregular (and the savepoint of streamTx drops what it wrote): the
 * careful import (careful.ts) then starts again from the first line, and says what is
 * wrong, if anything. What a streamed import stores is what the careful one stores:
 * import.test.ts runs every case both ways, and compares the two ledgers.
 */
import { AppError } from '../../contract/errors'
import { formatSerial } from '../../../game-core/serial'
import { CTRL, LINE_FLAGS, READER, SLOT_LINES, SLOTS, type FeedRing } from './feed-ring'
import type { FeedDeps, ImportOutcome, KeySpan } from './context'
import { UNIT_KEY_EMISSION, unitKey } from '../../ledger/unit-key'
import type { FeedArrival } from './arrival'
import { copyShared } from './feed'
import {
  importOutcome,
  latestSaleMs,
  nextPosition,
  positionOf,
  readEmission,
  sellingFault,
  soldTooEarly,
  stakeFits,
  unitFault,
  type EmissionInfo,
} from './rules'
import type { CheckedSales, CheckedStream } from '../sales'
import { startFeedReader } from './reader-thread'

/** Thrown by the streamed import at a line it does not take as it comes. */
export class Irregular extends Error {}

/**
 * The streamed import of a feed. Its reading starts on the reader thread before the import's
 * transaction (`startRead`: while the lease hashes the file, the reader fills its ring); `run`
 * then checks and writes it in the caller's transaction. `arrival`: the feed is still arriving
 * (arrival.ts), read as its bytes come; `sha256`: the feed's hash, where the lease made it
 * (the reader then does not hash it again).
 */
export interface StreamedImport {
  startRead(feed: Buffer, arrival: FeedArrival | null, sha256Known: boolean): FeedRead
  run(read: FeedRead, sha256: string | null): ImportOutcome
}

/** A feed being read on the reader thread; `stop` (any number of times) ends the reading and gives the thread back. */
export interface FeedRead {
  feed: Buffer
  arrival: FeedArrival | null
  ring: FeedRing
  stop(): void
}

/** What every streamed import uses: its deps, and its statement, prepared once. */
interface StreamContext extends FeedDeps {
  /** the open emissions' numbers, in order */
  openEmissions: () => number[]
}

/** An open emission as the streamed import reads it, and the position of the next unit it takes (rules.ts). */
type Open = EmissionInfo & { emission: number; next: number }

/** One streamed import under way: the feed, its ring, the emission being written and what was written. */
interface StreamRun {
  feed: Buffer
  ring: FeedRing
  /** the latest sale time taken */
  latest: number
  open: Map<number, Open>
  current: Open | null
  stream: CheckedStream | null
  imported: number
  first: string | null
  last: { emission: number; block: number; unit: number; size: number }
  /** each emission's run of units sold, as unit keys */
  spans: KeySpan[]
  /** the players by their number in the ring */
  names: string[]
}

export function createStreamedImport(deps: FeedDeps): StreamedImport {
  const openEmissions = deps.db
    .prepare("SELECT emission FROM emissions WHERE status = 'open' ORDER BY emission")
    .pluck()
  const ctx: StreamContext = { ...deps, openEmissions: () => openEmissions.all() as number[] }
  return {
    startRead: (feed, arrival, sha256Known) => startRead(ctx, feed, arrival, sha256Known),
    run: (read, sha256) => streamed(ctx, read, sha256),
  }
}

/**
 * The feed's reading started, with the zones of the emissions open now (outside the import's
 * transaction: an emission opened or closed since is told apart in it, Irregular either way).
 */
function startRead(ctx: StreamContext, feed: Buffer, arrival: FeedArrival | null, sha256Known: boolean): FeedRead {
  const zones = ctx.openEmissions().map((e): [number, number, number] => {
    const def = ctx.catalog.definition(e)
    return [e, def.winningCells, def.yoursCells]
  })
  const shared = feed.buffer instanceof SharedArrayBuffer ? feed : copyShared(feed)
  const reader = startFeedReader(shared, zones, { arrival: arrival?.memory, hashed: sha256Known })
  const ctrl = reader.ring.control
  let stopped = false
  return {
    feed,
    arrival,
    ring: reader.ring,
    stop() {
      if (stopped) return
      stopped = true
      Atomics.store(ctrl, CTRL.CANCEL, 1)
      Atomics.notify(ctrl, CTRL.CONSUMED)
      reader.done()
    },
  }
}

/** The open emissions, each with its next unit to sell. */
function openEmissionsOf(ctx: StreamContext): Map<number, Open> {
  const open = new Map<number, Open>()
  for (const emission of ctx.openEmissions()) {
    const e = readEmission(ctx.catalog, emission)
    open.set(emission, { ...e, emission, next: nextPosition(e) })
  }
  return open
}

function streamed(ctx: StreamContext, read: FeedRead, known: string | null): ImportOutcome {
  const { feed, arrival, ring } = read
  const latest = latestSaleMs(ctx.clock().getTime())
  const open = openEmissionsOf(ctx)
  const ctrl = ring.control
  try {
    const run: StreamRun = {
      feed,
      ring,
      latest,
      open,
      current: null,
      stream: null,
      imported: 0,
      first: null,
      last: { emission: 0, block: 0, unit: 0, size: 0 },
      spans: [],
      names: [],
    }
    for (let consumed = 0; awaitSlot(ctrl, consumed, arrival);) {
      takeSlot(ctx, run, consumed % SLOTS)
      consumed++
      Atomics.store(ctrl, CTRL.CONSUMED, consumed)
      Atomics.notify(ctrl, CTRL.CONSUMED)
    }
    const lines = Atomics.load(ctrl, CTRL.LINES)
    // an empty feed is the careful import's to refuse
    if (lines === 0) throw new Irregular()
    if (run.stream) run.imported += run.stream.finish()
    const sha256 = known ?? Buffer.from(ring.digest).toString('hex')
    const last = run.first === null ? null : formatSerial(run.last, run.last.size)
    return importOutcome(lines, run.imported, 0, { first: run.first, last }, sha256, run.spans)
  } catch (e) {
    // a sale id recorded before (the ledger's unique index refused it): the same sale again,
    // or a conflict, which the careful import tells apart
    if (e instanceof AppError && e.code === 'CONFLICT') throw new Irregular()
    throw e
  } finally {
    read.stop()
  }
}

/** Waits for the reader's slot after `consumed`: true when it is there, false when the reader is done; Irregular when it stopped. */
function awaitSlot(ctrl: Int32Array, consumed: number, arrival: FeedArrival | null): boolean {
  let waited = 0
  for (;;) {
    const state = Atomics.load(ctrl, CTRL.STATE)
    const produced = Atomics.load(ctrl, CTRL.PRODUCED)
    if (produced !== consumed) return true
    if (state === READER.DONE) return false
    if (state !== READER.RUNNING) throw new Irregular()
    // a reader that says nothing for a minute has died (one waiting for an upload's bytes is
    // not: the upload's own stall ends it, STALL_MS)
    if (
      Atomics.wait(ctrl, CTRL.PRODUCED, consumed, 1000) === 'timed-out' &&
      ++waited >= 60 &&
      !(arrival && arrival.arrived() < arrival.length)
    )
      throw new Irregular()
  }
}

/** A slot's lines, each emission's run of them added to its stream. */
function takeSlot(ctx: StreamContext, run: StreamRun, s: number): void {
  const { ring } = run
  const base = s * SLOT_LINES
  const count = ring.count[s]
  const events = ring.slotEvents(s)
  for (let i = 0; i < count;) {
    const emission = ring.emission[base + i]
    if (emission !== run.current?.emission) switchTo(ctx, run, emission)
    let j = i
    while (j < count && ring.emission[base + j] === emission) j++
    const from = i === 0 ? 0 : ring.eventsEnd[base + i - 1]
    const ends = ring.eventsEnd.subarray(base + i, base + j)
    run.stream!.add({
      count: j - i,
      ...takeLines(run, run.current!, base + i, base + j),
      soldAt: ring.soldAt.subarray(base + i, base + j),
      codes: ring.code.subarray(base + i, base + j),
      ends: from === 0 ? ends : ends.map((end) => end - from),
      events: events.subarray(from),
    })
    i = j
  }
}

/** The next emission's stream, the one before finished: emissions in order, each once, as the careful import writes them. */
function switchTo(ctx: StreamContext, run: StreamRun, emission: number): void {
  const e = run.open.get(emission)
  if (!e || (run.current && emission < run.current.emission)) throw new Irregular()
  if (run.stream) run.imported += run.stream.finish()
  run.current = e
  run.stream = ctx.sales.checkedStream(emission)
}

/** The ring's lines [from … to) of one emission, each its next unit and nothing to refuse (else Irregular): their players and sale ids. */
function takeLines(run: StreamRun, e: Open, from: number, to: number): Pick<CheckedSales, 'players' | 'saleIds'> {
  const { ring, feed, names } = run
  const size = e.def.blockSize
  const players: string[] = []
  const saleIds: (string | null)[] = []
  for (let at = from; at < to; at++) {
    const block = ring.block[at]
    const unit = ring.unit[at]
    if (
      unitFault(e, block, unit) !== null ||
      positionOf(size, block, unit) !== e.next ||
      sellingFault(e, e.blocks[block - 1]) !== null
    )
      throw new Irregular()
    e.next++
    const soldAt = ring.soldAt[at]
    if (!stakeFits(e, ring.stake[at]) || soldAt > run.latest || soldTooEarly(e, soldAt)) throw new Irregular()
    const flags = ring.flags[at]
    // a sale id shaped like the line's serial (the reader checked it is the line's own) is stored as the unit's
    saleIds.push(
      (flags & LINE_FLAGS.SERIAL_ID) === 0 ? feed.toString('latin1', ring.saleIdFrom[at], ring.saleIdTo[at]) : null,
    )
    const p = ring.player[at]
    if (flags & LINE_FLAGS.NEW_PLAYER) names[p] = feed.toString('latin1', ring.playerFrom[at], ring.playerTo[at])
    players.push(names[p])
    run.first ??= formatSerial({ emission: e.emission, block, unit }, size)
    run.last = { emission: e.emission, block, unit, size }
  }
  if (to > from) {
    const key = (at: number) => unitKey(e.emission, ring.block[at], ring.unit[at])
    noteSpan(run.spans, key(from), key(to - 1))
  }
  return { players, saleIds }
}

/** Units [first … last] sold in one emission: the emission's run goes on, or a new emission's starts (emissions in order). */
function noteSpan(spans: KeySpan[], first: number, last: number): void {
  const span = spans[spans.length - 1]
  const emissionOf = (key: number) => Math.floor(key / UNIT_KEY_EMISSION)
  if (span && emissionOf(span.to) === emissionOf(first)) span.to = last
  else spans.push({ from: first, to: last })
}
