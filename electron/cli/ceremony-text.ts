/**
 * What `carats emission ceremony` and `emission show` print of a key ceremony (DERIVATION.md
 * §1.1): its state, who did what and when, each fingerprint, the next step, and the ceremonies
 * abandoned before it.
 */
import type { AbandonedCeremony, KeyCeremony } from '../contract/types'

export const SHARE_FROM = '(--dice <rolls> | --dice-file <file> | --share-file <file>)'
export const CONTRIBUTE_HOW = '(--random | --dice <rolls> | --dice-file <file>)'
export const SIGN_IN = '--user <name> --password-stdin'

const pad = (label: string) => label.padEnd(18)
export const sourceWords = (c: KeyCeremony) => (c.custodianSource === 'dice' ? 'dice' : 'random')

const STATE_WORDS: Record<KeyCeremony['state'], string> = {
  'awaiting-commitment': 'key ceremony awaiting the second person’s commitment',
  'awaiting-reveal': 'key ceremony awaiting the second person’s share (committed to)',
  'awaiting-custodian':
    'key ceremony begun the old way (the backend’s share first): an operator abandons it and opens another',
  complete: 'key ceremony complete',
}

function nextStep(c: KeyCeremony): string[] {
  const e = c.emission
  if (c.state === 'awaiting-commitment') {
    return [
      `next: another person commits to their share: carats emission ceremony commit ${e} ${SHARE_FROM} ${SIGN_IN}`,
      `      (or commits and reveals at once: carats emission ceremony contribute ${e} ${CONTRIBUTE_HOW} ${SIGN_IN})`,
    ]
  }
  if (c.state === 'awaiting-reveal') {
    return [
      `next: ${c.committedBy} reveals the same share: carats emission ceremony reveal ${e} ${SHARE_FROM} --user ${c.committedBy} --password-stdin`,
      'note the backend’s fingerprint above: the certificate must print the same',
    ]
  }
  if (c.state === 'awaiting-custodian')
    return [`next: carats emission ceremony abandon ${e} --reason <text> ${SIGN_IN}`]
  return []
}

/** `yours`: how the share was made, when the person who revealed it is the one reading. */
function shareLines(c: KeyCeremony, yours?: string): string[] {
  const lines: string[] = []
  if (c.committedBy)
    lines.push(
      `  ${pad(yours ? 'your commitment' : 'commitment')}SHA-256 ${c.custodianCommit}, by ${c.committedBy} at ${c.committedAt}`,
    )
  if (c.serverHash) {
    const when = c.protocol === 2 ? `drawn at ${c.committedAt}, after the commitment` : `drawn at ${c.startedAt}`
    lines.push(`  ${pad("backend's share")}SHA-256 ${c.serverHash}, ${when}`)
  }
  if (c.state === 'complete') {
    const verb = c.protocol === 2 ? 'revealed' : 'contributed'
    const label = pad(yours ? 'your share' : 'second share')
    lines.push(
      `  ${label}SHA-256 ${c.custodianHash} (${yours ?? sourceWords(c)}), ${verb} by ${c.custodian} at ${c.contributedAt}`,
    )
    if (yours)
      lines.push(
        'keep this hash: the certificate prints it, and once the emission is published anyone can check that SHA-256 of your share is this',
      )
  }
  return lines
}

const abandonedLine = (a: AbandonedCeremony) =>
  `  - opened by ${a.startedBy} at ${a.startedAt}${a.committedBy ? `, committed to by ${a.committedBy}` : ', no commitment'}` +
  `, abandoned by ${a.abandonedBy} at ${a.abandonedAt}: ${a.reason}`

export function abandonedLines(list: AbandonedCeremony[]): string[] {
  if (list.length === 0) return []
  return [
    `abandoned before: ${list.length} ceremon${list.length === 1 ? 'y' : 'ies'} (each is printed on the certificate)`,
    ...list.map(abandonedLine),
  ]
}

export function ceremonyText(emission: number, code: string, c: KeyCeremony | null, yours?: string): string {
  if (!c)
    return `emission ${emission} (${code}): no key ceremony yet (an operator opens it: carats emission ceremony start ${emission} ${SIGN_IN})`
  const opened = `  opened by ${c.startedBy} at ${c.startedAt}${c.protocol === 1 ? ' (protocol 1: the backend’s share drawn first)' : ''}`
  return [
    `emission ${emission} (${code}): ${STATE_WORDS[c.state]}`,
    opened,
    ...shareLines(c, yours),
    ...nextStep(c),
    ...abandonedLines(c.abandoned),
  ].join('\n')
}

/** The key ceremony's lines of `emission show`. */
export function ceremonySummary(c: KeyCeremony): string[] {
  const how = c.protocol === 2 ? 'commit-first' : 'backend’s share first'
  const state = c.state === 'complete' ? 'complete' : STATE_WORDS[c.state].replace(/^key ceremony /, '')
  const lines = [`key ceremony: ${state} (${how}); opened by ${c.startedBy} at ${c.startedAt}`]
  if (c.serverHash) lines.push(`  backend's share SHA-256 ${c.serverHash}`)
  if (c.state === 'complete') {
    const who = c.protocol === 2 ? 'committed and revealed by' : 'contributed by'
    lines.push(
      `  second share SHA-256 ${c.custodianHash} (${sourceWords(c)}), ${who} ${c.custodian} at ${c.contributedAt}`,
    )
  }
  if (c.abandoned.length > 0) lines.push(`  abandoned before: ${c.abandoned.length}`)
  return lines
}
