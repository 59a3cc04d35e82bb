/**
 * `emission ceremony` and `emission show`: an emission's key ceremony (DERIVATION.md §1.1) from
 * the command line, and an emission with how each of its blocks was seeded.
 *
 * The ceremony takes two people, so two operating-system accounts: the operator starts it (the
 * backend draws its share and shows its hash), then the second person, from their own account,
 * contributes 32 bytes drawn in their own `carats` process (`--random`, crypto.getRandomValues)
 * or read from at least 100 rolls of a die (`--dice`, `--dice-file`). A test or a scripted
 * ceremony names the second person with CARATS_ACTOR (ledger-commands.ts).
 */
import { readFileSync } from 'node:fs'
import { diceProblemText, diceRolls } from '../../game-core/seeding'
import type { KeyCeremony } from '../contract/types'
import type { Backend } from '../services/backend'
import { UsageError, type Command, type CommandContext } from './io'
import { eur, int, options, print, whole, withBackend } from './ledger-commands'
import { publicationLine } from './publish-commands'

const CONTRIBUTE_HOW = '(--random | --dice <rolls> | --dice-file <file>)'

/** What `carats help` says of these commands. */
export const ceremonySynopsis: Record<string, string[]> = {
  'emission ceremony': [
    'emission ceremony <E>                 the key ceremony: its state, who, when, both shares\' hashes',
    'emission ceremony start <E>           the backend draws its share and shows its hash (an operator)',
    `emission ceremony contribute <E> ${CONTRIBUTE_HOW}`,
    '                                      the second share, from another person than who started it',
  ],
  'emission show': ['emission show <E>                     an emission, its blocks, their seeding and key ceremony'],
}

const pad = (label: string) => label.padEnd(18)
const sourceWords = (c: KeyCeremony) => (c.custodianSource === 'dice' ? 'dice' : 'random')

function ceremonyLines(c: KeyCeremony, yours?: string): string[] {
  const lines = [`  ${pad("backend's share")}SHA-256 ${c.serverHash}, started by ${c.startedBy} at ${c.startedAt}`]
  if (c.state === 'awaiting-custodian') {
    lines.push(`  awaiting the second share: another person runs carats emission ceremony contribute ${c.emission} ${CONTRIBUTE_HOW}`)
  } else if (yours) {
    lines.push(`  ${pad('your share')}SHA-256 ${c.custodianHash} (${yours}), contributed by ${c.custodian} at ${c.contributedAt}`)
    lines.push('keep this hash: the certificate prints it, and once the emission is published anyone can check that SHA-256 of your share is this')
  } else {
    lines.push(`  ${pad('second share')}SHA-256 ${c.custodianHash} (${sourceWords(c)}), contributed by ${c.custodian} at ${c.contributedAt}`)
  }
  return lines
}

function ceremonyText(b: Backend, emission: number, c: KeyCeremony | null, yours?: string): string {
  const code = b.services.emissions.summary(emission).code
  if (!c) return `emission ${emission} (${code}): no key ceremony yet (an operator starts it: carats emission ceremony start ${emission})`
  const state = c.state === 'complete' ? 'key ceremony complete' : 'key ceremony awaiting the second share'
  return [`emission ${emission} (${code}): ${state}`, ...ceremonyLines(c, yours)].join('\n')
}

const emissionNumber = (text: string | undefined) => whole('the emission number', text, 1, 9999)

/** The custodian's share as the service takes it, and how it was made (for the printout). */
function shareInput(values: { random?: boolean; dice?: string; 'dice-file'?: string }): { input: { share?: string; dice?: string }; how: string } {
  const given = [values.random, values.dice, values['dice-file']].filter((v) => v !== undefined && v !== false).length
  if (given === 0) throw new UsageError('give one of --random, --dice <rolls> or --dice-file <file>')
  if (given > 1) throw new UsageError('give only one of --random, --dice <rolls> or --dice-file <file>')
  if (values.random) {
    const share = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('hex')
    return { input: { share }, how: 'random: 32 bytes drawn here' }
  }
  const flag = values.dice !== undefined ? '--dice' : '--dice-file'
  const text = values.dice ?? readDiceFile(values['dice-file']!)
  const checked = diceRolls(text)
  if ('problem' in checked) throw new UsageError(`${flag}: ${diceProblemText(checked)}`)
  return { input: { dice: checked.rolls }, how: `dice: ${int(checked.rolls.length)} rolls` }
}

function readDiceFile(path: string): string {
  try {
    return readFileSync(path, 'utf8')
  } catch (e) {
    throw new UsageError(`--dice-file: cannot read ${path} (${(e as NodeJS.ErrnoException).code ?? 'error'}): give a text file of your rolls, digits 1 to 6`)
  }
}

const show = (ctx: CommandContext) =>
  withBackend(ctx, (b) => {
    const { pos } = options(ctx, {}, 1)
    const emission = emissionNumber(pos[0])
    const c = b.services.ceremony.get(emission)
    print(ctx, c, () => ceremonyText(b, emission, c))
    return 0
  })

const start = (ctx: CommandContext) =>
  withBackend(ctx, (b) => {
    const { pos } = options(ctx, {}, 1)
    const c = b.services.ceremony.start(b.actor, emissionNumber(pos[0]))
    print(ctx, c, () => ceremonyText(b, c.emission, c))
    return 0
  })

const contribute = (ctx: CommandContext) =>
  withBackend(ctx, (b) => {
    const { values, pos } = options(ctx, { random: { type: 'boolean' }, dice: { type: 'string' }, 'dice-file': { type: 'string' } }, 1)
    const emission = emissionNumber(pos[0])
    const { input, how } = shareInput(values)
    const c = b.services.ceremony.contribute(b.actor, emission, input)
    print(ctx, c, () => ceremonyText(b, emission, c, how))
    return 0
  })

const ceremony: Command = (ctx) => {
  const [step, ...rest] = ctx.args
  if (step === 'start') return start({ ...ctx, args: rest })
  if (step === 'contribute') return contribute({ ...ctx, args: rest })
  if (step !== undefined && !/^\d+$/.test(step) && !step.startsWith('-')) {
    throw new UsageError(`"${step}" is not a step of the key ceremony: carats emission ceremony <E>, … start <E> or … contribute <E>`)
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
      const head = `emission ${e.emission} (${e.code}): ${e.status}, ${e.blocks} block(s) of ${int(e.unitsTotal / e.blocks)} units${e.demo ? ', DEMO' : ''}${e.startsOn ? `, on sale from ${e.startsOn}` : ''}, ${int(e.unitsSold)} sold`
      const blocks = e.blockList.map((x) => `  block ${x.block}: ${x.status}${x.status === 'pending' ? '' : `, seeding ${x.seeding}, commitment ${x.commitment}`}`)
      const claims = `claim threshold: ${eur(e.claimThresholdCents)} (a prize from it up is claimed in person, identity checked; smaller ones are credited)`
      return [head, claims, ...blocks, ...seedingLines(cert.ceremony, cert.singleControl, e.blockList), publicationLine(e)].join('\n')
    }
    print(ctx, { emission: e, ceremony: cert.ceremony, singleControl: cert.singleControl }, text)
    return 0
  })

function seedingLines(c: KeyCeremony | null, singleControl: boolean, blocks: { block: number; status: string; seeding: string }[]): string[] {
  const lines: string[] = []
  if (c) {
    const state = c.state === 'complete' ? 'complete' : 'awaiting the second share'
    lines.push(`key ceremony: ${state}; backend's share SHA-256 ${c.serverHash}, started by ${c.startedBy} at ${c.startedAt}`)
    if (c.state === 'complete') lines.push(`  second share SHA-256 ${c.custodianHash} (${sourceWords(c)}), contributed by ${c.custodian} at ${c.contributedAt}`)
  }
  if (singleControl) {
    const single = blocks.filter((x) => x.status !== 'pending' && x.seeding === 'single').map((x) => x.block)
    lines.push(c ? `single control: block(s) ${single.join(', ')} were seeded by one person` : 'no key ceremony: single control (one person drew every block’s secret; demonstrations only)')
  } else if (!c) lines.push('no key ceremony yet')
  return lines
}

export const ceremonyCommands: Record<string, Command> = {
  'emission ceremony': ceremony,
  'emission show': emissionShow,
}
