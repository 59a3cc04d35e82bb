/**
 * `carats claim list` and `carats claim show`: prize claims from the command line (electron/services/claims/README.md),
 * over the same claims service as the screens. The list prints every matching claim, no paging,
 * oldest sale first; `--json` prints the Claim objects (claims-types.ts) as the channels return
 * them. A status that is not one, or a serial that is not one, is a usage error (exit 2); a serial
 * with no claim is the ledger's refusal, saying why (exit 1, as `ticket show` of an unsold unit).
 */
import {
  CLAIM_STATUSES,
  type Claim,
  type ClaimDetail,
  type ClaimDeadlineNotice,
  type ClaimStatus,
  type ExpiryResult,
  type WinnerFigures,
} from '../contract/claims-types'
import { parseSerial, SerialError } from '../../game-core/serial'
import { UsageError, type Command } from './io'
import { eur, int, options, print, whole, withBackend } from './command-kit'
import { counted } from '../services/common'

/** What `carats help` says of these commands. */
export const claimSynopsis: Record<string, string[]> = {
  'claim list': [
    'claim list [--status S] [--emission E] [--player P]   every matching claim, oldest sale first (no paging)',
  ],
  'claim show': ["claim show <serial>                   a claim, its steps, the player's figures and register entries"],
  'claims expire': [
    'claims expire                         expires the claims open past their deadline; lists those due within 30 days',
  ],
  'claim expire': [],
}

function statusArg(text: string | undefined): ClaimStatus | undefined {
  if (text === undefined) return undefined
  if (!(CLAIM_STATUSES as readonly string[]).includes(text))
    throw new UsageError(`--status must be one of ${CLAIM_STATUSES.join(', ')}, got ${JSON.stringify(text)}`)
  return text as ClaimStatus
}

function serialArg(text: string | undefined): string {
  if (!text) throw new UsageError('name the serial: carats claim show EEEE-BBB-UUUUUUU-K')
  try {
    parseSerial(text)
  } catch (e) {
    if (e instanceof SerialError) throw new UsageError(`${JSON.stringify(text)} is not a serial: ${e.message}`)
    throw e
  }
  return text
}

/** The claim's last step taken, as "paid by ada": the list's "who" column. */
export function lastStep(c: Claim): string {
  if (c.expired) return `expired by ${c.expired.by}`
  if (c.rejected) return `rejected by ${c.rejected.by}`
  if (c.paid) return `paid by ${c.paid.by}`
  if (c.signedOff && (!c.approved || c.signedOff.at > c.approved.at)) return `signed off by ${c.signedOff.by}`
  if (c.approved) return `approved by ${c.approved.by}`
  if (c.verified) return `verified by ${c.verified.by}`
  return '-'
}

/** Rows of cells as columns padded to their widest cell; `right` names the columns aligned right. */
function columns(rows: string[][], right: Set<number>): string[] {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)))
  return rows.map((r) =>
    r
      .map((cell, i) => (right.has(i) ? cell.padStart(widths[i]) : cell.padEnd(widths[i])))
      .join('  ')
      .trimEnd(),
  )
}

function listText(claims: Claim[], what: string): string {
  if (claims.length === 0) return `no claim${what}`
  const total = claims.reduce((n, c) => n + c.prizeCents, 0)
  const head = ['serial', 'emission', 'player', 'prize', 'sold at', 'status', 'last step']
  const rows = claims.map((c) => [
    c.serial,
    String(c.emission),
    c.player,
    eur(c.prizeCents),
    c.soldAt,
    c.status + (c.related ? ' (related)' : ''),
    lastStep(c),
  ])
  return [
    `${int(claims.length)} claim${claims.length === 1 ? '' : 's'}${what}, ${eur(total)} in all, oldest sale first:`,
    ...columns([head, ...rows], new Set([1, 3])),
  ].join('\n')
}

const claimList: Command = (ctx) =>
  withBackend(ctx, (b) => {
    const { values } = options(ctx, {
      status: { type: 'string' },
      emission: { type: 'string' },
      player: { type: 'string' },
    })
    const q = {
      status: statusArg(values.status),
      emission: values.emission === undefined ? undefined : whole('--emission', values.emission, 1, 9999),
      player: values.player,
    }
    const claims = b.services.claims.all(q)
    const what = [
      q.status && ` ${q.status}`,
      q.emission && ` of emission ${q.emission}`,
      q.player !== undefined && ` of player ${q.player}`,
    ]
      .filter(Boolean)
      .join('')
    print(ctx, claims, () => listText(claims, what))
    return 0
  })

function stepLines(c: Claim): string[] {
  const at = (s: { by: string; at: string }) => `${s.by} at ${s.at}`
  return [
    `  sold      ${c.soldAt} to ${c.player}`,
    c.verified &&
      `  verified  ${at(c.verified)}: ${c.verified.document} ${c.verified.reference}${c.winner ? `, winner ${c.winner.initials}${c.winner.birthYear ? ` born ${c.winner.birthYear}` : ''}` : ''}`,
    c.assigned && `  assigned  to ${c.assigned.to} at ${c.assigned.at}`,
    c.approved && `  approved  ${at(c.approved)}`,
    c.signedOff && `  signed off ${at(c.signedOff)} (auditor)`,
    c.paid && `  paid      ${at(c.paid)}: payment ${c.paid.reference}${c.paid.method ? ` by ${c.paid.method}` : ''}`,
    c.rejected && `  rejected  ${at(c.rejected)} when ${c.rejected.from}: ${c.rejected.reason}`,
    c.expired && `  expired   ${at(c.expired)}: open at its emission's claim deadline`,
  ].filter((l): l is string => typeof l === 'string')
}

function figuresLine(f: WinnerFigures): string {
  const flags = f.flags.length ? `; flagged: ${f.flags.join(', ')}` : '; not flagged'
  return `player ${f.player}: ${int(f.units)} units bought, ${counted(f.claims, 'claim', int)} (${eur(f.claimsCents)}), ${f.expectedClaims.toPrecision(3)} expected; chance of as many or more ${f.probability.toPrecision(3)}${flags}`
}

function showText(d: ClaimDetail): string {
  const c = d.claim
  const waited = c.daysPending === null ? '' : `, pending ${counted(c.daysPending, 'day')}`
  const head = `claim on ${c.serial} (emission ${c.emission}${c.demo ? ', DEMO' : ''}): ${eur(c.prizeCents)}, ${c.status}${waited}${c.related ? ', related party' : ''}${c.needsSignOff ? ", needs an auditor's sign-off before it is paid" : ''}`
  const parties =
    d.parties.length === 0
      ? ['register of related parties: no entry for this player']
      : d.parties.map(
          (p) =>
            `register entry ${p.id}: ${p.relation} of ${p.linkedTo} (${p.reason}), added by ${p.addedBy} at ${p.addedAt}`,
        )
  return [head, ...stepLines(c), figuresLine(d.figures), ...parties].join('\n')
}

const claimShow: Command = (ctx) =>
  withBackend(ctx, (b) => {
    const { pos } = options(ctx, {}, 1)
    const d = b.services.claims.get(serialArg(pos[0]))
    print(ctx, d, () => showText(d))
    return 0
  })

function expiryText(r: ExpiryResult, soon: ClaimDeadlineNotice[]): string {
  const done =
    r.claims === 0
      ? ['no claim was open past its deadline']
      : [
          `${int(r.claims)} claim${r.claims === 1 ? '' : 's'} expired, ${eur(r.amountCents)} in all:`,
          ...r.emissions.map(
            (e) =>
              `  emission ${e.emission} (${e.code}), deadline ${e.deadline}: ${int(e.claims)}, ${eur(e.amountCents)}`,
          ),
        ]
  if (soon.length === 0) return [...done, 'no open claim is due within 30 days'].join('\n')
  const head = ['serial', 'emission', 'prize', 'status', 'deadline', 'days left']
  const rows = soon.map((n) => [
    n.claim.serial,
    String(n.claim.emission),
    eur(n.claim.prizeCents),
    n.claim.status,
    n.deadline,
    String(n.daysLeft),
  ])
  return [
    ...done,
    `${counted(soon.length, 'open claim', int)} due within 30 days:`,
    ...columns([head, ...rows], new Set([1, 2, 5])),
  ].join('\n')
}

/** `carats claims expire`: the pass the app runs at start and daily, run now (as the OS user). */
const claimsExpire: Command = (ctx) =>
  withBackend(ctx, (b) => {
    options(ctx, {})
    const r = b.services.claims.expire(b.actor)
    const soon = b.services.claims.nearingDeadline()
    print(ctx, { ...r, nearing: soon }, () => expiryText(r, soon))
    return 0
  })

export const claimCommands: Record<string, Command> = {
  'claim list': claimList,
  'claim show': claimShow,
  'claims expire': claimsExpire,
  'claim expire': claimsExpire,
}
