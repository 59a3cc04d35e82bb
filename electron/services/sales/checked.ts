/**
 * Sales already checked by their maker, as columns (sellChecked, checkedStream): the simulator's
 * drafts and the importer's checked lines. Only what the maker cannot know is checked here: the
 * emission open, each block verified, no sale before the first sale day, no sale id shaped like
 * a serial. The writes are batch.ts's, as for the general batch.
 */
import { AppError } from '../../contract/errors'
import { unitKey } from '../../ledger/unit-key'
import { NO_PLAY } from '../../ledger/play-codec'
import type { CheckedSales, CheckedStream, SalesContext, UnitRun } from './context'
import {
  advance,
  cannotSell,
  type EmissionState,
  openState,
  type PendingSale,
  prizeOf,
  SERIAL_SHAPE,
  soldOut,
  takeTier,
  tooEarly,
} from './state'

/** The sales of `d`, checked as sellChecked checks them, as the writes take them. */
function pendingOf(ctx: SalesContext, st: EmissionState, d: CheckedSales): PendingSale[] {
  const emission = st.row.emission
  const def = st.def
  const pending: PendingSale[] = new Array(d.count)
  const stake = def.unitPriceCents
  let from = 0
  for (let i = 0; i < d.count; i++) {
    if (st.at >= st.blocks.length) throw soldOut(st)
    const cur = st.blocks[st.at]
    if (cur.status !== 'verified') throw cannotSell(st, cur)
    const soldAt = d.soldAt[i]
    if (st.startsAtMs !== null && soldAt < st.startsAtMs) throw new AppError('ILLEGAL_STATE', tooEarly(st, soldAt))
    const unit = cur.sold
    const tier = takeTier(ctx.catalog, st, cur, unit)
    const prize = prizeOf(def, tier)
    const saleId = d.saleIds ? d.saleIds[i] : null
    if (saleId !== null && SERIAL_SHAPE.test(saleId))
      throw new AppError(
        'BAD_ARGUMENTS',
        `sale id ${saleId} has the shape of a serial, so it must be stored as the unit's own`,
        { field: 'saleId' },
      )
    const to = d.ends[i]
    const code = d.codes[i]
    pending[i] = {
      who: null,
      key: unitKey(emission, cur.block, unit),
      saleId,
      player: d.players[i],
      soldAt,
      stake,
      prize,
      tier,
      play: code === NO_PLAY ? null : code,
      events: code === NO_PLAY ? null : d.events.subarray(from, to),
      emission,
    }
    from = to
    advance(st, cur)
  }
  return pending
}

/** The emission's next units sold as `sales` in one transaction; `onRun` is told which once committed. */
export function sellChecked(
  ctx: SalesContext,
  emission: number,
  sales: CheckedSales,
  onRun?: (run: UnitRun) => void,
): number {
  const run = ctx.batches.transact(() => {
    const st = openState(ctx.catalog, emission, ctx.db)
    const first = st.at < st.blocks.length ? { block: st.blocks[st.at].block, unit: st.blocks[st.at].sold } : null
    ctx.batches.write(pendingOf(ctx, st, sales), new Map([[emission, st]]))
    return { emission, first: first!, count: sales.count }
  })
  // once committed: the units this call really sold (another writer may have sold the ones before or after)
  onRun?.(run)
  return run.count
}

/**
 * sellChecked's writes, given a piece at a time inside the caller's transaction: the importer
 * streams a feed's lines as it checks them. Each piece's rows are inserted before add returns;
 * finish() writes what a batch writes once (each player's totals, the days, the blocks' counts).
 */
export function checkedStream(ctx: SalesContext, emission: number): CheckedStream {
  if (!ctx.db.inTransaction) throw new Error("checkedStream writes inside the caller's transaction")
  const { batches } = ctx
  batches.nestedStream()
  const st = openState(ctx.catalog, emission, ctx.db)
  const batch = batches.beginBatch()
  let count = 0
  return {
    add(d) {
      batches.writeRows(batch, pendingOf(ctx, st, d))
      count += d.count
    },
    finish() {
      batches.writeTotals(batch, [st])
      return count
    },
  }
}
