/**
 * Verifying an emission: every block re-derived by the worker pool, one verdict per block kept
 * with its status and audit entry, under the emission's lease so two workstations never verify
 * it twice. A cancelled or failed run is closed as such; a run taken over is left to its new holder.
 */
import { AppError, because } from '../../contract/errors'
import type { JobInfo } from '../../contract/types'
import type { CommitmentVersion } from '../../../game-core/unit-commitment'
import type { GameDefinition } from '../../../game-core/rules'
import { lockEmission } from '../../ledger/row-locks'
import type { BlockRow } from '../catalog'
import { type Actor, counted, iso } from '../common'
import type { EmissionsContext } from './context'
import { illegal, refuseIfBusy } from './refusals'
import type { JobContext } from '../jobs'
import { emissionSubject, type Lease } from '../leases'
import { blockVerdict, ceremonyProblem, verdictReasons, type Verdict } from './verifications'

/** One verification run: what its steps share. */
interface VerifyRun {
  ctx: EmissionsContext
  actor: Actor
  emission: number
  def: GameDefinition
  blocks: BlockRow[]
  /** Units in all the blocks: the job's progress total. */
  total: number
  /** The verification's id (verifications.ts). */
  id: number
  lease: Lease
}

export function verifyEmission(ctx: EmissionsContext, actor: Actor, emission: number): JobInfo {
  const { catalog, jobs } = ctx
  refuseIfBusy(ctx, emission, 'verify')
  const e = catalog.emission(emission)
  if (e.status === 'created' || e.status === 'generating') throw illegal(e, 'verify', 'generateFirst')
  const def = catalog.definition(emission)
  const blocks = catalog.blocks(emission)
  const pending = blocks.filter((b) => !b.secret)
  if (pending.length)
    throw illegal(
      e,
      'verify',
      'blocksNotGenerated',
      pending.map((b) => b.block),
    )
  const total = blocks.length * def.blockSize
  const { id, lease } = beginVerification(ctx, actor, emission, blocks.length)
  const run: VerifyRun = { ctx, actor, emission, def, blocks, total, id, lease }
  return jobs.start(
    'verify',
    emission,
    total,
    `verifying ${counted(blocks.length, 'block')}`,
    (job) => verifyBlocks(run, job),
    lease,
  )
}

/** Takes the lease, closes a run abandoned by a workstation gone, and opens this one, with its audit entry. */
function beginVerification(
  ctx: EmissionsContext,
  actor: Actor,
  emission: number,
  blocks: number,
): { id: number; lease: Lease } {
  const { db, clock, leases, verifications, audit, statements } = ctx
  return db
    .transaction(() => {
      lockEmission(db, emission)
      const lease = leases.take('verify', emissionSubject(emission))
      statements.closeAbandoned.run(
        iso(clock()),
        'interrupted: the workstation verifying stopped before the end',
        emission,
      )
      const id = verifications.begin(actor, emission, blocks)
      audit.record(actor.name, 'emission.verify-start', `emission:${emission}`, { blocks, verification: id })
      return { id, lease }
    })
    .immediate()
}

/** The job's body: each block checked and kept in turn, then the run closed. */
async function verifyBlocks(run: VerifyRun, job: JobContext): Promise<string> {
  const unsound: Verdict[] = []
  try {
    for (const [i, b] of run.blocks.entries()) {
      job.checkCancelled()
      const v = await checkBlock(run, b, i, job)
      if (!v.sound) unsound.push(v)
      keepVerdict(run, v)
    }
  } catch (err) {
    closeInterrupted(run, err)
    throw err
  }
  const failed = closeFinished(run, unsound)
  if (failed.length)
    throw new AppError(
      'INTERNAL',
      `verification failed: ${failed.join(' | ')}`,
      because('VERIFY_FAILED', { blocks: unsound.map((v) => v.block).join(', ') }),
    )
  return `${counted(run.blocks.length, 'block')} verified: every commitment reproduced`
}

/** The block's verdict. A key that is not the ledger's throws: it says nothing of the block. */
async function checkBlock(run: VerifyRun, b: BlockRow, i: number, job: JobContext): Promise<Verdict> {
  const {
    ctx: { clock, keys, ceremony, verifyBlock, threads },
    emission,
    def,
    blocks,
    total,
    id,
  } = run
  const startedAt = clock()
  let secret: Uint8Array
  try {
    secret = keys.openSecret({ emission, block: b.block }, b.secret!)
  } catch (e) {
    if (e instanceof AppError && e.code === 'DATABASE')
      return blockVerdict({
        verification: id,
        def,
        block: b,
        v: null,
        unreadable: e.message,
        startedAt,
        endedAt: clock(),
      })
    throw e
  }
  const seedingProblem =
    b.seeding === 'two-person' ? ceremonyProblem(ceremony, { emission, block: b.block }, secret) : null
  const v = await verifyBlock(
    def,
    { emission, block: b.block, secret, commitmentVersion: b.commitment_version as CommitmentVersion },
    {
      threads,
      signal: job.signal,
      onProgress: (done) =>
        job.progress(i * def.blockSize + done, total, `block ${b.block} (${i + 1} of ${blocks.length})`),
    },
  )
  return blockVerdict({ verification: id, def, block: b, v, seedingProblem, startedAt, endedAt: clock() })
}

/** The block's new status, its verdict and its audit entry, together. */
function keepVerdict(
  { ctx: { db, audit, verifications, statements }, actor, emission, id, lease }: VerifyRun,
  v: Verdict,
): void {
  db.transaction(() => {
    lockEmission(db, emission)
    if (!lease.held()) throw new Error(`emission ${emission}'s verification was taken over by another workstation`)
    statements.setBlock.run(v.sound ? 'verified' : 'failed', v.endedAt, emission, v.block)
    verifications.record(v)
    const summary = {
      verification: id,
      units: v.unitsChecked,
      commitmentReproduced: v.commitmentMatches,
      prizeTableExact: v.prizeTableExact,
      ms: v.ms,
    }
    audit.record(
      actor.name,
      v.sound ? 'block.verify' : 'block.verify-failed',
      `block:${emission}/${v.block}`,
      v.sound ? { commitment: v.commitmentRecorded, ...summary } : { reasons: v.problems.slice(0, 3), ...summary },
    )
  }).immediate()
}

/** A run stopped by a cancel or an error is closed as cancelled or failed, with its audit entry. */
function closeInterrupted(
  { ctx: { db, audit, verifications }, actor, emission, id, lease }: VerifyRun,
  err: unknown,
): void {
  const cancelled = err instanceof AppError && err.code === 'CANCELLED'
  const message = err instanceof Error ? err.message : String(err)
  db.transaction(() => {
    lockEmission(db, emission)
    // taken over by another workstation: it closed this verification already
    if (!lease.held()) return
    const r = verifications.finish(id, cancelled ? 'cancelled' : 'failed', cancelled ? null : message)
    const summary = {
      verification: id,
      outcome: r.outcome,
      blocks: r.blocks,
      checked: r.blocksChecked,
      sound: r.blocksSound,
      unsound: r.unsoundBlocks,
      ms: r.ms,
    }
    audit.record(
      actor.name,
      cancelled ? 'emission.verify-cancelled' : 'emission.verify-done',
      `emission:${emission}`,
      cancelled ? summary : { ...summary, error: message },
    )
  }).immediate()
}

/** Closes a run that checked every block; a generated emission whose blocks all verified becomes verified. Returns the failures. */
function closeFinished(
  { ctx: { db, audit, verifications, catalog, statements }, actor, emission, id }: VerifyRun,
  unsound: Verdict[],
): string[] {
  const failed = unsound.map((v) => `block ${v.block}: ${verdictReasons(v)}`)
  db.transaction(() => {
    lockEmission(db, emission)
    const r = verifications.finish(id, unsound.length ? 'unsound' : 'sound')
    const summary = {
      verification: id,
      outcome: r.outcome,
      blocks: r.blocks,
      sound: r.blocksSound,
      unsound: r.unsoundBlocks,
      ms: r.ms,
    }
    const now = catalog.emission(emission)
    const allVerified = catalog.blocks(emission).every((b) => b.status === 'verified')
    if (now.status === 'generated' && allVerified) {
      statements.setStatus.run('verified', emission)
      audit.record(actor.name, 'emission.verify-done', `emission:${emission}`, {
        from: 'generated',
        to: 'verified',
        ...summary,
      })
    } else {
      audit.record(actor.name, 'emission.verify-done', `emission:${emission}`, { failed, ...summary })
    }
  }).immediate()
  return failed
}
