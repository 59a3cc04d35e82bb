/**
 * Selling units. A sale takes the emission's next unit (units in index order within a block,
 * blocks in order), and writes in one transaction: the sale with its packed play, the block's
 * sold count and tier counters, the player's totals, the day's totals, and any top-prize alert.
 * `sellBatch` does the same for many sales in one transaction, all or none: the simulator and
 * the sales-feed importer use it.
 *
 * The modules: state.ts (an emission's block cursors, the refusals every way of selling
 * makes), check.ts (sellBatch's checks of outside input, sale by sale), checked.ts
 * (sellChecked and checkedStream, for sales checked by their maker), batch.ts (the writes
 * of a batch, in its transaction) over players.ts (the batch's players and their cache)
 * and rows.ts (the rows, per engine). This factory only builds the context they share.
 */
import type { Db } from '../../ledger/db'
import type { AlertsService } from '../alerts'
import type { Catalog } from '../catalog'
import type { Clock } from '../common'
import { createSalesBatch } from './batch'
import { runBatch } from './check'
import { checkedStream, sellChecked } from './checked'
import { loadEmission, serialOf } from './state'
import type { BatchOptions, BatchResult, SaleInput, SalesContext, SalesService } from './context'

class RolledBack extends Error {
  constructor(readonly result: BatchResult) {
    super('the batch was rolled back')
  }
}

export function createSalesService({
  db,
  clock,
  catalog,
  alerts,
}: {
  db: Db
  clock: Clock
  catalog: Catalog
  alerts: AlertsService
}): SalesService {
  const ctx: SalesContext = {
    db,
    clock,
    catalog,
    batches: createSalesBatch({ db, catalog, alerts }),
    saleById: db.prepare(`SELECT s.unit_key, p.name AS player, s.sold_at, s.stake_cents, s.play, s.events
                          FROM sales s JOIN players p ON p.id = s.player_id WHERE s.sale_id = ?`),
    saleByKey: db.prepare(`SELECT s.unit_key, s.sale_id, p.name AS player, s.sold_at, s.stake_cents, s.play, s.events
                           FROM sales s JOIN players p ON p.id = s.player_id WHERE s.unit_key = ?`),
  }
  const service: SalesService = {
    sellNext: (emission, input) =>
      (service.sellBatch([{ ...input, emission }]) as Extract<BatchResult, { ok: true }>).sold[0],
    sellBatch: (inputs, opts = {}) => sellBatch(ctx, inputs, opts),
    sellChecked: (emission, sales, onRun) => sellChecked(ctx, emission, sales, onRun),
    checkedStream: (emission) => checkedStream(ctx, emission),
    nextUnit: (emission) => nextUnit(ctx, emission),
    appendPlayerTotals: (on) => ctx.batches.appendTotals(on),
    foldPlayerTotals: () => ctx.batches.foldTotals(),
  }
  return service
}

/** The general batch in its own transaction: rolled back, and its errors returned, when any sale is bad. */
function sellBatch(ctx: SalesContext, inputs: readonly SaleInput[], opts: BatchOptions): BatchResult {
  try {
    return ctx.batches.transact(() => {
      const r = runBatch(ctx, inputs, opts)
      if (!r.ok) throw new RolledBack(r)
      return r
    })
  } catch (e) {
    if (e instanceof RolledBack) return e.result
    throw e
  }
}

function nextUnit(ctx: SalesContext, emission: number): { block: number; unit: number; serial: string } | null {
  const st = loadEmission(ctx.catalog, emission)
  if (st.at >= st.blocks.length) return null
  const b = st.blocks[st.at]
  return { block: b.block, unit: b.sold, serial: serialOf(st, b.block, b.sold) }
}
