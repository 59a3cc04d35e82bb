/**
 * `emission verify` and `emission verdict`: an emission re-verified on all cores, then its verdict
 * per block as the ledger keeps it (services/emissions/verifications.ts); or the report of a verification
 * already made. The exit code is the verdict: 0 sound, 1 unsound or not finished.
 */
import { AppError } from '../contract/errors'
import type { BlockVerdict, VerificationReport, VerificationRun } from '../contract/types'
import { follow, int, options, print, withBackend } from './command-kit'
import { UsageError, type Command } from './io'
import { counted, naming } from '../services/common'

const seconds = (ms: number | null) => (ms === null ? '?' : `${(ms / 1000).toFixed(2)} s`)
const blockName = (emission: number, block: number) =>
  `block ${String(emission).padStart(4, '0')}-${String(block).padStart(3, '0')}`

const OUTCOME_WORDS: Record<VerificationRun['outcome'], string> = {
  sound: 'SOUND: every block verified',
  unsound: 'UNSOUND',
  cancelled: 'CANCELLED before every block was checked',
  failed: 'FAILED: the verification stopped',
  running: 'NOT FINISHED (under way, or its process ended)',
}

function runLine(r: VerificationRun): string {
  const n = r.unsoundBlocks.length
  const unsound = n ? `: ${naming('block', r.unsoundBlocks)} ${n === 1 ? 'does' : 'do'} not verify` : ''
  return `verification ${r.id} by ${r.actor} (${r.role}), ${r.startedAt}, ${seconds(r.ms)}, ${r.blocksChecked} of ${counted(r.blocks, 'block')} checked, ${r.software}: ${OUTCOME_WORDS[r.outcome]}${unsound}${r.error ? ` (${r.error})` : ''}`
}

function verdictLines(emission: number, v: BlockVerdict): string[] {
  const facts = [
    v.commitmentMatches
      ? `commitment reproduced ${v.commitmentReproduced}`
      : `commitment NOT reproduced (recorded ${v.commitmentRecorded}, units give ${v.commitmentReproduced ?? 'nothing'})`,
    `${int(v.unitsChecked)} / ${int(v.unitsTotal)} units checked${v.unitsFailed ? `, ${int(v.unitsFailed)} failed` : ''}`,
    v.prizeTableExact ? 'prize table exact' : 'prize table NOT exact',
    seconds(v.ms),
  ]
  const head = `  ${blockName(emission, v.block)}: ${v.sound ? 'sound' : 'UNSOUND'}; ${facts.join('; ')}`
  const tiers = v.prizeTableExact
    ? []
    : v.tiers
        .filter((t) => t.found !== t.expected)
        .map((t) => `      tier ${t.amountCents} cents: ${int(t.found)} found, the table says ${int(t.expected)}`)
  return [head, ...tiers, ...v.problems.map((p) => `      ${p}`)]
}

export function reportText(r: VerificationReport): string {
  const e = r.emission
  return [
    `emission ${e.emission} (${e.code})${e.demo ? ' DEMO' : ''}, ${e.gameName}, definition ${e.definitionDigest}`,
    runLine(r.run),
    ...r.blocks.flatMap((v) => verdictLines(e.emission, v)),
    ...(r.history.length > 1
      ? ['earlier verifications:', ...r.history.filter((h) => h.id !== r.run.id).map((h) => `  ${runLine(h)}`)]
      : []),
  ].join('\n')
}

const emissionVerify: Command = (ctx) =>
  withBackend(ctx, async (b) => {
    const { pos } = options(ctx, {}, 1)
    const emission = wholeArg(pos[0])
    const before = new Date().toISOString()
    const job = b.services.emissions.verify(b.actor, emission)
    let end
    try {
      end = await follow(ctx, b, job)
    } catch (e) {
      // an unsound block ends the task failed: its verdict is what to print
      if (
        !(e instanceof AppError) ||
        e.code !== 'INTERNAL' ||
        b.services.jobs.get(job.id).reason?.key !== 'VERIFY_FAILED'
      )
        throw e
      end = b.services.jobs.get(job.id)
    }
    const run = b.services.verifications
      .history(emission)
      .find((r) => r.actor === b.actor.name && r.startedAt >= before)
    if (!run) throw new AppError('INTERNAL', `the verification of emission ${emission} left no verdict in the ledger`)
    const report = b.services.verifications.report(emission, run.id)
    print(ctx, { job: end, emission: b.services.emissions.get(emission), verification: report }, () =>
      reportText(report),
    )
    return report.run.outcome === 'sound' ? 0 : 1
  })

const emissionVerdict: Command = (ctx) =>
  withBackend(ctx, (b) => {
    const { values, pos } = options(ctx, { verification: { type: 'string' } }, 1)
    const emission = wholeArg(pos[0])
    const id = values.verification
    if (id !== undefined && !/^[1-9]\d*$/.test(id))
      throw new UsageError(
        `--verification must be a verification number (carats emission verdict ${emission} lists the last one), got ${JSON.stringify(id)}`,
      )
    const report = b.services.verifications.report(emission, id === undefined ? undefined : Number(id))
    print(ctx, report, () => reportText(report))
    return report.run.outcome === 'sound' ? 0 : 1
  })

function wholeArg(text: string | undefined): number {
  if (text === undefined) throw new UsageError('name the emission: carats emission verify <emission>')
  if (!/^\d+$/.test(text) || Number(text) < 1 || Number(text) > 9999)
    throw new UsageError(`the emission number must be a whole number from 1 to 9999, got ${JSON.stringify(text)}`)
  return Number(text)
}

export const verdictCommands: Record<string, Command> = {
  'emission verify': emissionVerify,
  'emission verdict': emissionVerdict,
}
