/**
 * Selling a simulation's drafts (service.ts): the Seller that writes them, and sellDrafts, the
 * one on this thread, through the sales service's batch path, a transaction per batch with the
 * event loop let through between them (the app's seller on a worker thread calls it too).
 */
import { AppError, because } from '../../contract/errors'
import type { SalesService, UnitRun } from '../sales'
import type { SellHooks, SellJob } from './context'
import { playerName, type DraftBatch, type DraftSource } from './drafts'

/**
 * Sales per transaction on this thread: each batch rewrites the pages of most of its players, so
 * fewer, bigger batches cost less per sale, but one batch holds the event loop (about 0.15 s for
 * 20,000 with many players). The app's seller works on a worker thread, in bigger batches
 * (seller-thread.ts).
 */
export const DEFAULT_BATCH = 20_000
/**
 * Between two batches: the event loop let through, and a short pause in which another process
 * waiting to write (a backup's log entry, an operator's command) can take the lock. SQLite's busy
 * handler retries every few to 100 ms; with no gap at all a long simulation would starve it.
 */
const yieldToLoop = () => new Promise<void>((resolve) => setTimeout(resolve, 2))

/** Sells the drafts of `source` through `sales`, one transaction per batch; the next batch is drafted while this one sells. */
export async function sellDrafts(
  sales: SalesService,
  source: DraftSource,
  job: SellJob,
  hooks: SellHooks,
): Promise<void> {
  const batchSize = job.batchSize ?? DEFAULT_BATCH
  const names = new Map<number, string>()
  const players: string[] = []
  let size = job.batchMs ? Math.max(1, Math.round(batchSize / 10)) : batchSize
  let rate = 0
  const sizeAfter = (done: number) => Math.min(size, job.sales - done)
  let sold = 0
  let next: Promise<DraftBatch> | null = source.request(sizeAfter(0))
  // a team ledger's batches append the players' totals, folded once at the end (docs/ledger.md)
  sales.appendPlayerTotals(true)
  try {
    while (sold < job.sales) {
      if (hooks.signal?.aborted)
        throw new AppError('CANCELLED', `the simulation was cancelled after ${sold} sales`, because('TASK_CANCELLED'))
      const d: DraftBatch = await next!
      next = sold + d.count < job.sales ? source.request(sizeAfter(sold + d.count)) : null
      players.length = d.count
      for (let i = 0; i < d.count; i++) {
        const rank = d.ranks[i]
        let player = names.get(rank)
        if (player === undefined) names.set(rank, (player = playerName(rank)))
        players[i] = player
      }
      const t = performance.now()
      let run: UnitRun | null = null
      sold += sales.sellChecked(job.emission, { ...d, players }, (r) => (run = r))
      if (job.batchMs) {
        // sales per ms, smoothed: a checkpoint now and then makes one batch slower than the others
        const r = d.count / Math.max(1, performance.now() - t)
        rate = rate === 0 ? r : (rate + r) / 2
        size = Math.max(1000, Math.min(batchSize, Math.round(rate * job.batchMs)))
      }
      hooks.beat?.()
      hooks.progress?.(sold, run!)
      await yieldToLoop()
    }
  } catch (e) {
    next?.catch(() => {})
    throw e
  } finally {
    foldTotals(sales)
    source.close()
  }
}

/**
 * The totals appended by the batches that committed folded into the players' rows, whether the
 * simulation ended, was cancelled or failed. Nothing depends on it: a fold that fails (the
 * connection lost) leaves them appended, where they are read right, and the next simulation's
 * fold takes them. So its failure is not the simulation's.
 */
function foldTotals(sales: SalesService): void {
  sales.appendPlayerTotals(false)
  try {
    sales.foldPlayerTotals()
  } catch {
    // left for the next fold (docs/ledger.md)
  }
}
