/**
 * The regulator's vault from the command line: attach it, see how far behind it is, send now;
 * verify a vault from its files and public key alone (no ledger needed); and a witness's two
 * steps, run by an auditor in a folder of their own.
 */
import { readFileSync } from 'node:fs'
import { basename, resolve } from 'node:path'
import { isoDayProblem } from '../contract/dates'
import type { ReconciliationReport, ReconSums, VaultStatus } from '../contract/types'
import { systemClock } from '../services/common'
import {
  exportVault,
  purgeVault,
  verifyVault,
  witnessCosign,
  witnessInit,
  type VaultVerification,
} from '../services/vault'
import { UsageError, type Command } from './io'
import { eur, int, options, print, whole, withBackend } from './command-kit'
import { cliReason } from './text-args'

export function statusText(s: VaultStatus): string {
  if (!s.attached) return 'no vault: attach one with carats vault attach <folder>'
  const b = s.behind
  const behind = s.logDiverged
    ? 'the audit log is held back (below)'
    : b.entries + b.sales === 0
      ? 'up to date'
      : `behind by ${int(b.entries)} audit entries and ${int(b.sales)} sales${b.oldestEntryAt ? ` (oldest entry waiting: ${b.oldestEntryAt})` : ''}`
  return [
    `vault ${s.folder}: ${int(s.received.sales)} sales and ${int(s.received.entries)} audit entries in ${int(s.size)} lines, last checkpoint ${s.signedAt ?? 'none yet'}; ${behind}`,
    ...(s.writtenBy ? [`  written by ${s.writtenBy}`] : []),
    ...(s.problem ? [`  CANNOT BE WRITTEN since ${s.problem.since}: ${s.problem.message}`] : []),
    ...(s.logDiverged
      ? [`  THE LEDGER'S LOG NO LONGER EXTENDS WHAT THE VAULT RECEIVED: ${s.logDiverged}; its entries are not sent`]
      : []),
    `  checkpoints' key: ${s.verifierKey}`,
  ].join('\n')
}

const attach: Command = (ctx) =>
  withBackend(ctx, (b) => {
    const { pos } = options(ctx, {}, 1)
    if (!pos[0]) throw new UsageError('name the vault folder: carats vault attach <folder>')
    b.services.vault.attach(b.actor.name, resolve(pos[0]))
    b.services.vault.drain()
    const s = b.services.vault.status()
    print(ctx, s, () => statusText(s))
    return 0
  })

const status: Command = (ctx) =>
  withBackend(ctx, (b) => {
    options(ctx, {})
    const s = b.services.vault.status()
    print(ctx, s, () => statusText(s))
    return s.problem || s.logDiverged ? 1 : 0
  })

/** After the log was cut or rewritten below the vault (an older backup put back): recorded, then sent again. */
const resume: Command = (ctx) =>
  withBackend(ctx, (b) => {
    const { values } = options(ctx, { reason: { type: 'string' } })
    if (!values.reason || values.reason.trim().length < 10)
      throw new UsageError('--reason is required (at least 10 characters): why the log no longer extends the vault')
    const r = b.services.vault.resume(b.actor.name, cliReason(values.reason.trim())!)
    const { received, agreed } = r.resumption
    const from = agreed ? `after entry ${agreed.seq}, the last both agree on` : 'from its first entry'
    print(
      ctx,
      r,
      () =>
        `the vault records the log resumed (it had received entries up to ${received.seq}); ` +
        `the log is sent again ${from}\n${statusText(r.status)}`,
    )
    return 0
  })

/** Sends what the ledger holds and the vault lacks, now. */
const send: Command = (ctx) =>
  withBackend(ctx, (b) => {
    options(ctx, {})
    const sent = b.services.vault.drain()
    const s = b.services.vault.status()
    print(ctx, { sent, ...s }, () => `${int(sent)} events sent\n${statusText(s)}`)
    return 0
  })

function verificationText(v: VaultVerification): string {
  const lines = [
    `vault ${v.folder} (${v.origin}): ${v.ok ? 'SOUND' : 'NOT SOUND'}`,
    `  ${int(v.events)} events, ${int(v.checkpoints)} checkpoints; the latest signs ${int(v.latest?.size ?? 0)} (${v.latest?.at ?? 'none'})` +
      (v.unsigned > 0 ? `; ${int(v.unsigned)} written after it, not yet signed` : ''),
    `  key ${v.key} (${v.keyFrom === 'given' ? 'given' : 'read from vault.json: compare it with the one the ledger gave you'})`,
    ...v.witnesses.map(
      (w) => `  witness ${w.witness}: cosigned ${int(w.size)} events ${w.at ?? ''}${w.problem ? `: ${w.problem}` : ''}`,
    ),
    ...v.problems.map((p) => `  ${p}`),
  ]
  if (v.problemCount > v.problems.length) lines.push(`  … ${int(v.problemCount - v.problems.length)} more`)
  if (v.inclusion)
    lines.push(
      `event ${v.inclusion.event} ${v.inclusion.ok ? 'IS' : 'IS NOT'} included in the checkpoint of ${int(v.inclusion.size)} events (root ${v.inclusion.root}):`,
      `  ${v.inclusion.line}`,
      `  audit path: ${v.inclusion.path.join(' ')}`,
    )
  return lines.join('\n')
}

const verify: Command = async (ctx) => {
  const { values, pos } = options(ctx, { key: { type: 'string' }, event: { type: 'string' } }, 1)
  if (!pos[0])
    throw new UsageError('name the vault folder: carats vault verify <folder> [--key <verifier key>] [--event N]')
  const event = values.event === undefined ? undefined : whole('--event', values.event, 0, Number.MAX_SAFE_INTEGER)
  const v = verifyVault(resolve(pos[0]), { key: values.key, event })
  print(ctx, v, () => verificationText(v))
  return v.ok ? 0 : 1
}

const init: Command = async (ctx) => {
  const { values, pos } = options(ctx, { name: { type: 'string' } }, 1)
  if (!pos[0] || !values.name)
    throw new UsageError('carats witness init <folder> --name <name, e.g. audit.example.fr/aude>')
  const w = witnessInit(resolve(pos[0]), values.name)
  print(
    ctx,
    w,
    () => `witness ${w.name} ready in ${resolve(pos[0])}\n  its key (give it to the vault's readers): ${w.key}`,
  )
  return 0
}

const cosignCmd: Command = async (ctx) => {
  const { values, pos } = options(ctx, { vault: { type: 'string' } }, 1)
  if (!pos[0] || !values.vault) throw new UsageError('carats witness cosign <witness folder> --vault <vault folder>')
  const r = witnessCosign(resolve(pos[0]), resolve(values.vault), systemClock())
  const from = r.previous === null ? 'its first checkpoint' : `it extends the ${int(r.previous)} events cosigned before`
  print(
    ctx,
    r,
    () =>
      `witness ${r.witness} cosigned the vault's checkpoint of ${int(r.size)} events: ${from}\n  vault key ${r.vaultKey}`,
  )
  return 0
}

function dayFlag(flag: string, text: string | undefined): string {
  if (!text || isoDayProblem(text)) throw new UsageError(`${flag} YYYY-MM-DD (a day of the calendar) is required`)
  return text
}

const exportCmd: Command = async (ctx) => {
  const { values, pos } = options(ctx, { from: { type: 'string' }, to: { type: 'string' }, out: { type: 'string' } }, 1)
  if (!pos[0] || !values.out)
    throw new UsageError('carats vault export <vault folder> --from YYYY-MM-DD --to YYYY-MM-DD --out <new folder>')
  const [from, to] = [dayFlag('--from', values.from), dayFlag('--to', values.to)]
  if (from > to) throw new UsageError(`--from ${from} is after --to ${to}`)
  const r = exportVault(resolve(pos[0]), from, to, resolve(values.out), systemClock().toISOString())
  print(ctx, r, () =>
    [
      `${int(r.events)} events of ${from} to ${to} (events ${int(r.firstEvent)} on, ${r.files} day files) exported to ${r.folder}`,
      `  it verifies on its own: carats vault verify ${r.folder}`,
    ].join('\n'),
  )
  return 0
}

const purge: Command = async (ctx) => {
  const { values, pos } = options(ctx, { before: { type: 'string' } }, 1)
  if (!pos[0]) throw new UsageError('carats vault purge <vault folder> --before YYYY-MM-DD')
  const r = purgeVault(resolve(pos[0]), dayFlag('--before', values.before), systemClock())
  print(ctx, r, () => `${r.files} day files (${int(r.events)} events) before ${r.before} purged from ${r.folder}`)
  return 0
}

const sums = (s: ReconSums | null) =>
  s === null
    ? '—'
    : `${int(s.units)} units, ${eur(s.stakeCents)}${s.prizeCents === null ? '' : `, prizes ${eur(s.prizeCents)}`}`

function reconText(r: ReconciliationReport): string {
  const lines = [
    `day ${r.day}: ${r.ok ? 'the sources agree' : `${int(r.differenceCount)} DIFFERENCE(S)`} (sealed as audit entry ${r.sealedAs})`,
    r.feed
      ? `  feed ${r.feed.fileName ?? '(given)'}: ${int(r.feed.lines)} lines, sha256 ${r.feed.sha256}`
      : '  no feed given',
    `  ledger: ${sums(r.totals.ledger)}`,
    `  vault:  ${sums(r.totals.vault)}`,
    ...(r.feed ? [`  feed:   ${sums(r.totals.feed)}`] : []),
    ...r.rows.map(
      (x) =>
        `  ${x.emission} block ${x.block} ${x.tier === null ? 'no prize' : `tier ${x.tier}`}: ledger ${x.ledger.units}, vault ${x.vault.units}${x.feed ? `, feed ${x.feed.units}` : ''}`,
    ),
    ...r.differences.map((d) => `  ${d.serial ?? `feed line ${d.feedLine}`}: ${d.problem}: ${d.detail}`),
  ]
  if (r.differenceCount > r.differences.length) lines.push(`  … ${int(r.differenceCount - r.differences.length)} more`)
  return lines.join('\n')
}

const reconcile: Command = (ctx) =>
  withBackend(ctx, async (b) => {
    const { values } = options(ctx, { day: { type: 'string' }, feed: { type: 'string' } })
    const day = dayFlag('--day', values.day)
    const feed = values.feed
      ? { content: readFileSync(resolve(values.feed), 'utf8'), fileName: basename(values.feed) }
      : undefined
    const r = b.services.vault.reconcile(b.actor.name, day, feed)
    print(ctx, r, () => reconText(r))
    return r.ok ? 0 : 1
  })

export const vaultCommands: Record<string, Command> = {
  'vault attach': attach,
  'vault status': status,
  'vault send': send,
  'vault resume': resume,
  'vault verify': verify,
  'vault export': exportCmd,
  'vault purge': purge,
  'witness init': init,
  'witness cosign': cosignCmd,
  reconcile,
}

export const vaultSynopsis: Record<string, string[]> = {
  'vault attach': ['vault attach <folder>   (once: every event is sent there from then on)'],
  'vault status': ['vault status'],
  'vault send': ['vault send   (sends what the vault lacks, now)'],
  'vault resume': ['vault resume --reason R   (after an older backup was put back: the log sent again, recorded)'],
  'vault verify': ['vault verify <folder> [--key <verifier key>] [--event N]'],
  'vault export': ['vault export <folder> --from YYYY-MM-DD --to YYYY-MM-DD --out <new folder>'],
  'vault purge': ['vault purge <folder> --before YYYY-MM-DD   (refused for days under six years old)'],
  'witness init': ['witness init <folder> --name <name>'],
  'witness cosign': ['witness cosign <witness folder> --vault <vault folder>'],
  reconcile: ["reconcile --day YYYY-MM-DD [--feed <the platform's feed of the day>]"],
}
