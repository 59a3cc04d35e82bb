/**
 * The ledger's commands: emissions, simulated and imported sales, tickets, players, reports, the
 * audit log, over the same services as the app (openBackend); the users' commands are in user-commands.ts.
 *
 * Who acts: the operating-system user, audited as "os:<username>". Whoever runs the CLI can read
 * the ledger file and its key file anyway, so roles cannot protect anything from them; the CLI
 * trusts the OS user as an operator and an auditor, and every change it makes is in the audit log
 * under that name. CARATS_ACTOR, if set, is the name audited instead (for tests and scripts); a
 * person at the keyboard leaves it unset. It is not accepted for the key ceremony's steps, which
 * sign a staff account in with --user and --password-stdin (ceremony-auth.ts). The one rule kept
 * is the auditor's: an unsold unit is shown only with `--reason`, and the inspection is audited
 * with that reason.
 *
 * The ledger: --db <file or postgresql:// URL>, else CARATS_DB, else carats.db in the app's data
 * folder. A team ledger on PostgreSQL needs its key file: --key-file or CARATS_KEY_FILE.
 */
import { MAX_CLAIM_DAYS } from '../contract/claims-types'
import { isoDayProblem } from '../contract/dates'
import type { DepletionReport, TicketView } from '../contract/types'
import type { Simulator } from '../services/simulator'
import { salesImport, salesImports } from './import-commands'
import { asUsage, eur, follow, int, options, print, whole, withBackend } from './command-kit'
import { UsageError, type Command, type CommandContext } from './io'
import { cliReason, cliText } from './text-args'
import { counted } from '../services/common'

const pct = (x: number) => `${(x * 100).toFixed(3)} %`

const emissionArg = (ctx: CommandContext) => {
  const { pos } = options(ctx, {}, 1)
  return whole('the emission number', pos[0], 1, 9999)
}

// ---------------------------------------------------------------------------------------------
// emissions

const emissionCreate: Command = (ctx) =>
  withBackend(ctx, (b) => {
    const { values } = options(ctx, {
      blocks: { type: 'string' },
      code: { type: 'string' },
      starts: { type: 'string' },
      demo: { type: 'boolean' },
      'claim-threshold-cents': { type: 'string' },
      'claim-days': { type: 'string' },
    })
    const blocks = whole('--blocks', values.blocks, 1, 999)
    const threshold = values['claim-threshold-cents']
    const claimThresholdCents =
      threshold === undefined ? undefined : whole('--claim-threshold-cents', threshold, 0, Number.MAX_SAFE_INTEGER)
    const days = values['claim-days']
    const claimDays = days === undefined ? undefined : whole('--claim-days', days, 1, MAX_CLAIM_DAYS)
    const startsProblem = values.starts === undefined ? null : isoDayProblem(values.starts)
    if (startsProblem === 'shape')
      throw new UsageError(`--starts must be a date YYYY-MM-DD, got ${JSON.stringify(values.starts)}`)
    if (startsProblem === 'nonexistent')
      throw new UsageError(`--starts must be a day of the calendar: ${values.starts} does not exist`)
    const code = values.code === undefined ? undefined : cliText(values.code, '--code', 'a code')
    const e = asUsage('--claim-threshold-cents', 'claimThresholdCents', () =>
      b.services.emissions.create(b.actor, {
        blocks,
        code,
        startsOn: values.starts,
        demo: values.demo,
        claimThresholdCents,
        claimDays,
      }),
    )
    const kind = e.demo ? 'demonstration emission' : 'emission'
    print(
      ctx,
      e,
      () =>
        `${kind} ${e.emission} (${e.code}) created: ${counted(e.blocks, 'block')} of ${int(e.unitsTotal / e.blocks)} units${e.startsOn ? `, on sale from ${e.startsOn}` : ''}, prizes from ${eur(e.claimThresholdCents)} claimed in person within ${e.claimDays} days of the close; next: emission generate ${e.emission}`,
    )
    return 0
  })

const jobCommand =
  (what: 'generate'): Command =>
  (ctx) =>
    withBackend(ctx, async (b) => {
      const emission = emissionArg(ctx)
      const job = b.services.emissions[what](b.actor, emission)
      const end = await follow(ctx, b, job)
      const s = b.services.emissions.get(emission)
      print(
        ctx,
        { job: end, emission: s },
        () =>
          `emission ${emission}: ${end.message}\n${s.blockList.map((x) => `  block ${x.block}: ${x.status}, seeding ${x.seeding}, commitment ${x.commitment}`).join('\n')}`,
      )
      return 0
    })

const stateCommand =
  (what: 'open' | 'close'): Command =>
  (ctx) =>
    withBackend(ctx, (b) => {
      const emission = emissionArg(ctx)
      const s =
        what === 'open' ? b.services.emissions.open(b.actor, emission) : b.services.emissions.close(b.actor, emission)
      print(ctx, s, () => `emission ${emission} (${s.code}) is ${s.status}`)
      return 0
    })

const emissionWithdraw: Command = (ctx) =>
  withBackend(ctx, (b) => {
    const { values, pos } = options(ctx, { reason: { type: 'string' } }, 1)
    const emission = whole('the emission number', pos[0], 1, 9999)
    if (!values.reason) throw new UsageError('--reason is required to withdraw an emission')
    const s = b.services.emissions.withdraw(b.actor, emission, cliReason(values.reason)!)
    print(ctx, s, () => `emission ${emission} (${s.code}) is withdrawn: ${s.withdrawnReason}`)
    return 0
  })

const emissionList: Command = (ctx) =>
  withBackend(ctx, (b) => {
    options(ctx, {})
    const list = b.services.emissions.list()
    print(ctx, list, () =>
      list.length === 0
        ? 'no emission yet (carats emission create --blocks N)'
        : list
            .map(
              (e) =>
                `${String(e.emission).padStart(4)}  ${e.code.padEnd(14)} ${(e.demo ? 'DEMO' : '').padEnd(5)}${e.status.padEnd(10)} ${counted(e.blocks, 'block')}, ${int(e.unitsSold)} / ${int(e.unitsTotal)} units sold${e.startsOn ? `, from ${e.startsOn}` : ''}`,
            )
            .join('\n'),
    )
    return 0
  })

// ---------------------------------------------------------------------------------------------
// sales

const simulate: Command = (ctx) =>
  withBackend(ctx, async (b) => {
    const { values } = options(ctx, {
      emission: { type: 'string' },
      sales: { type: 'string' },
      players: { type: 'string' },
      seed: { type: 'string' },
    })
    const emission = whole('--emission', values.emission, 1, 9999)
    const sales = whole('--sales', values.sales, 1, 100_000_000)
    const players = values.players === undefined ? undefined : whole('--players', values.players, 1, 10_000_000)
    const seed = values.seed === undefined ? undefined : whole('--seed', values.seed, 0, 2 ** 32 - 1)
    const ac = new AbortController()
    const onInt = () => ac.abort()
    process.once('SIGINT', onInt)
    const started = performance.now()
    try {
      // the backend's simulator is this module's (createSimulator), with its fuller result
      const r = await (b.services.simulator as Simulator).run(
        b.actor,
        { emission, sales, players, seed },
        {
          signal: ac.signal,
          progress: (done, total) => ctx.io.progress(`simulating: ${int(done)} / ${int(total)} sales`),
        },
      )
      ctx.io.progress('')
      const seconds = (performance.now() - started) / 1000
      const out = { ...r, seconds: Number(seconds.toFixed(3)), salesPerSecond: Math.round(r.sold / seconds) }
      print(
        ctx,
        out,
        () =>
          `${int(r.sold)} sales simulated on emission ${emission} (${r.firstSerial} … ${r.lastSerial}), ${int(r.players)} players, seed ${r.seed}, sold from ${r.from} to ${r.to}; ${int(out.salesPerSecond)} sales/s`,
      )
      return 0
    } finally {
      process.removeListener('SIGINT', onInt)
    }
  })

// ---------------------------------------------------------------------------------------------
// tickets (players: player-commands.ts)

function ticketText(t: TicketView): string {
  const matched = new Set(t.matches)
  const cells = t.numbers.map(
    (n, i) => `${matched.has(i) ? '*' : ' '}${String(n).padStart(2)} ${eur(t.amountsCents[i]).padStart(11)}`,
  )
  const rows: string[] = []
  for (let i = 0; i < cells.length; i += 4) rows.push('  ' + cells.slice(i, i + 4).join('  '))
  const sale = t.sale ? `sold to ${t.sale.player} on ${t.sale.soldAt} (sale ${t.sale.saleId})` : 'not sold'
  const play = t.play
    ? `play: ${t.play.mode}, ${t.play.status}, ${t.play.events.length} reveals over ${t.play.events.at(-1)?.t ?? 0} ms`
    : 'play: none recorded'
  return [
    `${t.serial}${t.demo ? '  DEMO (a demonstration emission: simulated sale)' : ''}  ${t.prizeCents > 0 ? `wins ${eur(t.prizeCents)}` : 'loses'}  ${sale}`,
    `winning numbers: ${t.winning.join(' ')}`,
    'your numbers (* = match):',
    ...rows,
    play,
  ].join('\n')
}

const ticketShow: Command = (ctx) =>
  withBackend(ctx, (b) => {
    const { values, pos } = options(ctx, { reason: { type: 'string' } }, 1)
    if (!pos[0]) throw new UsageError('name the serial: carats ticket show EEEE-BBB-UUUUUUU-K')
    // as an auditor: a sold unit is shown, an unsold one only with --reason (audited)
    const t = b.services.tickets.get({ name: b.actor.name, role: 'auditor' }, pos[0], cliReason(values.reason))
    print(ctx, t, () => ticketText(t))
    return 0
  })

// ---------------------------------------------------------------------------------------------
// reports

function depletionText(r: DepletionReport): string {
  const head = `emission ${r.emission}${r.block === null ? '' : `, block ${r.block}`}: ${int(r.unitsSold)} of ${int(r.unitsTotal)} units sold (${pct(r.unitsSold / r.unitsTotal)}), as of ${r.asOf}`
  const rows = r.tiers.map((t) => {
    const expected = Math.round(t.initial * (1 - r.unitsSold / r.unitsTotal))
    return `  ${eur(t.amountCents).padStart(11)}  ${int(t.initial).padStart(10)}  ${int(t.sold).padStart(10)}  ${int(t.remaining).padStart(10)}  ${int(expected).padStart(10)}`
  })
  return [
    head,
    `  ${'prize'.padStart(11)}  ${'initial'.padStart(10)}  ${'sold'.padStart(10)}  ${'remaining'.padStart(10)}  ${'expected'.padStart(10)}`,
    ...rows,
    `  (${r.series.length} points in the series: --json)`,
  ].join('\n')
}

const reportDepletion: Command = (ctx) =>
  withBackend(ctx, (b) => {
    const { values } = options(ctx, { emission: { type: 'string' }, block: { type: 'string' } })
    const emission = whole('--emission', values.emission, 1, 9999)
    const block = values.block === undefined ? undefined : whole('--block', values.block, 1, 999)
    const r = b.services.reports.depletion({ emission, block })
    print(ctx, r, () => depletionText(r))
    return 0
  })

const reportDashboard: Command = (ctx) =>
  withBackend(ctx, (b) => {
    const { values } = options(ctx, {
      'include-demo': { type: 'boolean' },
      emission: { type: 'string' },
      from: { type: 'string' },
      to: { type: 'string' },
    })
    const emission = values.emission === undefined ? undefined : whole('--emission', values.emission, 1, 9999)
    const d = b.services.reports.dashboard({
      includeDemo: values['include-demo'],
      emission,
      from: values.from,
      to: values.to,
    })
    const f = d.filters
    const scope = [
      f.emission === null ? 'all emissions' : `emission ${f.emission}`,
      f.from || f.to ? `sale days ${f.from ?? 'start'} to ${f.to ?? 'today'}` : 'every sale day',
    ]
    print(ctx, d, () =>
      [
        `carats ${d.version}, as of ${d.asOf}: ${scope.join(', ')}${d.includesDemo ? ', demonstration emissions included' : ' (real emissions only; --include-demo counts demonstration emissions too)'}`,
        d.unitsSold === 0
          ? 'no activity in the period'
          : `units sold ${int(d.unitsSold)}, sales ${eur(d.salesCents)}, prizes won ${int(d.prizesWon)} (${eur(d.prizesWonCents)})`,
        `payout realised ${d.realisedPayout === null ? '-' : pct(d.realisedPayout)}, theoretical ${pct(d.theoreticalPayout)}`,
        `prizes to pay (as of now): won, not yet paid ${eur(d.claims.unpaidCents)}; still in unsold units ${eur(d.remainingLiabilityCents)}`,
        `claims: ${d.claims.byStatus.map((c) => `${c.status} ${int(c.count)} (${eur(c.amountCents)})`).join(', ')}`,
        `top prizes remaining: ${d.topPrizesRemaining.map((t) => `${eur(t.amountCents)}: ${t.remaining} of ${t.initial}`).join(', ') || 'none on sale'}`,
        `last days: ${
          d.salesPerDay
            .slice(-7)
            .map((s) => `${s.day} ${int(s.units)}`)
            .join(', ') || 'no sales'
        }`,
        ...d.alerts.slice(0, 5).map((a) => `alert: ${a.message} (${a.at})`),
      ].join('\n'),
    )
    return 0
  })

/** What `carats help` says of the commands here that take more than their name says. */
export const ledgerSynopsis: Record<string, string[]> = {
  'emission create': [
    'emission create --blocks N [--code C] [--starts YYYY-MM-DD] [--demo] [--claim-threshold-cents N]',
    '                                      N cents (whole euros, 1 € to the top prize; 500000 by default): a prize from it up is claimed in person',
    '                  [--claim-days D]    claims made and paid within D days of the close (1 to 3650; 30 by default)',
  ],
}

export const ledgerCommands: Record<string, Command> = {
  'emission create': emissionCreate,
  'emission generate': jobCommand('generate'),
  'emission open': stateCommand('open'),
  'emission close': stateCommand('close'),
  'emission withdraw': emissionWithdraw,
  'emission list': emissionList,
  simulate,
  'sales import': salesImport,
  'sales imports': salesImports,
  'ticket show': ticketShow,
  'report depletion': reportDepletion,
  'report dashboard': reportDashboard,
}
