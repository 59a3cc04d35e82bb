/**
 * `carats player …`: support's lookups from the command line, over the same players service as
 * the screens. Ids are found ignoring case (ASCII letters); ids that differ only by case are
 * named, and when none is the id as typed the command refuses and lists them.
 */
import type { PlayerUnit } from '../contract/types'
import { UsageError, type Command, type CommandContext } from './io'
import { eur, int, options, print, whole, withBackend } from './command-kit'

const unitLine = (u: PlayerUnit) =>
  `  ${u.serial}  ${u.soldAt}  ${(u.prizeCents > 0 ? eur(u.prizeCents) : '-').padStart(12)}  ${u.mode ?? 'no play'}${u.status === 'interrupted' ? ' (interrupted)' : ''}`

const otherCaseNote = (others: string[]) =>
  others.length
    ? [
        `note: ${others.length === 1 ? 'another account differs' : `${others.length} other accounts differ`} from it only by case: ${others.join(', ')}`,
      ]
    : []

function playerArg(pos: string[], usage: string): string {
  if (!pos[0]) throw new UsageError(`name the player account: ${usage}`)
  return pos[0]
}

function oneOf<T extends string>(flag: string, text: string | undefined, allowed: readonly T[], fallback: T): T {
  if (text === undefined) return fallback
  if (!(allowed as readonly string[]).includes(text))
    throw new UsageError(`${flag} must be one of ${allowed.join(', ')}, got ${JSON.stringify(text)}`)
  return text as T
}

const pageOptions = { page: { type: 'string' }, 'page-size': { type: 'string' } } as const
function pageOf(values: { page?: string; 'page-size'?: string }, maxSize: number) {
  return {
    page: values.page === undefined ? 1 : whole('--page', values.page, 1, 1_000_000_000),
    pageSize: values['page-size'] === undefined ? 20 : whole('--page-size', values['page-size'], 1, maxSize),
  }
}

const pageHead = (total: number, page: number, pageSize: number) =>
  `page ${page} of ${Math.max(1, Math.ceil(total / pageSize))}`

const playerLast: Command = (ctx) =>
  withBackend(ctx, (b) => {
    const { pos } = options(ctx, {}, 1)
    const p = b.services.players.last(playerArg(pos, 'carats player last <player>'))
    const out = {
      player: p.player,
      units: p.lastUnits,
      totals: {
        units: p.units,
        stakedCents: p.stakedCents,
        wonCents: p.wonCents,
        firstSaleAt: p.firstSaleAt,
        lastSaleAt: p.lastSaleAt,
      },
      otherCase: p.otherCase,
    }
    print(ctx, out, () =>
      [
        `${p.player}: ${int(p.units)} units, staked ${eur(p.stakedCents)}, won ${eur(p.wonCents)}; last ${p.lastUnits.length}, newest first:`,
        ...p.lastUnits.map(unitLine),
        ...otherCaseNote(p.otherCase),
      ].join('\n'),
    )
    return 0
  })

const playerSearch: Command = (ctx: CommandContext) =>
  withBackend(ctx, (b) => {
    const { values, pos } = options(ctx, pageOptions, 1)
    const at = pageOf(values, 100)
    const query = pos[0] ?? ''
    const r = b.services.players.search(query, at.page, at.pageSize)
    print(ctx, r, () => {
      const what = query ? `whose id starts with "${query}" (ignoring case)` : 'in all'
      if (r.total === 0) return `no player account ${query ? what : 'yet'}`
      return [
        `${int(r.total)} player account${r.total === 1 ? '' : 's'} ${what}; ${pageHead(r.total, r.page, r.pageSize)}:`,
        ...r.items.map(
          (p) =>
            `  ${p.player}  ${int(p.units)} units, staked ${eur(p.stakedCents)}, won ${eur(p.wonCents)}, last sale ${p.lastSaleAt ?? '-'}`,
        ),
      ].join('\n')
    })
    return 0
  })

const playerHistory: Command = (ctx) =>
  withBackend(ctx, (b) => {
    const { values, pos } = options(
      ctx,
      { ...pageOptions, sort: { type: 'string' }, order: { type: 'string' }, outcome: { type: 'string' } },
      1,
    )
    const player = playerArg(
      pos,
      'carats player history <player> [--page N] [--sort time|prize] [--order desc|asc] [--outcome all|won|lost]',
    )
    const sort = oneOf('--sort', values.sort, ['time', 'prize'] as const, 'time')
    const request = {
      ...pageOf(values, 500),
      sort: sort === 'prize' ? ('prizeCents' as const) : ('soldAt' as const),
      order: oneOf('--order', values.order, ['desc', 'asc'] as const, 'desc'),
      outcome: oneOf('--outcome', values.outcome, ['all', 'won', 'lost'] as const, 'all'),
    }
    const r = b.services.players.history(player, request)
    print(ctx, r, () =>
      [
        `${player}: ${int(r.total)} unit${r.total === 1 ? '' : 's'}${request.outcome === 'all' ? '' : ` ${request.outcome}`}, by ${sort} ${request.order}; ${pageHead(r.total, r.page, r.pageSize)}:`,
        ...r.items.map(unitLine),
      ].join('\n'),
    )
    return 0
  })

export const playerCommands: Record<string, Command> = {
  'player last': playerLast,
  'player search': playerSearch,
  'player history': playerHistory,
}
