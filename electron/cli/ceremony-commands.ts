/**
 * `emission ceremony` and `emission show`: an emission's key ceremony (DERIVATION.md §1.1) from
 * the command line, and an emission with how each of its blocks was seeded.
 *
 * The ceremony takes two people, each signed in to their own staff account (--user and
 * --password-stdin, ceremony-auth.ts): the operator opens it; the second person commits to
 * SHA-256 of their share (dice, or a file of 64 hex digits they made), and the backend then draws
 * its own share and prints its fingerprint; the same person reveals the share. `contribute` does
 * both in one process, with 32 bytes drawn there (`--random`, crypto.getRandomValues) or dice.
 */
import { readFileSync } from 'node:fs'
import { diceProblemText, diceRolls, shareFromDice, shareHash } from '../../game-core/seeding'
import type { KeyCeremony } from '../contract/types'
import { nodePrimitives } from '../crypto/node-primitives'
import type { Backend } from '../app/backend'
import { asSignedIn, SIGN_IN_OPTIONS } from './ceremony-auth'
import { ceremonySummary, ceremonyText, CONTRIBUTE_HOW, SHARE_FROM, SIGN_IN } from './ceremony-text'
import { UsageError, type Command, type CommandContext } from './io'
import { eur, int, options, print, whole, withBackend } from './command-kit'
import { publicationLine } from './publish-commands'
import { counted, naming } from '../services/common'

/** What `carats help` says of these commands. */
export const ceremonySynopsis: Record<string, string[]> = {
  'emission ceremony': [
    'emission ceremony <E>                 the key ceremony: its state, who, when, the fingerprints, the next step',
    `emission ceremony start <E> ${SIGN_IN}`,
    '                                      opens it (an operator); every step below signs its account in the same way',
    `emission ceremony commit <E> ${SHARE_FROM}`,
    '                                      the second person commits to SHA-256 of their share; the backend then draws its own',
    `emission ceremony reveal <E> ${SHARE_FROM}`,
    '                                      the same person reveals the share committed to: the ceremony is complete',
    `emission ceremony contribute <E> ${CONTRIBUTE_HOW}`,
    '                                      commit and reveal in one process (never the person who opened it)',
    'emission ceremony abandon <E> --reason <text>',
    '                                      an operator abandons a ceremony whose second person never revealed (on the certificate)',
  ],
  'emission show': ['emission show <E>                     an emission, its blocks, their seeding and key ceremony'],
}

const emissionNumber = (text: string | undefined) => whole('the emission number', text, 1, 9999)

type ShareFlags = { random?: boolean; dice?: string; 'dice-file'?: string; 'share-file'?: string }
interface ShareGiven {
  input: { share?: string; dice?: string }
  how: string
}

function readText(flag: string, path: string, what: string): string {
  try {
    return readFileSync(path, 'utf8')
  } catch (e) {
    throw new UsageError(`${flag}: cannot read ${path} (${(e as NodeJS.ErrnoException).code ?? 'error'}): give ${what}`)
  }
}

function diceGiven(values: ShareFlags): ShareGiven {
  const flag = values.dice !== undefined ? '--dice' : '--dice-file'
  const text = values.dice ?? readText('--dice-file', values['dice-file']!, 'a text file of your rolls, digits 1 to 6')
  const checked = diceRolls(text)
  if ('problem' in checked) throw new UsageError(`${flag}: ${diceProblemText(checked)}`)
  return { input: { dice: checked.rolls }, how: `dice: ${int(checked.rolls.length)} rolls` }
}

function shareFileGiven(path: string): ShareGiven {
  const hex = readText('--share-file', path, 'the file of your share, 64 hexadecimal digits').trim()
  if (!/^[0-9a-fA-F]{64}$/.test(hex))
    throw new UsageError(
      `--share-file: ${path} must hold 64 hexadecimal digits (your share: 32 bytes), and nothing else`,
    )
  return { input: { share: hex.toLowerCase() }, how: 'random: from a file' }
}

/** The custodian's share as the service takes it, and how it was made (for the printout). `contribute` alone draws one here. */
function shareInput(values: ShareFlags, step: 'commit' | 'reveal' | 'contribute'): ShareGiven {
  const flags =
    step === 'contribute'
      ? ['--random', '--dice <rolls>', '--dice-file <file>']
      : ['--dice <rolls>', '--dice-file <file>', '--share-file <file>']
  const words = `${flags.slice(0, -1).join(', ')} or ${flags[flags.length - 1]}`
  if (step !== 'contribute' && values.random) {
    throw new UsageError(
      `--random is for contribute (commit and reveal in one process): to ${step} in two steps, ` +
        'keep your share in a file and give --share-file',
    )
  }
  const given = [values.random, values.dice, values['dice-file'], values['share-file']].filter(
    (v) => v !== undefined && v !== false,
  ).length
  if (given === 0) throw new UsageError(`give one of ${words}`)
  if (given > 1) throw new UsageError(`give only one of ${words}`)
  if (values.random)
    return {
      input: { share: Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('hex') },
      how: 'random: 32 bytes drawn here',
    }
  if (values['share-file'] !== undefined) return shareFileGiven(values['share-file'])
  return diceGiven(values)
}

/** SHA-256 of the share given, as committed to. */
function commitmentOf({ input }: ShareGiven): string {
  const bytes =
    input.share !== undefined
      ? new Uint8Array(Buffer.from(input.share, 'hex'))
      : shareFromDice(nodePrimitives, input.dice!)
  return shareHash(nodePrimitives, bytes)
}

const codeOf = (b: Backend, emission: number) => b.services.emissions.summary(emission).code

function printCeremony(
  ctx: CommandContext,
  b: Backend,
  emission: number,
  c: KeyCeremony | null,
  yours?: string,
): number {
  print(ctx, c, () => ceremonyText(emission, codeOf(b, emission), c, yours))
  return 0
}

const SHARE_OPTIONS = {
  dice: { type: 'string' },
  'dice-file': { type: 'string' },
  'share-file': { type: 'string' },
  random: { type: 'boolean' },
} as const

const show = (ctx: CommandContext) =>
  withBackend(ctx, (b) => {
    const emission = emissionNumber(options(ctx, {}, 1).pos[0])
    return printCeremony(ctx, b, emission, b.services.ceremony.get(emission))
  })

const start = (ctx: CommandContext) =>
  withBackend(ctx, async (b) => {
    const { values, pos } = options(ctx, SIGN_IN_OPTIONS, 1)
    const emission = emissionNumber(pos[0])
    const c = await asSignedIn(b, values, 'ceremony:start', (actor) => b.services.ceremony.start(actor, emission))
    return printCeremony(ctx, b, emission, c)
  })

/** A step of the second person: the share read first (usage errors before any password), then the step taken as --user. */
function custodianStep(step: 'commit' | 'reveal' | 'contribute') {
  return (ctx: CommandContext) =>
    withBackend(ctx, async (b) => {
      const { values, pos } = options(ctx, { ...SIGN_IN_OPTIONS, ...SHARE_OPTIONS }, 1)
      const emission = emissionNumber(pos[0])
      const given = shareInput(values, step)
      const c = await asSignedIn(b, values, step === 'reveal' ? 'ceremony:reveal' : 'ceremony:commit', (actor) => {
        if (step === 'commit') return b.services.ceremony.commit(actor, emission, commitmentOf(given))
        if (step === 'reveal') return b.services.ceremony.reveal(actor, emission, given.input)
        // commit, then reveal, in this one process: the share never leaves it but to the backend
        return b.services.ceremony.contribute(actor, emission, given.input)
      })
      return printCeremony(ctx, b, emission, c, given.how)
    })
}

const abandon = (ctx: CommandContext) =>
  withBackend(ctx, async (b) => {
    const { values, pos } = options(ctx, { ...SIGN_IN_OPTIONS, reason: { type: 'string' } }, 1)
    const emission = emissionNumber(pos[0])
    if (!values.reason?.trim()) throw new UsageError('--reason is required: say why the ceremony is abandoned')
    const reason = values.reason.trim()
    await asSignedIn(b, values, 'ceremony:abandon', (actor) => b.services.ceremony.abandon(actor, emission, reason))
    const next = `an operator opens another: carats emission ceremony start ${emission} ${SIGN_IN}`
    print(ctx, null, () => `emission ${emission}: key ceremony abandoned (${reason}); ${next}`)
    return 0
  })

const STEPS: Record<string, (ctx: CommandContext) => Promise<number>> = {
  start,
  commit: custodianStep('commit'),
  reveal: custodianStep('reveal'),
  contribute: custodianStep('contribute'),
  abandon,
}

const ceremony: Command = (ctx) => {
  const [step, ...rest] = ctx.args
  if (step !== undefined && STEPS[step]) return STEPS[step]({ ...ctx, args: rest })
  if (step !== undefined && !/^\d+$/.test(step) && !step.startsWith('-')) {
    throw new UsageError(
      `"${step}" is not a step of the key ceremony: carats emission ceremony <E>, … start, commit, reveal, contribute or abandon <E>`,
    )
  }
  return show(ctx)
}

/** An emission, its blocks with their seeding, and its key ceremony (or single control). */
const emissionShow: Command = (ctx) =>
  withBackend(ctx, (b) => {
    const { pos } = options(ctx, {}, 1)
    const emission = emissionNumber(pos[0])
    const e = b.services.emissions.get(emission)
    const cert = b.services.emissions.certificate(emission)
    const text = () => {
      const head = `emission ${e.emission} (${e.code}): ${e.status}, ${counted(e.blocks, 'block')} of ${int(e.unitsTotal / e.blocks)} units${e.demo ? ', DEMO' : ''}${e.startsOn ? `, on sale from ${e.startsOn}` : ''}, ${int(e.unitsSold)} sold`
      const blocks = e.blockList.map(
        (x) =>
          `  block ${x.block}: ${x.status}${x.status === 'pending' ? '' : `, seeding ${x.seeding}, commitment ${x.commitment}`}`,
      )
      const deadline = e.claimDeadline ? `, until ${e.claimDeadline}` : ' after the close'
      const claims = `claim threshold: ${eur(e.claimThresholdCents)} (a prize from it up is claimed in person, identity checked; smaller ones are credited); claims within ${e.claimDays} days${deadline}`
      return [
        head,
        claims,
        ...blocks,
        ...seedingLines(cert.ceremony, cert.singleControl, e.blockList),
        publicationLine(e),
      ].join('\n')
    }
    print(ctx, { emission: e, ceremony: cert.ceremony, singleControl: cert.singleControl }, text)
    return 0
  })

function seedingLines(
  c: KeyCeremony | null,
  singleControl: boolean,
  blocks: { block: number; status: string; seeding: string }[],
): string[] {
  const lines: string[] = c ? ceremonySummary(c) : []
  if (singleControl) {
    const single = blocks.filter((x) => x.status !== 'pending' && x.seeding === 'single').map((x) => x.block)
    lines.push(
      c
        ? `single control: ${naming('block', single)} ${single.length === 1 ? 'was' : 'were'} seeded by one person`
        : 'no key ceremony: single control (one person drew every block’s secret; demonstrations only)',
    )
  } else if (!c) lines.push('no key ceremony yet')
  return lines
}

export const ceremonyCommands: Record<string, Command> = {
  'emission ceremony': ceremony,
  'emission show': emissionShow,
}
