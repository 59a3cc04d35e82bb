/**
 * `carats report liability`: what the lottery owes (electron/services/reports/liability.ts), per
 * emission and block (`--tiers`: and prize tier), now or at the end of a past day. It exits 1
 * when a block's parts do not add up to its prize table, naming it, so a scheduled run warns.
 */
import type { LiabilityFigures, LiabilityReport } from '../contract'
import { isoDayProblem } from '../contract/dates'
import { eur, int, options, print, whole, withBackend } from './command-kit'
import { UsageError, type Command } from './io'

export const liabilitySynopsis: Record<string, string[]> = {
  'report liability': [
    'report liability [--emission E] [--as-of YYYY-MM-DD] [--include-demo] [--tiers]',
    '                                      what is owed per emission and block: credited, paid, outstanding, expired, void, unsold',
  ],
}

const HEAD = ['', 'won', 'credited', 'paid', 'outstanding', 'expired', 'void', 'unsold', 'prize table', 'gap']

const cells = (label: string, f: LiabilityFigures) => [
  label,
  eur(f.wonCents),
  eur(f.creditedCents),
  eur(f.paidCents),
  `${eur(f.outstandingCents)} (${int(f.claims.outstanding)})`,
  eur(f.expiredCents),
  eur(f.voidCents),
  eur(f.unsoldCents),
  eur(f.tableCents),
  f.gapCents === 0 ? '0' : `${eur(f.gapCents)} !`,
]

function table(rows: string[][]): string[] {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)))
  return rows.map((r) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  '))
}

function unbalanced(r: LiabilityReport): string[] {
  return r.emissions.flatMap((e) =>
    e.blocks.flatMap((b) =>
      b.tiers
        .filter((t) => t.figures.gapCents !== 0)
        .map(
          (t) =>
            `emission ${e.emission} block ${b.block}, prize ${eur(t.amountCents)}: ${int(t.sold)} sold, parts off by ${eur(t.figures.gapCents)}`,
        ),
    ),
  )
}

function liabilityText(r: LiabilityReport, tiers: boolean): string {
  const scope =
    r.emission === null ? (r.includeDemo ? 'every emission' : 'real emissions only') : `emission ${r.emission}`
  const rows = [HEAD]
  for (const e of r.emissions) {
    const deadline = e.claimDeadline
      ? `claims until ${e.claimDeadline.slice(0, 10)}`
      : `claims ${e.claimDays} days after close`
    rows.push(cells(`emission ${e.emission} (${e.code}${e.demo ? ', DEMO' : ''}; ${deadline})`, e.figures))
    for (const b of e.blocks) {
      rows.push(cells(`  block ${b.block}`, b.figures))
      if (tiers)
        for (const t of b.tiers)
          rows.push(cells(`    ${eur(t.amountCents)} × ${int(t.sold)}/${int(t.units)}`, t.figures))
    }
  }
  rows.push(cells('total', r.total))
  const verdict = r.balanced
    ? 'every block adds up: credited + paid + outstanding + expired + void + unsold = prize table'
    : ['THE ACCOUNTS DO NOT ADD UP (run carats ledger check):', ...unbalanced(r)].join('\n  ')
  const head = `prize liability as of ${r.asOf} (${scope}${r.emission === null && !r.includeDemo ? '; --include-demo adds demonstrations' : ''})`
  if (r.emissions.length === 0) return `${head}\nno emission with a prize table${r.day ? ` on ${r.day}` : ''}`
  return [head, ...table(rows), verdict].join('\n')
}

const reportLiability: Command = (ctx) =>
  withBackend(ctx, (b) => {
    const { values } = options(ctx, {
      emission: { type: 'string' },
      'as-of': { type: 'string' },
      'include-demo': { type: 'boolean' },
      tiers: { type: 'boolean' },
    })
    const asOf = values['as-of']
    if (asOf !== undefined && isoDayProblem(asOf) !== null)
      throw new UsageError(`--as-of must be a day of the calendar, YYYY-MM-DD, got ${JSON.stringify(asOf)}`)
    const r = b.services.reports.liability({
      emission: values.emission === undefined ? undefined : whole('--emission', values.emission, 1, 9999),
      asOf,
      includeDemo: values['include-demo'],
    })
    print(ctx, r, () => liabilityText(r, values.tiers === true))
    return r.balanced ? 0 : 1
  })

export const liabilityCommands: Record<string, Command> = { 'report liability': reportLiability }
