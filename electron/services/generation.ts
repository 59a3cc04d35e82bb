/**
 * Generation of an emission's pending blocks (a task on the job registry, in worker threads):
 * each block's secret is drawn, the whole block derived and checked, and its sealed secret and
 * commitment written in one statement. A generation holds a lease (process and heartbeat) so
 * that another process opening the ledger can tell a live generation from a dead one.
 *
 * Where a block's secret comes from (DERIVATION.md §1.1): a real emission's from its complete
 * key ceremony, both shares, seeding "two-person"; a demonstration emission without one is
 * drawn by the one person who generates it, seeding "single" (single control).
 */
import { hostname } from 'node:os'
import { AppError, because } from '../contract/errors'
import type { BlockSeeding, JobInfo } from '../contract/types'
import { batchRoots } from '../../game-core/commitment'
import { LATEST_COMMITMENT_VERSION } from '../../game-core/unit-commitment'
import { newBlockSecret, nodePrimitives } from '../crypto/node-primitives'
import type { Db } from '../ledger/db'
import type { KeyStore } from '../ledger/keystore'
import type { AuditService } from './audit'
import type { Catalog, EmissionRow } from './catalog'
import type { CeremonyService } from './ceremony'
import { type Actor, type Clock, iso } from './common'
import type { VerifyBlockFn } from './emissions'
import type { JobRegistry } from './jobs'

export interface GenerationDeps {
  db: Db
  clock: Clock
  keys: KeyStore
  audit: AuditService
  jobs: JobRegistry
  catalog: Catalog
  ceremony: CeremonyService
  verifyBlock: VerifyBlockFn
  threads?: number
}

const LEASE_HEARTBEAT_MS = 2_000
/** A generation not heard from for this long is taken as dead, even if its process id lives on. */
const LEASE_TIMEOUT_MS = 60_000

function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    // EPERM: the process exists but belongs to someone else
    return (e as NodeJS.ErrnoException).code === 'EPERM'
  }
}

export function leaseIsLive(lease: { pid: number; host: string; heartbeatAt: number }, now: number): boolean {
  if (now - lease.heartbeatAt > LEASE_TIMEOUT_MS) return false
  if (lease.host !== hostname()) return true
  return lease.pid !== process.pid && processIsAlive(lease.pid)
}

/**
 * How the emission's blocks are seeded: from its complete key ceremony; by one person for a
 * demonstration emission without one. A real emission without one is refused.
 */
export function seedingOf(ceremony: CeremonyService, e: EmissionRow): BlockSeeding {
  const c = ceremony.get(e.emission)
  if (c?.state === 'complete') return 'two-person'
  if (e.demo === 1) return 'single'
  const where = c ? `its key ceremony waits for a second person's share (started by ${c.startedBy})` : 'it has no key ceremony yet'
  throw new AppError(
    'ILLEGAL_STATE',
    `emission ${e.emission} cannot be generated: ${where}; a real emission is generated only from a complete key ceremony (an operator starts it, another person contributes the second share)`,
    because('CEREMONY_REQUIRED', { emission: e.emission }),
  )
}

/** Block b's secret under the seeding: from both shares, or drawn here. */
function secretOf(ceremony: CeremonyService, seeding: BlockSeeding, emission: number, block: number): Uint8Array {
  if (seeding === 'single') return newBlockSecret()
  const s = ceremony.blockSecret(emission, block)
  if (!s) throw new Error(`emission ${emission}'s key ceremony is no longer complete`)
  return s
}

export function createGeneration(deps: GenerationDeps) {
  const { db, clock, keys, audit, jobs, catalog, ceremony, verifyBlock, threads } = deps
  const setStatus = db.prepare('UPDATE emissions SET status = ? WHERE emission = ?')
  const takeLease = db.prepare(`INSERT INTO task_leases (emission, pid, host, heartbeat_at) VALUES (?, ?, ?, ?)
    ON CONFLICT (emission) DO UPDATE SET pid = excluded.pid, host = excluded.host, heartbeat_at = excluded.heartbeat_at`)
  const beat = db.prepare('UPDATE task_leases SET heartbeat_at = ? WHERE emission = ? AND pid = ? AND host = ?')
  const dropLease = db.prepare('DELETE FROM task_leases WHERE emission = ?')
  const leaseOf = db.prepare('SELECT pid, host, heartbeat_at AS "heartbeatAt" FROM task_leases WHERE emission = ?')
  const pendingOf = db.prepare("SELECT block FROM blocks WHERE emission = ? AND status = 'pending' ORDER BY block").pluck()
  const storeBlock = db.prepare(`UPDATE blocks SET status = 'generated', secret = ?, commitment = ?, merkle_root = ?, generated_at = ?,
                                 commitment_version = ?, proof_roots = ?, seeding = ? WHERE emission = ? AND block = ? AND status = 'pending'`)
  const pending = (emission: number) => pendingOf.all(emission) as number[]

  /** Marks the emission generating, with its lease; the seeding is settled first (nothing written if refused). */
  function begin(actor: Actor, emission: number): { seeding: BlockSeeding; todo: number[] } {
    return db.transaction(() => {
      const e = catalog.emission(emission)
      const seeding = seedingOf(ceremony, e)
      const todo = pending(emission)
      takeLease.run(emission, process.pid, hostname(), clock().getTime())
      setStatus.run('generating', emission)
      audit.record(actor.name, 'emission.generate-start', `emission:${emission}`, { from: e.status, to: 'generating', blocks: todo, seeding })
      return { seeding, todo }
    }).immediate()
  }

  function end(actor: Actor, emission: number, err: unknown): void {
    const cancelled = err instanceof AppError && err.code === 'CANCELLED'
    db.transaction(() => {
      dropLease.run(emission)
      setStatus.run('created', emission)
      audit.record(actor.name, cancelled ? 'emission.generate-cancelled' : 'emission.generate-failed', `emission:${emission}`, {
        from: 'generating', to: 'created', pending: pending(emission), ...(cancelled ? {} : { error: err instanceof Error ? err.message : String(err) }),
      })
    }).immediate()
  }

  /** Starts generating the emission's pending blocks (its status checked by the caller). */
  function generate(actor: Actor, emission: number): JobInfo {
    const def = catalog.definition(emission)
    const { seeding, todo } = begin(actor, emission)
    let lastBeat = 0
    const heartbeat = () => {
      const now = clock().getTime()
      if (now - lastBeat < LEASE_HEARTBEAT_MS) return
      lastBeat = now
      beat.run(now, emission, process.pid, hostname())
    }
    const total = todo.length * def.blockSize
    return jobs.start('generate', emission, total, `generating ${todo.length} block(s)`, async (ctx) => {
      try {
        for (const [i, block] of todo.entries()) {
          ctx.checkCancelled()
          const secret = secretOf(ceremony, seeding, emission, block)
          const v = await verifyBlock(def, { emission, block, secret, commitmentVersion: LATEST_COMMITMENT_VERSION }, {
            threads,
            signal: ctx.signal,
            onProgress: (done) => {
              heartbeat()
              ctx.progress(i * def.blockSize + done, total, `block ${block} (${i + 1} of ${todo.length})`)
            },
          })
          if (!v.sound) throw new Error(`block ${emission}/${block} came out unsound: ${v.problems.slice(0, 3).map((p) => p.message).join('; ')}`)
          db.transaction(() => {
            const sealed = keys.sealSecret({ emission, block }, secret)
            const roots = Buffer.from(batchRoots(nodePrimitives, v.leafHashes))
            if (storeBlock.run(sealed, v.commitment, v.merkleRoot, iso(clock()), v.commitmentVersion, roots, seeding, emission, block).changes !== 1) {
              throw new Error(`block ${emission}/${block} was changed by someone else during its generation`)
            }
            audit.record(actor.name, 'block.generate', `block:${emission}/${block}`, { commitment: v.commitment, commitmentVersion: v.commitmentVersion, seeding })
          }).immediate()
        }
        db.transaction(() => {
          dropLease.run(emission)
          setStatus.run('generated', emission)
          audit.record(actor.name, 'emission.generate-done', `emission:${emission}`, { from: 'generating', to: 'generated' })
        }).immediate()
        return `${todo.length} block(s) generated`
      } catch (err) {
        end(actor, emission, err)
        throw err
      }
    })
  }

  /** After a crash: generations that were running in a process that is gone go back to created. */
  function recoverInterrupted(): number[] {
    // nothing generating: no write lock is taken (a command opened beside a busy writer need not wait for it)
    if (!db.prepare("SELECT 1 FROM emissions WHERE status = 'generating'").get()) return []
    return db.transaction(() => {
      const stuck = db.prepare("SELECT emission FROM emissions WHERE status = 'generating'").pluck().all() as number[]
      const recovered: number[] = []
      for (const emission of stuck) {
        if (jobs.runningOn(emission)) continue
        const lease = leaseOf.get(emission) as { pid: number; host: string; heartbeatAt: number } | undefined
        if (lease && leaseIsLive(lease, clock().getTime())) continue
        recovered.push(emission)
        dropLease.run(emission)
        setStatus.run('created', emission)
        audit.record('system', 'emission.generate-interrupted', `emission:${emission}`, { from: 'generating', to: 'created', note: 'the generating process ended; pending blocks will be generated on the next run' })
      }
      return recovered
    }).immediate()
  }

  return { generate, recoverInterrupted }
}
