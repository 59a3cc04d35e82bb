/**
 * Verdicts of block verification, kept in the ledger (tables `verifications` and
 * `verification_blocks`, migration 6). A verification of an emission is begun with who runs it and
 * with which software; each block's verdict is written as soon as the block is checked, in the
 * caller's transaction with the block's new status; the verification is then closed with its
 * outcome. Nothing is rewritten: a re-verification is a new verification, and the triggers refuse
 * any change to a verdict.
 *
 * A block is sound when every unit re-derives and evaluates as its record says, the tiers hold
 * exactly the table's counts, the units re-derive to the commitment recorded at generation, and,
 * for a block seeded by two people, its secret is the one its key ceremony's shares give
 * (DERIVATION.md §1.1).
 */
import { version } from '../../../package.json'
import { AppError, because } from '../../contract/errors'
import type { CeremonyService } from './ceremony'
import type {
  BlockVerdict,
  EmissionVerdicts,
  Role,
  VerificationOutcome,
  VerificationReport,
  VerificationRun,
} from '../../contract/types'
import type { GameDefinition } from '../../../game-core/rules'
import type { BlockVerification } from '../../../game-core/verify'
import type { Db } from '../../ledger/db'
import type { BlockRow, Catalog } from '../catalog'
import { type Actor, type Clock, iso } from '../common'

/** The software that verifies (and prints), as a verdict names it. */
export const SOFTWARE = `CARATS back-office ${version}`

/** Problems listed per block (the verifier counts the others). */
const PROBLEMS_KEPT = 20

export type Verdict = Omit<BlockVerdict, 'actor'>
export type FinalOutcome = Exclude<VerificationOutcome, 'running'>

export interface Verifications {
  /** A new verification of `blocks` blocks of the emission; its id. */
  begin(actor: Actor, emission: number, blocks: number): number
  /** One block's verdict (inside the caller's transaction, beside the block's status). */
  record(verdict: Verdict): void
  /** Closes the verification: written once. */
  finish(id: number, outcome: FinalOutcome, error?: string | null): VerificationRun
  run(id: number): VerificationRun
  latest(emission: number): EmissionVerdicts
  /** Every verification of the emission, newest first. */
  history(emission: number): VerificationRun[]
  /** The report of one verification (default: the latest that gave a verdict). */
  report(emission: number, verification?: number): VerificationReport
}

interface RunRow {
  id: number
  emission: number
  actor: string
  role: Role
  software: string
  blocks: number
  started_at: string
  ended_at: string | null
  outcome: FinalOutcome | null
  error: string | null
  checked: number
  sound: number
  unsound_blocks: string | null
  /** its rank among its emission's verifications */
  number: number
}

interface VerdictRow {
  verification: number
  block: number
  sound: number
  commitment_recorded: string | null
  commitment_reproduced: string | null
  units_checked: number
  units_total: number
  units_failed: number
  prize_table_exact: number
  tiers: string
  losing_found: number
  losing_expected: number
  prize_total_cents: number
  problems: string
  started_at: string
  ended_at: string
  ms: number
  actor: string
}

/** What a block's secret has to do with its key ceremony: null when the shares give it, else why not. */
export function ceremonyProblem(
  ceremony: CeremonyService,
  ref: { emission: number; block: number },
  secret: Uint8Array,
): string | null {
  let expected: Uint8Array | null
  try {
    expected = ceremony.blockSecret(ref.emission, ref.block)
  } catch (e) {
    if (e instanceof AppError && e.code === 'DATABASE') return e.message
    throw e
  }
  if (!expected)
    return 'the block was seeded by two people, but its emission has no complete key ceremony to re-derive its secret from'
  return Buffer.from(expected).equals(Buffer.from(secret))
    ? null
    : "the block's secret is not the one its key ceremony gives"
}

/**
 * What a block's check says. `v` is null when its secret could not be opened (`unreadable` says
 * why): then nothing of it was checked.
 */
export function blockVerdict(input: {
  verification: number
  def: GameDefinition
  block: Pick<BlockRow, 'block' | 'commitment'>
  v: BlockVerification | null
  unreadable?: string
  /** A two-person block whose secret is not its ceremony's: why (ceremonyProblem). */
  seedingProblem?: string | null
  startedAt: Date
  endedAt: Date
}): Verdict {
  const { def, block, v } = input
  const losingExpected = def.blockSize - def.tiers.reduce((a, t) => a + t.count, 0)
  const tiers = v
    ? v.tiers.map((t) => ({ ...t }))
    : def.tiers.map((t) => ({ amountCents: t.amountCents, expected: t.count, found: 0 }))
  const losingFound = v?.losingUnits ?? 0
  const commitmentMatches = v !== null && block.commitment !== null && v.commitment === block.commitment
  const prizeTableExact = v !== null && tiers.every((t) => t.found === t.expected) && losingFound === losingExpected
  const problems: string[] = input.seedingProblem ? [input.seedingProblem] : []
  if (!v) problems.push(input.unreadable ?? 'the block could not be re-derived')
  else {
    if (!commitmentMatches)
      problems.push(`the commitment differs (stored ${block.commitment}, regenerated ${v.commitment})`)
    for (const p of v.problems) problems.push(p.unit >= 0 ? `unit ${p.unit}: ${p.message}` : p.message)
  }
  return {
    verification: input.verification,
    block: block.block,
    sound: v !== null && v.sound && commitmentMatches && !input.seedingProblem,
    commitmentRecorded: block.commitment,
    commitmentReproduced: v?.commitment ?? null,
    commitmentMatches,
    unitsChecked: v?.units ?? 0,
    unitsTotal: def.blockSize,
    unitsFailed: v?.failedUnits ?? 0,
    prizeTableExact,
    tiers,
    losingExpected,
    losingFound,
    prizeTotalCents: v?.prizeTotalCents ?? 0,
    problems: problems.slice(0, PROBLEMS_KEPT),
    startedAt: iso(input.startedAt),
    endedAt: iso(input.endedAt),
    ms: Math.max(0, input.endedAt.getTime() - input.startedAt.getTime()),
  }
}

/** The verdict's reasons in one line (the job's message, the audit log, the command line). */
export function verdictReasons(v: Pick<BlockVerdict, 'problems'>, max = 3): string {
  return v.problems.slice(0, max).join('; ')
}

function toRun(r: RunRow): VerificationRun {
  return {
    id: r.id,
    number: Number(r.number),
    emission: r.emission,
    actor: r.actor,
    role: r.role,
    software: r.software,
    blocks: r.blocks,
    blocksChecked: r.checked,
    blocksSound: r.sound,
    unsoundBlocks: r.unsound_blocks
      ? r.unsound_blocks
          .split(',')
          .map(Number)
          .sort((a, b) => a - b)
      : [],
    startedAt: r.started_at,
    endedAt: r.ended_at,
    ms: r.ended_at ? Date.parse(r.ended_at) - Date.parse(r.started_at) : null,
    outcome: r.outcome ?? 'running',
    error: r.error,
  }
}

function toVerdict(r: VerdictRow): BlockVerdict {
  return {
    verification: r.verification,
    block: r.block,
    sound: r.sound === 1,
    commitmentRecorded: r.commitment_recorded,
    commitmentReproduced: r.commitment_reproduced,
    commitmentMatches: r.commitment_reproduced !== null && r.commitment_reproduced === r.commitment_recorded,
    unitsChecked: r.units_checked,
    unitsTotal: r.units_total,
    unitsFailed: r.units_failed,
    prizeTableExact: r.prize_table_exact === 1,
    tiers: JSON.parse(r.tiers) as BlockVerdict['tiers'],
    losingExpected: r.losing_expected,
    losingFound: r.losing_found,
    prizeTotalCents: r.prize_total_cents,
    problems: JSON.parse(r.problems) as string[],
    startedAt: r.started_at,
    endedAt: r.ended_at,
    ms: r.ms,
    actor: r.actor,
  }
}

const RUN_SELECT = `
  SELECT v.*, count(b.block) AS checked, coalesce(sum(b.sound), 0) AS sound,
         string_agg(CASE WHEN b.sound = 0 THEN CAST(b.block AS TEXT) END, ',') AS unsound_blocks,
         (SELECT count(*) FROM verifications n WHERE n.emission = v.emission AND n.id <= v.id) AS number
  FROM verifications v LEFT JOIN verification_blocks b ON b.verification = v.id`

export function createVerifications({ db, clock, catalog }: { db: Db; clock: Clock; catalog: Catalog }): Verifications {
  const insertRun = db
    .prepare(
      'INSERT INTO verifications (emission, actor, role, software, blocks, started_at) VALUES (?, ?, ?, ?, ?, ?) RETURNING id',
    )
    .pluck()
  const insertVerdict = db.prepare(`
    INSERT INTO verification_blocks (verification, block, sound, commitment_recorded, commitment_reproduced, units_checked, units_total,
      units_failed, prize_table_exact, tiers, losing_found, losing_expected, prize_total_cents, problems, started_at, ended_at, ms)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
  const closeRun = db.prepare(
    'UPDATE verifications SET ended_at = ?, outcome = ?, error = ? WHERE id = ? AND ended_at IS NULL',
  )
  const runById = db.prepare(`${RUN_SELECT} WHERE v.id = ? GROUP BY v.id`)
  const runsOf = db.prepare(`${RUN_SELECT} WHERE v.emission = ? GROUP BY v.id ORDER BY v.id DESC`)
  const verdictsOf = db.prepare(`
    SELECT b.*, v.actor FROM verification_blocks b JOIN verifications v ON v.id = b.verification
    WHERE b.verification = ? ORDER BY b.block`)
  // each block's newest verdict among the emission's verifications
  const latestVerdicts = db.prepare(`
    SELECT b.*, v.actor FROM verification_blocks b JOIN verifications v ON v.id = b.verification
    WHERE v.emission = ? AND b.verification = (
      SELECT max(b2.verification) FROM verification_blocks b2 JOIN verifications v2 ON v2.id = b2.verification
      WHERE v2.emission = v.emission AND b2.block = b.block)
    ORDER BY b.block`)
  const latestWithVerdict = db
    .prepare(
      `
    SELECT max(v.id) FROM verifications v WHERE v.emission = ? AND EXISTS (SELECT 1 FROM verification_blocks b WHERE b.verification = v.id)`,
    )
    .pluck()

  const service: Verifications = {
    begin(actor, emission, blocks) {
      return insertRun.get(emission, actor.name, actor.role, SOFTWARE, blocks, iso(clock())) as number
    },

    record(v) {
      insertVerdict.run(
        v.verification,
        v.block,
        v.sound ? 1 : 0,
        v.commitmentRecorded,
        v.commitmentReproduced,
        v.unitsChecked,
        v.unitsTotal,
        v.unitsFailed,
        v.prizeTableExact ? 1 : 0,
        JSON.stringify(v.tiers),
        v.losingFound,
        v.losingExpected,
        v.prizeTotalCents,
        JSON.stringify(v.problems),
        v.startedAt,
        v.endedAt,
        v.ms,
      )
    },

    finish(id, outcome, error = null) {
      if (closeRun.run(iso(clock()), outcome, error, id).changes !== 1)
        throw new AppError('ILLEGAL_STATE', `verification ${id} is already closed`)
      return service.run(id)
    },

    run(id) {
      const r = runById.get(id) as RunRow | undefined
      if (!r) throw new AppError('NOT_FOUND', `there is no verification ${id}`)
      return toRun(r)
    },

    latest(emission) {
      catalog.emission(emission)
      const runs = runsOf.all(emission) as RunRow[]
      return {
        emission,
        latest: runs.length ? toRun(runs[0]) : null,
        blocks: (latestVerdicts.all(emission) as VerdictRow[]).map(toVerdict),
      }
    },

    history(emission) {
      catalog.emission(emission)
      return (runsOf.all(emission) as RunRow[]).map(toRun)
    },

    report(emission, verification) {
      const e = catalog.emission(emission)
      const id = verification ?? (latestWithVerdict.get(emission) as number | null)
      if (id === null) {
        throw new AppError(
          'NOT_FOUND',
          `emission ${emission} has never been verified: run emission verify ${emission} first`,
          because('NEVER_VERIFIED', { emission }),
        )
      }
      const r = runById.get(id) as RunRow | undefined
      if (!r || r.emission !== emission) {
        throw new AppError('NOT_FOUND', `emission ${emission} has no verification ${id}`, {
          field: 'verification',
          ...because('VERIFICATION_NOT_FOUND', { emission, verification: id }),
        })
      }
      const def = catalog.definition(emission)
      return {
        run: toRun(r),
        emission: {
          emission,
          code: e.code,
          gameName: def.name,
          definitionDigest: e.definition_digest,
          blockSize: def.blockSize,
          demo: e.demo === 1,
        },
        blocks: (verdictsOf.all(id) as VerdictRow[]).map(toVerdict),
        history: service.history(emission),
        printedBy: SOFTWARE,
        asOf: iso(clock()),
      }
    },
  }
  return service
}
