/**
 * Emissions and their blocks: creation, generation (generation.ts) and verification (worker
 * threads, progress, cancel: verify.ts), opening, closing and withdrawal; the screens'
 * views in views.ts, the refusals in refusals.ts. Each state change is one transaction with its audit
 * entry. A block is made whole or not at all: its sealed secret and commitment are written in one
 * statement once the whole block has been derived and checked.
 *
 *   created → generating → generated → verified → open → closed
 *   withdrawn (with a reason) from any state but closed; a cancelled or interrupted generation
 *   goes back to created and resumes with the blocks still pending.
 */
import { DEFAULT_CLAIM_DAYS, DEFAULT_CLAIM_THRESHOLD_CENTS } from '../../contract/claims-types'
import { isIsoDay } from '../../contract/dates'
import { AppError, because } from '../../contract/errors'
import type {
  AuditAction,
  BlockDetail,
  Certificate,
  EmissionDetail,
  EmissionStatus,
  EmissionSummary,
  JobInfo,
} from '../../contract/types'
import { CARATS } from '../../../game-core/carats'
import { canonicalJson, definitionDigest } from '../../../game-core/commitment'
import { toHex } from '../../../game-core/primitives'
import { validateDefinition, type GameDefinition } from '../../../game-core/rules'
import { buildCertificate } from './certificate'
import { createCeremonyService } from './ceremony'
import { createGeneration } from './generation'
import { prepareEmissionStatements, type EmissionsContext, type EmissionsDeps } from './context'
import { illegal, refuseClaimDays, refuseIfBusy, refuseThreshold } from './refusals'
import { verifyEmission } from './verify'
import { blockDetail, emissionDetail, emissionSummary, listEmissions } from './views'
import { createVerifications } from './verifications'
import { nodePrimitives } from '../../crypto/node-primitives'
import type { Db } from '../../ledger/db'
import { lockEmission, lockSubject } from '../../ledger/row-locks'
import type { EmissionRow } from '../catalog'
import { type Actor, iso } from '../common'
import { createLeases } from '../leases'

export { describeStatus } from './refusals'

export interface EmissionsService {
  list(): EmissionSummary[]
  get(emission: number): EmissionDetail
  summary(emission: number): EmissionSummary
  block(emission: number, block: number): BlockDetail
  certificate(emission: number): Certificate
  /** A demonstration emission (`demo`) is the only kind that takes simulated sales. */
  create(
    actor: Actor,
    input: {
      blocks: number
      code?: string
      startsOn?: string
      demo?: boolean
      claimThresholdCents?: number
      claimDays?: number
    },
  ): EmissionSummary
  generate(actor: Actor, emission: number): JobInfo
  verify(actor: Actor, emission: number): JobInfo
  open(actor: Actor, emission: number): EmissionSummary
  close(actor: Actor, emission: number): EmissionSummary
  withdraw(actor: Actor, emission: number, reason: string): EmissionSummary
  /** After a crash: generations that were running in a process that is gone go back to created. */
  recoverInterrupted(): number[]
}

function buildContext(deps: EmissionsDeps): EmissionsContext {
  const { db, clock, keys, audit, jobs, catalog, verifyBlock, threads } = deps
  const verifications = deps.verifications ?? createVerifications({ db, clock, catalog })
  const ceremony = deps.ceremony ?? createCeremonyService({ db, keys, audit, catalog, clock })
  const leases = deps.leases ?? createLeases({ db, clock, audit })
  const generation = createGeneration({ db, clock, keys, audit, jobs, leases, catalog, ceremony, verifyBlock, threads })
  const definition = deps.definition ?? CARATS
  return {
    db,
    clock,
    keys,
    audit,
    jobs,
    catalog,
    ceremony,
    verifications,
    leases,
    generation,
    verifyBlock,
    threads,
    definition,
    statements: prepareEmissionStatements(db),
  }
}

type CreateInput = Parameters<EmissionsService['create']>[1]

/** The input's refusals, before anything is written. */
function refuseCreateInput(
  def: GameDefinition,
  { blocks, startsOn, claimThresholdCents, claimDays }: CreateInput,
): void {
  const problems = validateDefinition(def)
  if (problems.length) throw new AppError('INTERNAL', `the game definition is not sound: ${problems.join('; ')}`)
  if (!Number.isInteger(blocks) || blocks < 1 || blocks > 999)
    throw new AppError('BAD_ARGUMENTS', `an emission has 1 to 999 blocks, not ${blocks}`, {
      field: 'blocks',
      ...because('BLOCKS_RANGE', { blocks }),
    })
  // the app's one date reader: YYYY-MM-DD, a day that exists
  if (startsOn !== undefined && !isIsoDay(startsOn))
    throw new AppError('BAD_ARGUMENTS', `startsOn: ${startsOn} is not a real date`, {
      field: 'startsOn',
      ...because('DATE_INVALID', { date: startsOn }),
    })
  if (claimThresholdCents !== undefined) refuseThreshold(def, claimThresholdCents)
  if (claimDays !== undefined) refuseClaimDays(claimDays)
}

function createEmission(ctx: EmissionsContext, actor: Actor, input: CreateInput): EmissionSummary {
  const { db, clock, audit, definition: newDefinition } = ctx
  const { blocks, code, startsOn, demo = false, claimThresholdCents, claimDays = DEFAULT_CLAIM_DAYS } = input
  refuseCreateInput(newDefinition, input)
  const threshold = claimThresholdCents ?? DEFAULT_CLAIM_THRESHOLD_CENTS
  const emission = db
    .transaction(() => {
      // the next number and the code's uniqueness are read then written: creators take turns
      lockSubject(db, 'emission numbering')
      const next = ((db.prepare('SELECT max(emission) FROM emissions').pluck().get() as number | null) ?? 0) + 1
      if (next > 9999)
        throw new AppError(
          'ILLEGAL_STATE',
          'the ledger already holds emission 9999, the last number a serial can carry',
          because('EMISSIONS_FULL'),
        )
      const theCode = code?.trim() || `E${String(next).padStart(4, '0')}`
      if (db.prepare('SELECT 1 FROM emissions WHERE code = ?').get(theCode))
        throw new AppError('CONFLICT', `an emission with code "${theCode}" already exists`, {
          field: 'code',
          ...because('EMISSION_CODE_TAKEN', { code: theCode }),
        })
      db.prepare(
        `INSERT INTO emissions (emission, code, starts_on, status, blocks, definition, definition_digest, created_at, demo,
                                claim_threshold_cents, claim_days)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(
        next,
        theCode,
        startsOn ?? null,
        'created',
        blocks,
        canonicalJson(newDefinition),
        toHex(definitionDigest(nodePrimitives, newDefinition)),
        iso(clock()),
        demo ? 1 : 0,
        threshold,
        claimDays,
      )
      insertBlocks(db, newDefinition, next, blocks)
      audit.record(actor.name, 'emission.create', `emission:${next}`, {
        code: theCode,
        blocks,
        startsOn: startsOn ?? null,
        definition: newDefinition.id,
        demo,
        claimThresholdCents: threshold,
        claimDays,
      })
      return next
    })
    .immediate()
  return emissionSummary(ctx, emission)
}

/** The new emission's blocks, pending, each with its tiers at nothing sold. */
function insertBlocks(db: Db, def: GameDefinition, emission: number, blocks: number): void {
  const insBlock = db.prepare("INSERT INTO blocks (emission, block, status) VALUES (?, ?, 'pending')")
  const insTier = db.prepare('INSERT INTO block_tiers (emission, block, tier, sold) VALUES (?, ?, ?, 0)')
  for (let b = 1; b <= blocks; b++) {
    insBlock.run(emission, b)
    for (let t = 0; t < def.tiers.length; t++) insTier.run(emission, b, t)
  }
}

function generateEmission(ctx: EmissionsContext, actor: Actor, emission: number): JobInfo {
  const { generation, catalog } = ctx
  refuseIfBusy(ctx, emission, 'generate')
  generation.recoverInterrupted()
  const e = catalog.emission(emission)
  if (e.status !== 'created')
    throw illegal(
      e,
      'generate',
      ['generated', 'verified', 'open', 'closed'].includes(e.status) ? 'generatedOnce' : null,
    )
  return generation.generate(actor, emission)
}

interface Transition {
  action: AuditAction
  /** Refuses the step (or writes what goes with it) inside the transaction. */
  check: (e: EmissionRow) => void
  to: EmissionStatus
  extra?: () => Record<string, unknown>
}

/** Runs `check` and the status change in one transaction, with its audit entry. */
function transition(
  ctx: EmissionsContext,
  actor: Actor,
  emission: number,
  { action, check, to, extra = () => ({}) }: Transition,
): EmissionSummary {
  const { db, catalog, audit, statements } = ctx
  db.transaction(() => {
    // the status is read then written: a change waits for the emission's sales and other changes, they for it
    lockEmission(db, emission)
    const e = catalog.emission(emission)
    check(e)
    const details = extra()
    statements.setStatus.run(to, emission)
    audit.record(actor.name, action, `emission:${emission}`, { from: e.status, to, ...details })
  }).immediate()
  return emissionSummary(ctx, emission)
}

function openEmission(ctx: EmissionsContext, actor: Actor, emission: number): EmissionSummary {
  const { db, clock, catalog } = ctx
  refuseIfBusy(ctx, emission, 'open')
  return transition(ctx, actor, emission, {
    action: 'emission.open',
    to: 'open',
    check: (e) => {
      if (e.status !== 'verified')
        throw illegal(
          e,
          'open',
          e.status === 'generated' || e.status === 'created' || e.status === 'generating' ? 'verifyFirst' : null,
        )
      const notVerified = catalog.blocks(emission).filter((b) => b.status !== 'verified')
      if (notVerified.length)
        throw illegal(
          e,
          'open',
          'blocksNotVerified',
          notVerified.map((b) => b.block),
        )
      db.prepare('UPDATE emissions SET opened_at = ? WHERE emission = ?').run(iso(clock()), emission)
    },
  })
}

function closeEmission(ctx: EmissionsContext, actor: Actor, emission: number): EmissionSummary {
  const { db, clock } = ctx
  return transition(ctx, actor, emission, {
    action: 'emission.close',
    to: 'closed',
    check: (e) => {
      if (e.status !== 'open') throw illegal(e, 'close', 'onlyOpenCloses')
      db.prepare('UPDATE emissions SET closed_at = ? WHERE emission = ?').run(iso(clock()), emission)
    },
  })
}

function withdrawEmission(ctx: EmissionsContext, actor: Actor, emission: number, reason: string): EmissionSummary {
  const { db } = ctx
  refuseIfBusy(ctx, emission, 'withdraw')
  const why = reason.trim()
  if (why.length < 3)
    throw new AppError('REASON_REQUIRED', 'give a reason of at least 3 characters to withdraw an emission', {
      field: 'reason',
      ...because('WITHDRAW_REASON'),
    })
  return transition(ctx, actor, emission, {
    action: 'emission.withdraw',
    to: 'withdrawn',
    extra: () => ({ reason: why }),
    check: (e) => {
      if (e.status === 'closed' || e.status === 'withdrawn') throw illegal(e, 'withdraw', 'final')
      // status and reason together: the schema checks that one never goes without the other
      db.prepare("UPDATE emissions SET status = 'withdrawn', withdrawn_reason = ? WHERE emission = ?").run(
        why,
        emission,
      )
    },
  })
}

export function createEmissionsService(deps: EmissionsDeps): EmissionsService {
  const ctx = buildContext(deps)
  const { catalog, audit, clock, ceremony, generation } = ctx
  return {
    list: () => listEmissions(ctx),
    summary: (emission) => emissionSummary(ctx, emission),
    get: (emission) => emissionDetail(ctx, emission),
    block: (emission, block) => blockDetail(ctx, emission, block),
    certificate: (emission) => buildCertificate({ catalog, audit, clock, ceremony }, emission),
    create: (actor, input) => createEmission(ctx, actor, input),
    generate: (actor, emission) => generateEmission(ctx, actor, emission),
    verify: (actor, emission) => verifyEmission(ctx, actor, emission),
    open: (actor, emission) => openEmission(ctx, actor, emission),
    close: (actor, emission) => closeEmission(ctx, actor, emission),
    withdraw: (actor, emission, reason) => withdrawEmission(ctx, actor, emission, reason),
    recoverInterrupted: () => generation.recoverInterrupted(),
  }
}
