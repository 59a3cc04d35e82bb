/**
 * Players as support sees them: totals, the last unit and the 9 before it (newest first), the
 * full history paged, and a search by the start of the account id. A player's sales are read on
 * the index sales_by_player (player_id, sold_at, unit_key: migration 15), newest first: the last
 * ten are the index's last ten entries of the player, whatever order the sales arrived in.
 *
 * Ids are found ignoring case, as SQLite's NOCASE folds it (ASCII letters only; an id may hold
 * others, and those match as typed), on the index players_by_name_nocase (migration 7). Two
 * accounts may differ only by case: a lookup then takes the one whose id is exactly the one given
 * and names the others, or, when none is, refuses as ambiguous and names them all.
 */
import { AppError, because } from '../../contract/errors'
import type { PlayerRow, SaleRow } from './context'
import type {
  Page,
  PlayerHistorySortKey,
  PlayerLast,
  PlayerOutcome,
  PlayerSummary,
  PlayerUnit,
  SortOrder,
} from '../../contract/types'
import { formatSerial } from '../../../game-core/serial'
import type { Db } from '../../ledger/db'
import { splitUnitKey } from '../../ledger/unit-key'
import { playModeOf, playStatusOf } from '../../ledger/play-codec'
import type { Catalog } from '../catalog'

export interface HistoryRequest {
  page: number
  pageSize: number
  /** soldAt: the order of sale (then serial), newest first for desc. */
  sort?: PlayerHistorySortKey
  order?: SortOrder
  outcome?: PlayerOutcome
}

export interface PlayersService {
  summary(player: string): PlayerSummary
  last(player: string, count?: number): PlayerLast
  history(player: string, request: HistoryRequest): Page<PlayerUnit>
  search(query: string, page: number, pageSize: number): Page<PlayerSummary>
  /** The account's row id and exact name, found as the other lookups find it (ignoring case, never ambiguous). */
  account(player: string): { id: number; name: string }
}

/** Past every character a text can go on with: `prefix + END` bounds the texts that start with `prefix`. */
const END = '\u{10FFFF}'
/** Accounts named in an ambiguity at most (ids that differ only by case are a handful at worst). */
const SAME_ID_MAX = 20

const isoOrNull = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString())

/** The order of sale, newest first: the index's order read backwards. */
const NEWEST_FIRST = 's.sold_at DESC, s.unit_key DESC'
const UNIT_COLUMNS = 's.unit_key, s.sale_id, s.sold_at, s.stake_cents, s.prize_cents, s.play'
const OUTCOME_SQL: Record<PlayerOutcome, string> = {
  all: '',
  won: 'AND s.prize_cents > 0',
  lost: 'AND s.prize_cents = 0',
}

function historyOrder(sort: PlayerHistorySortKey, order: SortOrder): string {
  const bySale = order === 'desc' ? NEWEST_FIRST : 's.sold_at ASC, s.unit_key ASC'
  return sort === 'prizeCents'
    ? `ORDER BY s.prize_cents ${order === 'asc' ? 'ASC' : 'DESC'}, ${NEWEST_FIRST}`
    : `ORDER BY ${bySale}`
}

/** What the players' functions share: the catalog (serials, demo flags) and the statements prepared once. */
interface PlayersContext {
  db: Db
  catalog: Catalog
  statements: ReturnType<typeof preparePlayerStatements>
}

function preparePlayerStatements(db: Db) {
  return {
    sameIdIgnoringCase: db.prepare(
      `SELECT * FROM player_totals WHERE name COLLATE NOCASE = ? ORDER BY name LIMIT ${SAME_ID_MAX}`,
    ),
    newestSales: db.prepare(
      `SELECT ${UNIT_COLUMNS} FROM sales s WHERE s.player_id = ? ORDER BY ${NEWEST_FIRST} LIMIT ? OFFSET ?`,
    ),
    searchPage: db.prepare(
      `SELECT * FROM player_totals WHERE name COLLATE NOCASE >= ? AND name COLLATE NOCASE < ? ORDER BY name COLLATE NOCASE, name LIMIT ? OFFSET ?`,
    ),
    searchCount: db
      .prepare('SELECT count(*) FROM players WHERE name COLLATE NOCASE >= ? AND name COLLATE NOCASE < ?')
      .pluck(),
    allPage: db.prepare('SELECT * FROM player_totals ORDER BY name COLLATE NOCASE, name LIMIT ? OFFSET ?'),
    allCount: db.prepare('SELECT count(*) FROM players').pluck(),
  }
}

const toSummary = (r: PlayerRow): PlayerSummary => ({
  player: r.name,
  units: r.units,
  stakedCents: r.staked_cents,
  wonCents: r.won_cents,
  firstSaleAt: isoOrNull(r.first_sale_at),
  lastSaleAt: isoOrNull(r.last_sale_at),
})

/** The account of this id ignoring case, and the others that differ from it only by case. */
function find(ctx: PlayersContext, player: string): { row: PlayerRow; otherCase: string[] } {
  const rows = ctx.statements.sameIdIgnoringCase.all(player) as PlayerRow[]
  if (rows.length === 0)
    throw new AppError('NOT_FOUND', `no player "${player}" has bought a unit`, {
      field: 'player',
      ...because('PLAYER_NOT_FOUND', { player }),
    })
  const row = rows.length === 1 ? rows[0] : rows.find((r) => r.name === player)
  if (!row)
    throw ambiguous(
      player,
      rows.map((r) => r.name),
    )
  return { row, otherCase: rows.filter((r) => r !== row).map((r) => r.name) }
}

function toUnit(catalog: Catalog, s: SaleRow): PlayerUnit {
  const id = splitUnitKey(s.unit_key)
  const serial = formatSerial(id, catalog.definition(id.emission).blockSize)
  return {
    serial,
    saleId: s.sale_id ?? serial,
    soldAt: new Date(s.sold_at).toISOString(),
    stakeCents: s.stake_cents,
    prizeCents: s.prize_cents,
    mode: s.play === null ? null : playModeOf(s.play),
    status: s.play === null ? null : playStatusOf(s.play),
    demo: catalog.facts(id.emission).demo === 1,
  }
}

/** The newest units first: no more index entries are read than skipped and shown. */
function newest(ctx: PlayersContext, r: PlayerRow, skip: number, take: number): PlayerUnit[] {
  if (r.last_key === null || take <= 0) return []
  return (ctx.statements.newestSales.all(r.id, take, skip) as SaleRow[]).map((s) => toUnit(ctx.catalog, s))
}

/** Another order, or some outcomes only: the player's sales (found on the index) sorted and cut. */
function sortedHistory(ctx: PlayersContext, r: PlayerRow, q: Required<HistoryRequest>): Page<PlayerUnit> {
  const { db } = ctx
  const empty = { total: 0, page: q.page, pageSize: q.pageSize, items: [] }
  if (r.last_key === null) return empty
  const filter = OUTCOME_SQL[q.outcome]
  const from = `SELECT %COLUMNS% FROM sales s WHERE s.player_id = ? ${filter}`
  const total =
    q.outcome === 'all' ? r.units : (db.prepare(from.replace('%COLUMNS%', 'count(*)')).pluck().get(r.id) as number)
  const rows = db
    .prepare(`${from.replace('%COLUMNS%', UNIT_COLUMNS)} ${historyOrder(q.sort, q.order)} LIMIT ? OFFSET ?`)
    .all(r.id, q.pageSize, (q.page - 1) * q.pageSize) as SaleRow[]
  return { total, page: q.page, pageSize: q.pageSize, items: rows.map((s) => toUnit(ctx.catalog, s)) }
}

function account(ctx: PlayersContext, player: string): { id: number; name: string } {
  const { row } = find(ctx, player)
  return { id: row.id, name: row.name }
}

function last(ctx: PlayersContext, player: string, count: number): PlayerLast {
  const { row, otherCase } = find(ctx, player)
  return { ...toSummary(row), lastUnits: newest(ctx, row, 0, count), otherCase }
}

function history(
  ctx: PlayersContext,
  player: string,
  { page, pageSize, sort = 'soldAt', order = 'desc', outcome = 'all' }: HistoryRequest,
): Page<PlayerUnit> {
  const { row } = find(ctx, player)
  if (sort === 'soldAt' && order === 'desc' && outcome === 'all')
    return { total: row.units, page, pageSize, items: newest(ctx, row, (page - 1) * pageSize, pageSize) }
  return sortedHistory(ctx, row, { page, pageSize, sort, order, outcome })
}

function search(ctx: PlayersContext, query: string, page: number, pageSize: number): Page<PlayerSummary> {
  const { allCount, searchCount, allPage, searchPage } = ctx.statements
  const q = query.trim()
  const offset = (page - 1) * pageSize
  // a prefix range on the NOCASE index: no scan, whatever the number of players
  const total = (q === '' ? allCount.get() : searchCount.get(q, q + END)) as number
  const rows = (q === '' ? allPage.all(pageSize, offset) : searchPage.all(q, q + END, pageSize, offset)) as PlayerRow[]
  return { total, page, pageSize, items: rows.map(toSummary) }
}

export function createPlayersService({ db, catalog }: { db: Db; catalog: Catalog }): PlayersService {
  const ctx: PlayersContext = { db, catalog, statements: preparePlayerStatements(db) }
  return {
    summary: (player) => toSummary(find(ctx, player).row),
    account: (player) => account(ctx, player),
    last: (player, count = 10) => last(ctx, player, count),
    history: (player, request) => history(ctx, player, request),
    search: (query, page, pageSize) => search(ctx, query, page, pageSize),
  }
}

function ambiguous(player: string, accounts: string[]): AppError {
  const list = accounts.join(', ')
  return new AppError(
    'CONFLICT',
    `${accounts.length} accounts match "${player}" ignoring case (${list}): name one exactly as it is written`,
    {
      field: 'player',
      ...because('PLAYER_AMBIGUOUS', { player, count: accounts.length, accounts: list }),
    },
  )
}
