/**
 * Generation of an emission's pending blocks (a task on the job registry, in worker threads):
 * each block's secret is drawn, the whole block derived and checked, and its sealed secret and
 * commitment written in one statement. A generation holds its lease (leases.ts) so that another
 * workstation or process on the ledger can tell a live generation from a dead one.
 *
 * Where a block's secret comes from (DERIVATION.md §1.1): a real emission's from its complete
 * key ceremony, both shares, seeding "two-person"; a demonstration emission without one is
 * drawn by the one person who generates it, seeding "single" (single control).
 */
import { AppError, because } from '../../contract/errors'
import type { BlockSeeding, JobInfo } from '../../contract/types'
import { batchRoots } from '../../../game-core/commitment'
import type { GameDefinition } from '../../../game-core/rules'
import { LATEST_COMMITMENT_VERSION } from '../../../game-core/unit-commitment'
import { newBlockSecret, nodePrimitives } from '../../crypto/node-primitives'
import type { Db } from '../../ledger/db'
import { lockEmission } from '../../ledger/row-locks'
import type { KeyStore } from '../../ledger/keystore'
import type { AuditService } from '../audit'
import type { Catalog, EmissionRow } from '../catalog'
import type { CeremonyService } from './ceremony'
import { type Actor, type Clock, counted, iso } from '../common'
import type { VerifyBlockFn } from './block-pool'
import type { JobContext, JobRegistry } from '../jobs'
import { emissionSubject, type Lease, type Leases } from '../leases'

export interface GenerationDeps {
  db: Db
  clock: Clock
  keys: KeyStore
  audit: AuditService
  jobs: JobRegistry
  leases: Leases
  catalog: Catalog
  ceremony: CeremonyService
  verifyBlock: VerifyBlockFn
  threads?: number
}

/**
 * How the emission's blocks are seeded: from its complete key ceremony; by one person for a
 * demonstration emission without one. A real emission without one is refused.
 */
export function seedingOf(ceremony: CeremonyService, e: EmissionRow): BlockSeeding {
  const c = ceremony.get(e.emission)
  if (c?.state === 'complete') return 'two-person'
  if (e.demo === 1) return 'single'
  const waits =
    c?.state === 'awaiting-reveal'
      ? `for ${c.committedBy} to reveal the share committed to`
      : "for a second person's commitment"
  const where = c ? `its key ceremony waits ${waits} (opened by ${c.startedBy})` : 'it has no key ceremony yet'
  throw new AppError(
    'ILLEGAL_STATE',
    `emission ${e.emission} cannot be generated: ${where}; a real emission is generated only from a complete key ceremony (an operator opens it, another person commits to a share, then reveals it)`,
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

/** What a generation's functions share: the services it leans on and the statements prepared once. */
interface GenerationContext extends GenerationDeps {
  statements: ReturnType<typeof prepareGenerationStatements>
}

function prepareGenerationStatements(db: Db) {
  return {
    setStatus: db.prepare('UPDATE emissions SET status = ? WHERE emission = ?'),
    pendingOf: db.prepare("SELECT block FROM blocks WHERE emission = ? AND status = 'pending' ORDER BY block").pluck(),
    storeBlock:
      db.prepare(`UPDATE blocks SET status = 'generated', secret = ?, commitment = ?, merkle_root = ?, generated_at = ?,
                                 commitment_version = ?, proof_roots = ?, seeding = ? WHERE emission = ? AND block = ? AND status = 'pending'`),
    generating: db.prepare("SELECT emission FROM emissions WHERE status = 'generating' ORDER BY emission").pluck(),
  }
}

const pending = (ctx: GenerationContext, emission: number) => ctx.statements.pendingOf.all(emission) as number[]

/** Marks the emission generating, with its lease; the seeding is settled first (nothing written if refused). */
function begin(
  ctx: GenerationContext,
  actor: Actor,
  emission: number,
): { seeding: BlockSeeding; todo: number[]; lease: Lease } {
  const { db, catalog, ceremony, leases, audit, statements } = ctx
  return db
    .transaction(() => {
      lockEmission(db, emission)
      const e = catalog.emission(emission)
      const seeding = seedingOf(ceremony, e)
      const todo = pending(ctx, emission)
      const lease = leases.take('generate', emissionSubject(emission))
      statements.setStatus.run('generating', emission)
      audit.record(actor.name, 'emission.generate-start', `emission:${emission}`, {
        from: e.status,
        to: 'generating',
        blocks: todo,
        seeding,
      })
      return { seeding, todo, lease }
    })
    .immediate()
}

/** The emission back to created; nothing if another workstation took the generation over. */
function end(ctx: GenerationContext, actor: Actor, emission: number, lease: Lease, err: unknown): void {
  const cancelled = err instanceof AppError && err.code === 'CANCELLED'
  ctx.db
    .transaction(() => {
      lockEmission(ctx.db, emission)
      if (!lease.held()) return
      lease.drop()
      ctx.statements.setStatus.run('created', emission)
      ctx.audit.record(
        actor.name,
        cancelled ? 'emission.generate-cancelled' : 'emission.generate-failed',
        `emission:${emission}`,
        {
          from: 'generating',
          to: 'created',
          pending: pending(ctx, emission),
          ...(cancelled ? {} : { error: err instanceof Error ? err.message : String(err) }),
        },
      )
    })
    .immediate()
}

/** One generation under way: what begin settled, and the emission's game. */
interface GenerationRun {
  actor: Actor
  emission: number
  def: GameDefinition
  seeding: BlockSeeding
  todo: number[]
}

/** Block `block` (the i-th to do) drawn, derived and checked in the worker threads, then sealed and written. */
async function generateBlock(
  ctx: GenerationContext,
  run: GenerationRun,
  job: JobContext,
  i: number,
  block: number,
): Promise<void> {
  const { emission, def, seeding, todo, actor } = run
  const total = todo.length * def.blockSize
  job.checkCancelled()
  const secret = secretOf(ctx.ceremony, seeding, emission, block)
  const v = await ctx.verifyBlock(
    def,
    { emission, block, secret, commitmentVersion: LATEST_COMMITMENT_VERSION },
    {
      threads: ctx.threads,
      signal: job.signal,
      onProgress: (done) =>
        job.progress(i * def.blockSize + done, total, `block ${block} (${i + 1} of ${todo.length})`),
    },
  )
  if (!v.sound)
    throw new Error(
      `block ${emission}/${block} came out unsound: ${v.problems
        .slice(0, 3)
        .map((p) => p.message)
        .join('; ')}`,
    )
  ctx.db
    .transaction(() => {
      const sealed = ctx.keys.sealSecret({ emission, block }, secret)
      const roots = Buffer.from(batchRoots(nodePrimitives, v.leafHashes))
      if (
        ctx.statements.storeBlock.run(
          sealed,
          v.commitment,
          v.merkleRoot,
          iso(ctx.clock()),
          v.commitmentVersion,
          roots,
          seeding,
          emission,
          block,
        ).changes !== 1
      ) {
        throw new Error(`block ${emission}/${block} was changed by someone else during its generation`)
      }
      ctx.audit.record(actor.name, 'block.generate', `block:${emission}/${block}`, {
        commitment: v.commitment,
        commitmentVersion: v.commitmentVersion,
        seeding,
      })
    })
    .immediate()
}

/** Every block written: the emission generated, its lease dropped (refused if another workstation took it over). */
function finish(ctx: GenerationContext, run: GenerationRun, lease: Lease): void {
  ctx.db
    .transaction(() => {
      lockEmission(ctx.db, run.emission)
      if (!lease.held()) throw new Error(`emission ${run.emission}'s generation was taken over by another workstation`)
      lease.drop()
      ctx.statements.setStatus.run('generated', run.emission)
      ctx.audit.record(run.actor.name, 'emission.generate-done', `emission:${run.emission}`, {
        from: 'generating',
        to: 'generated',
      })
    })
    .immediate()
}

/** Starts generating the emission's pending blocks (its status checked by the caller). */
function generate(ctx: GenerationContext, actor: Actor, emission: number): JobInfo {
  const def = ctx.catalog.definition(emission)
  const { seeding, todo, lease } = begin(ctx, actor, emission)
  const run: GenerationRun = { actor, emission, def, seeding, todo }
  return ctx.jobs.start(
    'generate',
    emission,
    todo.length * def.blockSize,
    `generating ${counted(todo.length, 'block')}`,
    async (job) => {
      try {
        for (const [i, block] of todo.entries()) await generateBlock(ctx, run, job, i, block)
        finish(ctx, run, lease)
        return `${counted(todo.length, 'block')} generated`
      } catch (err) {
        end(ctx, actor, emission, lease, err)
        throw err
      }
    },
    lease,
  )
}

/**
 * After a crash, or a workstation gone mid-generation: the emission's generation, if its lease
 * is dead (or missing), goes back to created. In the caller's write transaction.
 */
function recoverOne(ctx: GenerationContext, emission: number): boolean {
  const { jobs, leases } = ctx
  if (jobs.runningOn(emission)) return false
  lockEmission(ctx.db, emission)
  const subject = emissionSubject(emission)
  if (leases.liveOn(subject).some((l) => l.kind === 'generate')) return false
  for (const dead of leases.deadOn(subject).filter((l) => l.kind === 'generate')) leases.clearDead(dead)
  ctx.statements.setStatus.run('created', emission)
  ctx.audit.record('system', 'emission.generate-interrupted', `emission:${emission}`, {
    from: 'generating',
    to: 'created',
    note: 'the generating process ended; pending blocks will be generated on the next run',
  })
  return true
}

/** Every interrupted generation (on opening the ledger, or before a generation starts). */
function recoverInterrupted(ctx: GenerationContext): number[] {
  const { generating } = ctx.statements
  // nothing generating: no write lock is taken (a command opened beside a busy writer need not wait for it)
  if ((generating.all() as number[]).length === 0) return []
  return ctx.db.transaction(() => (generating.all() as number[]).filter((e) => recoverOne(ctx, e))).immediate()
}

export interface Generation {
  generate(actor: Actor, emission: number): JobInfo
  recoverInterrupted(): number[]
}

export function createGeneration(deps: GenerationDeps): Generation {
  const ctx: GenerationContext = { ...deps, statements: prepareGenerationStatements(deps.db) }
  return {
    generate: (actor, emission) => generate(ctx, actor, emission),
    recoverInterrupted: () => recoverInterrupted(ctx),
  }
}
