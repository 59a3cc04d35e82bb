/**
 * The emissions' refusals, in one place: a step the emission's status does not allow (with what
 * to do instead), a task or another workstation's lease already on it, a claim threshold out of range.
 */
import { AppError, because, type ErrorAction, type ErrorHint } from '../../contract/errors'
import { MAX_CLAIM_DAYS } from '../../contract/claims-types'
import type { EmissionStatus } from '../../contract/types'
import type { GameDefinition } from '../../../game-core/rules'
import type { EmissionRow } from '../catalog'
import type { JobRegistry } from '../jobs'
import { emissionSubject, type Leases } from '../leases'
import { naming } from '../common'

const STATUS_WORDS: Record<EmissionStatus, string> = {
  created: 'created but not generated',
  generating: 'being generated',
  generated: 'generated but not verified',
  verified: 'verified but not open',
  open: 'open for sale',
  closed: 'closed',
  withdrawn: 'withdrawn',
}

export function describeStatus(status: EmissionStatus): string {
  return STATUS_WORDS[status]
}

/** A threshold given is whole euros, from 1 € up to the top prize (above it, no prize would ever be claimed). */
export function refuseThreshold(def: GameDefinition, cents: number): void {
  const top = Math.max(...def.tiers.map((t) => t.amountCents))
  if (!Number.isInteger(cents) || cents < 100 || cents > top || cents % 100 !== 0) {
    throw new AppError(
      'BAD_ARGUMENTS',
      `the claim threshold must be whole euros from 1 € to the top prize, ${(top / 100).toLocaleString('en-US')} €, not ${cents} cents`,
      {
        field: 'claimThresholdCents',
        ...because('CLAIM_THRESHOLD_RANGE', { cents, maxCents: top }),
      },
    )
  }
}

/** The step as the English message says it. */
const STEP_WORDS: Record<Exclude<ErrorAction, 'simulate'>, string> = {
  generate: 'be generated',
  verify: 'be verified',
  open: 'open for sale',
  close: 'close',
  withdraw: 'be withdrawn',
}

export type EmissionStep = keyof typeof STEP_WORDS

export function refuseIfBusy(
  { jobs, leases }: { jobs: JobRegistry; leases: Leases },
  emission: number,
  action: EmissionStep,
): void {
  const job = jobs.runningOn(emission)
  if (job) {
    throw new AppError(
      'ILLEGAL_STATE',
      `emission ${emission} cannot ${STEP_WORDS[action]}: a ${job.kind} task is running on it (${job.id}); wait for it or cancel it`,
      because('EMISSION_BUSY', { emission, action, kind: job.kind }),
    )
  }
  leases.refuseIfHeldElsewhere(emissionSubject(emission))
}

/** What to do instead, said after the refusal (blocks: the blocks it names). */
const HINT_WORDS: Record<ErrorHint, (blocks: string) => string> = {
  generatedOnce: () => 'its blocks are generated once, never again',
  generateFirst: () => 'generate its blocks first',
  blocksNotGenerated: (b) => `${naming('block', b.split(', '))} ${b.includes(',') ? 'were' : 'was'} never generated`,
  verifyFirst: () => 'every block must be verified before the emission opens',
  blocksNotVerified: (b) => `${naming('block', b.split(', '))} ${b.includes(',') ? 'are' : 'is'} not verified`,
  onlyOpenCloses: () => 'only an open emission closes',
  final: () => 'a closed or withdrawn emission is final',
}

export function illegal(
  e: EmissionRow,
  action: EmissionStep,
  hint: ErrorHint | null = null,
  blocks: number[] = [],
): AppError {
  const list = blocks.join(', ')
  const params: Record<string, string | number> = { emission: e.emission, action, status: e.status }
  if (hint) params.hint = hint
  if (blocks.length) params.blocks = list
  return new AppError(
    'ILLEGAL_STATE',
    `emission ${e.emission} cannot ${STEP_WORDS[action]}: it is ${describeStatus(e.status)}${hint ? `; ${HINT_WORDS[hint](list)}` : ''}`,
    because('EMISSION_STEP', params),
  )
}

/** A claim deadline is 1 to 3,650 whole days after the emission's close. */
export function refuseClaimDays(days: number): void {
  if (!Number.isInteger(days) || days < 1 || days > MAX_CLAIM_DAYS) {
    throw new AppError('BAD_ARGUMENTS', `the claim deadline must be 1 to ${MAX_CLAIM_DAYS} days, not ${days}`, {
      field: 'claimDays',
      ...because('CLAIM_DAYS_RANGE', { days, max: MAX_CLAIM_DAYS }),
    })
  }
}
