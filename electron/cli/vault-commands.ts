/**
 * The regulator's vault from the command line: attach it, see how far behind it is, send now;
 * verify a vault from its files and public key alone (no ledger needed); and a witness's two
 * steps, run by an auditor in a folder of their own.
 */
import { resolve } from 'node:path'
import type { VaultStatus } from '../contract/types'
import { systemClock } from '../services/common'
import { verifyVault, witnessCosign, witnessInit, type VaultVerification } from '../services/vault'
import { UsageError, type Command } from './io'
import { int, options, print, whole, withBackend } from './command-kit'

export function statusText(s: VaultStatus): string {
  if (!s.attached) return 'no vault: attach one with carats vault attach <folder>'
  const b = s.behind
  const behind =
    b.entries + b.sales === 0
      ? 'up to date'
      : `behind by ${int(b.entries)} audit entries and ${int(b.sales)} sales${b.oldestEntryAt ? ` (oldest entry waiting: ${b.oldestEntryAt})` : ''}`
  return [
    `vault ${s.folder}: ${int(s.size)} events, last checkpoint ${s.signedAt ?? 'none yet'}; ${behind}`,
    ...(s.writtenBy ? [`  written by ${s.writtenBy}`] : []),
    ...(s.problem ? [`  CANNOT BE WRITTEN since ${s.problem.since}: ${s.problem.message}`] : []),
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
    return s.problem ? 1 : 0
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

export const vaultCommands: Record<string, Command> = {
  'vault attach': attach,
  'vault status': status,
  'vault send': send,
  'vault verify': verify,
  'witness init': init,
  'witness cosign': cosignCmd,
}

export const vaultSynopsis: Record<string, string[]> = {
  'vault attach': ['vault attach <folder>   (once: every event is sent there from then on)'],
  'vault status': ['vault status'],
  'vault send': ['vault send   (sends what the vault lacks, now)'],
  'vault verify': ['vault verify <folder> [--key <verifier key>] [--event N]'],
  'witness init': ['witness init <folder> --name <name>'],
  'witness cosign': ['witness cosign <witness folder> --vault <vault folder>'],
}
