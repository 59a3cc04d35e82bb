/**
 * The types the simulator's parts share (README.md beside this file): what the service hands to
 * a Seller, on this thread (selling.ts) or on a worker (seller-thread.ts).
 */
import type { LeaseRef } from '../leases'
import type { UnitRun } from '../sales'
import type { GeneratorOptions } from './drafts'

/** A simulation's selling, as handed to a Seller. */
export interface SellJob {
  emission: number
  sales: number
  /** Sales per transaction (the most, with batchMs); the seller's own size when left out. */
  batchSize?: number
  /**
   * When set, the batches start at a tenth of batchSize and are then sized from the speed of the
   * batches before so that a transaction lasts about this long, up to batchSize: on a slower
   * machine a big transaction would otherwise hold the ledger's write lock for longer than
   * others wait for it.
   */
  batchMs?: number
  gen: GeneratorOptions
  /** The simulation's lease, for a seller on another thread to beat on its own connection. */
  lease?: LeaseRef
}

export interface SellHooks {
  /** Checked between two batches: the batches sold before stay sold. */
  signal?: AbortSignal
  /** The sales sold so far, after each batch has committed, and the units that batch sold. */
  progress?: (sold: number, run: UnitRun) => void
  /**
   * The lease's heartbeat, after each batch, on the connection that sells (so that its player
   * cache stays valid, leases.ts leaseBeater); a seller on another thread beats job.lease itself.
   */
  beat?: () => void
}

/**
 * Where a simulation's sales are written. By default on this thread, through the app's sales
 * service, in transactions of DEFAULT_BATCH with the event loop let through between them. The
 * app sells on a worker thread with a connection of its own (seller-thread.ts), in bigger
 * transactions, which cost less per sale and leave this thread free. Resolves when all are
 * sold; rejects with an AppError (CANCELLED on cancel).
 */
export type Seller = (job: SellJob, hooks: SellHooks) => Promise<void>
