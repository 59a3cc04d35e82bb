/**
 * The usual feed's fast import: read on a second thread (feed-ring.ts) while its lines are
 * checked and written here as they come. The rules it keeps are the careful import's
 * (import-careful.ts); at the first line it does not take as it comes it throws Irregular, and
 * the careful import starts again from the first line. import.test.ts runs every case both ways.
 */
import { AppError } from '../contract/errors'
import type { GameDefinition } from '../../game-core/rules'
import { formatSerial } from '../../game-core/serial'
import type { Db } from '../ledger/db'
import type { BlockRow, Catalog } from './catalog'
import { type Clock, SALE_CLOCK_SKEW_MS, saleFloorMs } from './common'
import { CTRL, LINE_FLAGS, READER, SLOT_LINES, SLOTS } from './feed-ring'
import type { ImportOutcome } from './import-history'
import type { FeedArrival } from './import-arrival'
import { copyShared } from './import-feed'
import type { CheckedStream, SalesService } from './sales'
import { startFeedReader } from '../workers/feed-reader'

/** Thrown by the streamed import at a line it does not take as it comes. */
export class Irregular extends Error {}

export interface StreamDeps {
  db: Db
  clock: Clock
  catalog: Catalog
  sales: SalesService
}

/**
 * The streamed import of a feed, in the caller's transaction (see createStreamedImport); `arrival`:
 * the feed is still arriving (import-arrival.ts), read as its bytes come.
 */
export type StreamedImport = (feed: Buffer, arrival?: FeedArrival | null) => ImportOutcome

export function createStreamedImport({ db, clock, catalog, sales }: StreamDeps): StreamedImport {
  const openEmissions = db.prepare("SELECT emission FROM emissions WHERE status = 'open' ORDER BY emission").pluck()
  /**
   * The usual feed, read on a second thread (feed-ring.ts) while its lines are checked and
   * written here as they come, in the caller's transaction: lines in unit order, each its
   * emission's next unit, no sale id recorded before, nothing to refuse. At the first line that
   * is not so it throws Irregular (and the savepoint of streamTx drops what it wrote): the
   * careful import then starts again from the first line, and says what is wrong, if anything.
   * What a streamed import stores is what the careful one stores.
   */
  function streamed(feed: Buffer, arrival?: FeedArrival | null): ImportOutcome {
    const latest = clock().getTime() + SALE_CLOCK_SKEW_MS
    /** `floor`: the earliest sale time (the first sale day, else the emission's creation) */
    type Open = { emission: number; def: GameDefinition; blocks: BlockRow[]; floor: number; next: number }
    const open = new Map<number, Open>()
    for (const emission of openEmissions.all() as number[]) {
      const row = catalog.emission(emission)
      const def = catalog.definition(emission)
      const blocks = catalog.blocks(emission)
      const firstOpen = blocks.find((b) => b.units_sold < def.blockSize)
      const next = firstOpen ? (firstOpen.block - 1) * def.blockSize + firstOpen.units_sold : blocks.length * def.blockSize
      open.set(emission, { emission, def, blocks, floor: saleFloorMs(row), next })
    }
    const shared = feed.buffer instanceof SharedArrayBuffer ? feed : copyShared(feed)
    const reader = startFeedReader(shared, [...open.values()].map((e) => [e.emission, e.def.winningCells, e.def.yoursCells]), arrival?.memory)
    const { ring } = reader
    const ctrl = ring.control
    try {
      let consumed = 0
      let current: Open | null = null
      let stream: CheckedStream | null = null
      let imported = 0
      let first: string | null = null
      let last = { emission: 0, block: 0, unit: 0, size: 0 }
      const names: string[] = []
      let waited = 0
      for (;;) {
        const state = Atomics.load(ctrl, CTRL.STATE)
        const produced = Atomics.load(ctrl, CTRL.PRODUCED)
        if (produced === consumed) {
          if (state === READER.DONE) break
          if (state !== READER.RUNNING) throw new Irregular()
          // a reader that says nothing for a minute has died (one waiting for an upload's bytes is
          // not: the upload's own stall ends it, STALL_MS)
          if (Atomics.wait(ctrl, CTRL.PRODUCED, consumed, 1000) === 'timed-out' && ++waited >= 60 && !(arrival && arrival.arrived() < arrival.length)) throw new Irregular()
          continue
        }
        waited = 0
        const s = consumed % SLOTS
        const base = s * SLOT_LINES
        const count = ring.count[s]
        const events = ring.slotEvents(s)
        for (let i = 0; i < count; ) {
          const emission = ring.emission[base + i]
          if (emission !== current?.emission) {
            // emissions in order, each once, as the careful import writes them
            const e = open.get(emission)
            if (!e || (current && emission < current.emission)) throw new Irregular()
            if (stream) imported += stream.finish()
            current = e
            stream = sales.checkedStream(emission)
          }
          const e = current
          const size = e.def.blockSize
          const price = e.def.unitPriceCents
          const players: string[] = []
          const saleIds: (string | null)[] = []
          let j = i
          for (; j < count && ring.emission[base + j] === emission; j++) {
            const at = base + j
            const block = ring.block[at]
            const unit = ring.unit[at]
            if (unit >= size || block > e.blocks.length || (block - 1) * size + unit !== e.next || e.blocks[block - 1].status !== 'verified') throw new Irregular()
            e.next++
            const soldAt = ring.soldAt[at]
            if (ring.stake[at] !== price || soldAt > latest || soldAt < e.floor) throw new Irregular()
            const flags = ring.flags[at]
            let saleId: string | null = null
            if ((flags & LINE_FLAGS.SERIAL_ID) === 0) saleId = feed.toString('latin1', ring.saleIdFrom[at], ring.saleIdTo[at])
            saleIds.push(saleId)
            const p = ring.player[at]
            if (flags & LINE_FLAGS.NEW_PLAYER) names[p] = feed.toString('latin1', ring.playerFrom[at], ring.playerTo[at])
            players.push(names[p])
            first ??= formatSerial({ emission, block, unit }, size)
            last = { emission, block, unit, size }
          }
          const from = i === 0 ? 0 : ring.eventsEnd[base + i - 1]
          const ends = ring.eventsEnd.subarray(base + i, base + j)
          stream!.add({
            count: j - i,
            players,
            saleIds,
            soldAt: ring.soldAt.subarray(base + i, base + j),
            codes: ring.code.subarray(base + i, base + j),
            ends: from === 0 ? ends : ends.map((end) => end - from),
            events: events.subarray(from),
          })
          i = j
        }
        consumed++
        Atomics.store(ctrl, CTRL.CONSUMED, consumed)
        Atomics.notify(ctrl, CTRL.CONSUMED)
      }
      const lines = Atomics.load(ctrl, CTRL.LINES)
      // an empty feed is the careful import's to refuse
      if (lines === 0) throw new Irregular()
      if (stream) imported += stream.finish()
      const sha256 = Buffer.from(ring.digest).toString('hex')
      return { counts: { lines, imported, alreadyImported: 0 }, sha256, firstSerial: first, lastSerial: first === null ? null : formatSerial(last, last.size) }
    } catch (e) {
      // a sale id recorded before (the ledger's unique index refused it): the same sale again,
      // or a conflict, which the careful import tells apart
      if (e instanceof AppError && e.code === 'CONFLICT') throw new Irregular()
      throw e
    } finally {
      Atomics.store(ctrl, CTRL.CANCEL, 1)
      Atomics.notify(ctrl, CTRL.CONSUMED)
      reader.done()
    }
  }
  return streamed
}
