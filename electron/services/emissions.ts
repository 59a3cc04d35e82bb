/**
 * Emissions and their blocks: creation, generation (generation.ts) and verification (worker
 * threads, progress, cancel), opening, closing and withdrawal. Each state change is one transaction with its audit
 * entry. A block is made whole or not at all: its sealed secret and commitment are written in one
 * statement once the whole block has been derived and checked.
 *
 *   created → generating → generated → verified → open → closed
 *   withdrawn (with a reason) from any state but closed; a cancelled or interrupted generation
 *   goes back to created and resumes with the blocks still pending.
 */
import { DEFAULT_CLAIM_THRESHOLD_CENTS } from '../contract/claims-types'
import { isIsoDay } from '../contract/dates'
import { AppError, because, type ErrorAction, type ErrorHint } from '../contract/errors'
import type { AuditAction, BlockDetail, BlockSummary, Certificate, EmissionDetail, EmissionStatus, EmissionSummary, JobInfo } from '../contract/types'
import { CARATS } from '../../game-core/carats'
import { canonicalJson, definitionDigest } from '../../game-core/commitment'
import type { CommitmentVersion } from '../../game-core/unit-commitment'
import { toHex } from '../../game-core/primitives'
import { deriveFigures, validateDefinition, type GameDefinition } from '../../game-core/rules'
import type { BlockVerification } from '../../game-core/verify'
import { buildCertificate } from './certificate'
import { createCeremonyService, type CeremonyService } from './ceremony'
import { createGeneration } from './generation'
import { emissionFigures } from './emission-figures'
import { blockVerdict, ceremonyProblem, createVerifications, verdictReasons, type Verdict, type Verifications } from './verifications'
import { nodePrimitives } from '../crypto/node-primitives'
import type { Db } from '../ledger/db'
import type { KeyStore } from '../ledger/keystore'
import type { AuditService } from './audit'
import type { BlockRow, Catalog, EmissionRow } from './catalog'
import { type Actor, type Clock, iso } from './common'
import type { JobContext, JobRegistry } from './jobs'
import { createLeases, emissionSubject, type Leases } from './leases'

export type VerifyBlockFn = (
  def: GameDefinition,
  ref: { emission: number; block: number; secret: Uint8Array; commitmentVersion?: CommitmentVersion },
  opts?: { threads?: number; onProgress?: (unitsDone: number, unitsTotal: number) => void; signal?: AbortSignal },
) => Promise<BlockVerification>

export interface EmissionsDeps {
  db: Db
  clock: Clock
  keys: KeyStore
  audit: AuditService
  jobs: JobRegistry
  catalog: Catalog
  /** The emissions' key ceremonies (default: this ledger's, made here). */
  ceremony?: CeremonyService
  /** The worker pool (electron/workers/block-pool.ts). */
  verifyBlock: VerifyBlockFn
  threads?: number
  /** The game of new emissions. */
  definition?: GameDefinition
  /** Where verdicts are kept (default: this ledger's, made here). */
  verifications?: Verifications
  /** The leases of long jobs across workstations (default: a holder of its own, made here). */
  leases?: Leases
}

export interface EmissionsService {
  list(): EmissionSummary[]
  get(emission: number): EmissionDetail
  summary(emission: number): EmissionSummary
  block(emission: number, block: number): BlockDetail
  certificate(emission: number): Certificate
  /** A demonstration emission (`demo`) is the only kind that takes simulated sales. */
  create(actor: Actor, input: { blocks: number; code?: string; startsOn?: string; demo?: boolean; claimThresholdCents?: number }): EmissionSummary
  generate(actor: Actor, emission: number): JobInfo
  verify(actor: Actor, emission: number): JobInfo
  open(actor: Actor, emission: number): EmissionSummary
  close(actor: Actor, emission: number): EmissionSummary
  withdraw(actor: Actor, emission: number, reason: string): EmissionSummary
  /** After a crash: generations that were running in a process that is gone go back to created. */
  recoverInterrupted(): number[]
}

const STATUS_WORDS: Record<EmissionStatus, string> = {
  created: 'created but not generated',
  generating: 'being generated',
  generated: 'generated but not verified',
  verified: 'verified but not open',
  open: 'open for sale',
  closed: 'closed',
  withdrawn: 'withdrawn',
}

/** A threshold given is whole euros, from 1 € up to the top prize (above it, no prize would ever be claimed). */
function refuseThreshold(def: GameDefinition, cents: number): void {
  const top = Math.max(...def.tiers.map((t) => t.amountCents))
  if (!Number.isInteger(cents) || cents < 100 || cents > top || cents % 100 !== 0) {
    throw new AppError('BAD_ARGUMENTS', `the claim threshold must be whole euros from 1 € to the top prize, ${(top / 100).toLocaleString('en-US')} €, not ${cents} cents`, {
      field: 'claimThresholdCents', ...because('CLAIM_THRESHOLD_RANGE', { cents, maxCents: top }),
    })
  }
}

export function describeStatus(status: EmissionStatus): string {
  return STATUS_WORDS[status]
}

export function createEmissionsService(deps: EmissionsDeps): EmissionsService {
  const { db, clock, keys, audit, jobs, catalog, verifyBlock, threads } = deps
  const verifications = deps.verifications ?? createVerifications({ db, clock, catalog })
  const ceremony = deps.ceremony ?? createCeremonyService({ db, keys, audit, catalog, clock })
  const newDefinition = deps.definition ?? CARATS
  const leases = deps.leases ?? createLeases({ db, clock, audit })
  const generation = createGeneration({ db, clock, keys, audit, jobs, leases, catalog, ceremony, verifyBlock, threads })
  // a verification left open by a workstation gone mid-way (its lease is ours now)
  const closeAbandoned = db.prepare("UPDATE verifications SET ended_at = ?, outcome = 'failed', error = ? WHERE emission = ? AND ended_at IS NULL")
  const setStatus = db.prepare('UPDATE emissions SET status = ? WHERE emission = ?')
  const summaryStmt = db.prepare(`
    SELECT e.*, count(b.block) AS n_blocks,
           count(CASE WHEN b.status <> 'pending' THEN 1 END) AS n_generated,
           count(CASE WHEN b.status = 'verified' THEN 1 END) AS n_verified,
           coalesce(sum(b.units_sold), 0) AS units_sold
    FROM emissions e LEFT JOIN blocks b ON b.emission = e.emission
    WHERE e.emission = ? GROUP BY e.emission`)
  const listStmt = db.prepare(`
    SELECT e.*, count(b.block) AS n_blocks,
           count(CASE WHEN b.status <> 'pending' THEN 1 END) AS n_generated,
           count(CASE WHEN b.status = 'verified' THEN 1 END) AS n_verified,
           coalesce(sum(b.units_sold), 0) AS units_sold
    FROM emissions e LEFT JOIN blocks b ON b.emission = e.emission
    GROUP BY e.emission ORDER BY e.emission DESC`)

  type SummaryRow = EmissionRow & { n_blocks: number; n_generated: number; n_verified: number; units_sold: number }

  function toSummary(r: SummaryRow): EmissionSummary {
    const def = catalog.definition(r.emission)
    return {
      emission: r.emission,
      code: r.code,
      startsOn: r.starts_on,
      status: r.status,
      blocks: r.blocks,
      blocksGenerated: r.n_generated,
      blocksVerified: r.n_verified,
      unitsTotal: r.blocks * def.blockSize,
      unitsSold: r.units_sold,
      createdAt: r.created_at,
      withdrawnReason: r.withdrawn_reason,
      demo: r.demo === 1,
      jobId: jobs.runningOn(r.emission)?.id ?? null,
      publishedAt: r.published_at,
      publishedBy: r.published_by,
      claimThresholdCents: r.claim_threshold_cents,
    }
  }

  function toBlockSummary(b: BlockRow, def: GameDefinition): BlockSummary {
    return {
      emission: b.emission,
      block: b.block,
      status: b.status,
      commitment: b.commitment,
      commitmentVersion: b.commitment_version,
      generatedAt: b.generated_at,
      verifiedAt: b.verified_at,
      unitsSold: b.units_sold,
      unitsTotal: def.blockSize,
      seeding: b.seeding,
    }
  }

  /** The step as the English message says it. */
  const STEP_WORDS: Record<Exclude<ErrorAction, 'simulate'>, string> = { generate: 'be generated', verify: 'be verified', open: 'open for sale', close: 'close', withdraw: 'be withdrawn' }

  function refuseIfBusy(emission: number, action: keyof typeof STEP_WORDS): void {
    const job = jobs.runningOn(emission)
    if (job) {
      throw new AppError('ILLEGAL_STATE', `emission ${emission} cannot ${STEP_WORDS[action]}: a ${job.kind} task is running on it (${job.id}); wait for it or cancel it`, because('EMISSION_BUSY', { emission, action, kind: job.kind }))
    }
    leases.refuseIfHeldElsewhere(emissionSubject(emission))
  }

  /** What to do instead, said after the refusal (blocks: the blocks it names). */
  const HINT_WORDS: Record<ErrorHint, (blocks: string) => string> = {
    generatedOnce: () => 'its blocks are generated once, never again',
    generateFirst: () => 'generate its blocks first',
    blocksNotGenerated: (b) => `block(s) ${b} were never generated`,
    verifyFirst: () => 'every block must be verified before the emission opens',
    blocksNotVerified: (b) => `block(s) ${b} are not verified`,
    onlyOpenCloses: () => 'only an open emission closes',
    final: () => 'a closed or withdrawn emission is final',
  }

  function illegal(e: EmissionRow, action: keyof typeof STEP_WORDS, hint: ErrorHint | null = null, blocks: number[] = []): AppError {
    const list = blocks.join(', ')
    const params: Record<string, string | number> = { emission: e.emission, action, status: e.status }
    if (hint) params.hint = hint
    if (blocks.length) params.blocks = list
    return new AppError('ILLEGAL_STATE', `emission ${e.emission} cannot ${STEP_WORDS[action]}: it is ${describeStatus(e.status)}${hint ? `; ${HINT_WORDS[hint](list)}` : ''}`, because('EMISSION_STEP', params))
  }

  /** Runs `step` and the status change in one transaction, with its audit entry. */
  function transition(actor: Actor, emission: number, action: AuditAction, check: (e: EmissionRow) => void, to: EmissionStatus, extra: () => Record<string, unknown> = () => ({})) {
    db.transaction(() => {
      const e = catalog.emission(emission)
      check(e)
      const details = extra()
      setStatus.run(to, emission)
      audit.record(actor.name, action, `emission:${emission}`, { from: e.status, to, ...details })
    }).immediate()
    return service.summary(emission)
  }

  const service: EmissionsService = {
    list: () => (listStmt.all() as SummaryRow[]).map(toSummary),

    summary(emission) {
      const r = summaryStmt.get(emission) as SummaryRow | undefined
      if (!r) throw new AppError('NOT_FOUND', `emission ${emission} does not exist`, { field: 'emission', ...because('EMISSION_NOT_FOUND', { emission }) })
      return toSummary(r)
    },

    get(emission) {
      const s = service.summary(emission)
      const def = catalog.definition(emission)
      return { ...s, blockList: catalog.blocks(emission).map((b) => toBlockSummary(b, def)), figures: emissionFigures(db, catalog, emission) }
    },

    block(emission, block) {
      const def = catalog.definition(emission)
      const b = catalog.block(emission, block)
      const sold = new Map((db.prepare('SELECT tier, sold FROM block_tiers WHERE emission = ? AND block = ?').all(emission, block) as { tier: number; sold: number }[]).map((r) => [r.tier, r.sold]))
      const unitsLeft = def.blockSize - b.units_sold
      let prizesSold = 0
      const tiers = def.tiers.map((t, i) => {
        const s = sold.get(i) ?? 0
        prizesSold += s
        const remaining = t.count - s
        return { amountCents: t.amountCents, initial: t.count, sold: s, remaining, remainingOddsOneIn: remaining > 0 ? unitsLeft / remaining : null }
      })
      const figures = deriveFigures(def)
      return { ...toBlockSummary(b, def), tiers, losingRemaining: figures.losingUnits - (b.units_sold - prizesSold) }
    },

    certificate: (emission) => buildCertificate({ catalog, audit, clock, ceremony }, emission),

    create(actor, { blocks, code, startsOn, demo = false, claimThresholdCents }) {
      const problems = validateDefinition(newDefinition)
      if (problems.length) throw new AppError('INTERNAL', `the game definition is not sound: ${problems.join('; ')}`)
      if (!Number.isInteger(blocks) || blocks < 1 || blocks > 999) throw new AppError('BAD_ARGUMENTS', `an emission has 1 to 999 blocks, not ${blocks}`, { field: 'blocks', ...because('BLOCKS_RANGE', { blocks }) })
      // the app's one date reader: YYYY-MM-DD, a day that exists
      if (startsOn !== undefined && !isIsoDay(startsOn)) throw new AppError('BAD_ARGUMENTS', `startsOn: ${startsOn} is not a real date`, { field: 'startsOn', ...because('DATE_INVALID', { date: startsOn }) })
      if (claimThresholdCents !== undefined) refuseThreshold(newDefinition, claimThresholdCents)
      const threshold = claimThresholdCents ?? DEFAULT_CLAIM_THRESHOLD_CENTS
      const emission = db.transaction(() => {
        const next = ((db.prepare('SELECT max(emission) FROM emissions').pluck().get() as number | null) ?? 0) + 1
        if (next > 9999) throw new AppError('ILLEGAL_STATE', 'the ledger already holds emission 9999, the last number a serial can carry', because('EMISSIONS_FULL'))
        const theCode = code?.trim() || `E${String(next).padStart(4, '0')}`
        if (db.prepare('SELECT 1 FROM emissions WHERE code = ?').get(theCode)) throw new AppError('CONFLICT', `an emission with code "${theCode}" already exists`, { field: 'code', ...because('EMISSION_CODE_TAKEN', { code: theCode }) })
        db.prepare(`INSERT INTO emissions (emission, code, starts_on, status, blocks, definition, definition_digest, created_at, demo, claim_threshold_cents)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`).run(
          next, theCode, startsOn ?? null, 'created', blocks, canonicalJson(newDefinition), toHex(definitionDigest(nodePrimitives, newDefinition)), iso(clock()), demo ? 1 : 0, threshold,
        )
        const insBlock = db.prepare("INSERT INTO blocks (emission, block, status) VALUES (?, ?, 'pending')")
        const insTier = db.prepare('INSERT INTO block_tiers (emission, block, tier, sold) VALUES (?, ?, ?, 0)')
        for (let b = 1; b <= blocks; b++) {
          insBlock.run(next, b)
          for (let t = 0; t < newDefinition.tiers.length; t++) insTier.run(next, b, t)
        }
        audit.record(actor.name, 'emission.create', `emission:${next}`, { code: theCode, blocks, startsOn: startsOn ?? null, definition: newDefinition.id, demo, claimThresholdCents: threshold })
        return next
      }).immediate()
      return service.summary(emission)
    },

    generate(actor, emission) {
      refuseIfBusy(emission, 'generate')
      generation.recoverInterrupted()
      const e = catalog.emission(emission)
      if (e.status !== 'created') throw illegal(e, 'generate', ['generated', 'verified', 'open', 'closed'].includes(e.status) ? 'generatedOnce' : null)
      return generation.generate(actor, emission)
    },

    verify(actor, emission) {
      refuseIfBusy(emission, 'verify')
      const e = catalog.emission(emission)
      if (e.status === 'created' || e.status === 'generating') throw illegal(e, 'verify', 'generateFirst')
      const def = catalog.definition(emission)
      const blocks = catalog.blocks(emission)
      const pending = blocks.filter((b) => !b.secret)
      if (pending.length) throw illegal(e, 'verify', 'blocksNotGenerated', pending.map((b) => b.block))
      const total = blocks.length * def.blockSize
      const { run, lease } = db.transaction(() => {
        const lease = leases.take('verify', emissionSubject(emission))
        closeAbandoned.run(iso(clock()), 'interrupted: the workstation verifying stopped before the end', emission)
        const id = verifications.begin(actor, emission, blocks.length)
        audit.record(actor.name, 'emission.verify-start', `emission:${emission}`, { blocks: blocks.length, verification: id })
        return { run: id, lease }
      }).immediate()
      const setBlock = db.prepare('UPDATE blocks SET status = ?, verified_at = ? WHERE emission = ? AND block = ?')
      /** The block's verdict. A key that is not the ledger's throws: it says nothing of the block. */
      async function checkBlock(b: BlockRow, i: number, ctx: JobContext): Promise<Verdict> {
        const startedAt = clock()
        let secret: Uint8Array
        try {
          secret = keys.openSecret({ emission, block: b.block }, b.secret!)
        } catch (e) {
          if (e instanceof AppError && e.code === 'DATABASE') return blockVerdict({ verification: run, def, block: b, v: null, unreadable: e.message, startedAt, endedAt: clock() })
          throw e
        }
        const seedingProblem = b.seeding === 'two-person' ? ceremonyProblem(ceremony, { emission, block: b.block }, secret) : null
        const v = await verifyBlock(def, { emission, block: b.block, secret, commitmentVersion: b.commitment_version as CommitmentVersion }, {
          threads,
          signal: ctx.signal,
          onProgress: (done) => ctx.progress(i * def.blockSize + done, total, `block ${b.block} (${i + 1} of ${blocks.length})`),
        })
        return blockVerdict({ verification: run, def, block: b, v, seedingProblem, startedAt, endedAt: clock() })
      }
      /** The block's new status, its verdict and its audit entry, together. */
      const keep = (v: Verdict) =>
        db.transaction(() => {
          if (!lease.held()) throw new Error(`emission ${emission}'s verification was taken over by another workstation`)
          setBlock.run(v.sound ? 'verified' : 'failed', v.endedAt, emission, v.block)
          verifications.record(v)
          const summary = { verification: run, units: v.unitsChecked, commitmentReproduced: v.commitmentMatches, prizeTableExact: v.prizeTableExact, ms: v.ms }
          audit.record(actor.name, v.sound ? 'block.verify' : 'block.verify-failed', `block:${emission}/${v.block}`, v.sound ? { commitment: v.commitmentRecorded, ...summary } : { reasons: v.problems.slice(0, 3), ...summary })
        }).immediate()
      return jobs.start('verify', emission, total, `verifying ${blocks.length} block(s)`, async (ctx) => {
        const unsound: Verdict[] = []
        try {
          for (const [i, b] of blocks.entries()) {
            ctx.checkCancelled()
            const v = await checkBlock(b, i, ctx)
            if (!v.sound) unsound.push(v)
            keep(v)
          }
        } catch (err) {
          const cancelled = err instanceof AppError && err.code === 'CANCELLED'
          const message = err instanceof Error ? err.message : String(err)
          db.transaction(() => {
            // taken over by another workstation: it closed this verification already
            if (!lease.held()) return
            const r = verifications.finish(run, cancelled ? 'cancelled' : 'failed', cancelled ? null : message)
            const summary = { verification: run, outcome: r.outcome, blocks: r.blocks, checked: r.blocksChecked, sound: r.blocksSound, unsound: r.unsoundBlocks, ms: r.ms }
            audit.record(actor.name, cancelled ? 'emission.verify-cancelled' : 'emission.verify-done', `emission:${emission}`, cancelled ? summary : { ...summary, error: message })
          }).immediate()
          throw err
        }
        const failed = unsound.map((v) => `block ${v.block}: ${verdictReasons(v)}`)
        db.transaction(() => {
          const r = verifications.finish(run, unsound.length ? 'unsound' : 'sound')
          const summary = { verification: run, outcome: r.outcome, blocks: r.blocks, sound: r.blocksSound, unsound: r.unsoundBlocks, ms: r.ms }
          const now = catalog.emission(emission)
          const allVerified = catalog.blocks(emission).every((b) => b.status === 'verified')
          if (now.status === 'generated' && allVerified) {
            setStatus.run('verified', emission)
            audit.record(actor.name, 'emission.verify-done', `emission:${emission}`, { from: 'generated', to: 'verified', ...summary })
          } else {
            audit.record(actor.name, 'emission.verify-done', `emission:${emission}`, { failed, ...summary })
          }
        }).immediate()
        if (failed.length) throw new AppError('INTERNAL', `verification failed: ${failed.join(' | ')}`, because('VERIFY_FAILED', { blocks: unsound.map((v) => v.block).join(', ') }))
        return `${blocks.length} block(s) verified: every commitment reproduced`
      }, lease)
    },

    open(actor, emission) {
      refuseIfBusy(emission, 'open')
      return transition(actor, emission, 'emission.open', (e) => {
        if (e.status !== 'verified') throw illegal(e, 'open', e.status === 'generated' || e.status === 'created' || e.status === 'generating' ? 'verifyFirst' : null)
        const notVerified = catalog.blocks(emission).filter((b) => b.status !== 'verified')
        if (notVerified.length) throw illegal(e, 'open', 'blocksNotVerified', notVerified.map((b) => b.block))
        db.prepare('UPDATE emissions SET opened_at = ? WHERE emission = ?').run(iso(clock()), emission)
      }, 'open')
    },

    close(actor, emission) {
      return transition(actor, emission, 'emission.close', (e) => {
        if (e.status !== 'open') throw illegal(e, 'close', 'onlyOpenCloses')
        db.prepare('UPDATE emissions SET closed_at = ? WHERE emission = ?').run(iso(clock()), emission)
      }, 'closed')
    },

    withdraw(actor, emission, reason) {
      refuseIfBusy(emission, 'withdraw')
      const why = reason.trim()
      if (why.length < 3) throw new AppError('REASON_REQUIRED', 'give a reason of at least 3 characters to withdraw an emission', { field: 'reason', ...because('WITHDRAW_REASON') })
      return transition(actor, emission, 'emission.withdraw', (e) => {
        if (e.status === 'closed' || e.status === 'withdrawn') throw illegal(e, 'withdraw', 'final')
        // status and reason together: the schema checks that one never goes without the other
        db.prepare("UPDATE emissions SET status = 'withdrawn', withdrawn_reason = ? WHERE emission = ?").run(why, emission)
      }, 'withdrawn', () => ({ reason: why }))
    },

    recoverInterrupted: () => generation.recoverInterrupted(),
  }
  return service
}
