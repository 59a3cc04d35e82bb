/**
 * Players as support sees them: totals, the last unit and the 9 before it (newest first), the
 * full history paged, and a search by the start of the account id. A player's sales are chained
 * newest to oldest (players.last_key → sales.prev_key), so these reads follow the chain.
 */
import { AppError, because } from '../contract/errors'
import type { Page, PlayerLast, PlayerSummary, PlayerUnit } from '../contract/types'
import { formatSerial } from '../../game-core/serial'
import type { Db } from '../ledger/db'
import { splitUnitKey } from '../ledger/migrations'
import { playModeOf, playStatusOf } from '../ledger/play-codec'
import type { Catalog } from './catalog'

export interface PlayersService {
  summary(player: string): PlayerSummary
  last(player: string, count?: number): PlayerLast
  history(player: string, page: number, pageSize: number): Page<PlayerUnit>
  search(query: string, limit: number): PlayerSummary[]
}

interface PlayerRow {
  id: number
  name: string
  units: number
  staked_cents: number
  won_cents: number
  first_sale_at: number | null
  last_sale_at: number | null
  last_key: number | null
}

interface ChainRow {
  unit_key: number
  sale_id: string | null
  sold_at: number
  stake_cents: number
  prize_cents: number
  play: number | null
}

const isoOrNull = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString())

export function createPlayersService({ db, catalog }: { db: Db; catalog: Catalog }): PlayersService {
  const byName = db.prepare('SELECT * FROM players WHERE name = ?')
  const chain = db.prepare(`
    WITH RECURSIVE c(k, n) AS (
      SELECT ?, 0
      UNION ALL
      SELECT s.prev_key, c.n + 1 FROM c JOIN sales s ON s.unit_key = c.k WHERE c.n + 1 < ? AND s.prev_key IS NOT NULL
    )
    SELECT s.unit_key, s.sale_id, s.sold_at, s.stake_cents, s.prize_cents, s.play
    FROM c JOIN sales s ON s.unit_key = c.k WHERE c.n >= ? ORDER BY c.n`)

  const toSummary = (r: PlayerRow): PlayerSummary => ({
    player: r.name, units: r.units, stakedCents: r.staked_cents, wonCents: r.won_cents, firstSaleAt: isoOrNull(r.first_sale_at), lastSaleAt: isoOrNull(r.last_sale_at),
  })

  function find(player: string): PlayerRow {
    const r = byName.get(player) as PlayerRow | undefined
    if (!r) throw new AppError('NOT_FOUND', `no player "${player}" has bought a unit`, { field: 'player', ...because('PLAYER_NOT_FOUND', { player }) })
    return r
  }

  function units(r: PlayerRow, skip: number, take: number): PlayerUnit[] {
    if (r.last_key === null || take <= 0) return []
    return (chain.all(r.last_key, skip + take, skip) as ChainRow[]).map((s) => {
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
        demo: catalog.emission(id.emission).demo === 1,
      }
    })
  }

  return {
    summary: (player) => toSummary(find(player)),
    last(player, count = 10) {
      const r = find(player)
      return { ...toSummary(r), lastUnits: units(r, 0, count) }
    },
    history(player, page, pageSize) {
      const r = find(player)
      return { total: r.units, page, pageSize, items: units(r, (page - 1) * pageSize, pageSize) }
    },
    search(query, limit) {
      const q = query.trim()
      // a prefix range on the unique index: no scan, whatever the number of players
      const rows = (q === ''
        ? db.prepare('SELECT * FROM players ORDER BY name LIMIT ?').all(limit)
        : db.prepare('SELECT * FROM players WHERE name >= ? AND name < ? ORDER BY name LIMIT ?').all(q, q + '\u{10FFFF}', limit)) as PlayerRow[]
      return rows.map(toSummary)
    },
  }
}
