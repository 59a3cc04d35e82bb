/**
 * The hot path of every sale, per engine: the sales' rows of a batch, and its players' totals.
 * SQLite: prepared multi-row INSERTs and one UPDATE per player (no round trip: a call into the
 * library). PostgreSQL: COPY for the rows, in chunks sent without waiting, and one UPDATE … FROM
 * unnest(…) for all the players, since each statement there is a round trip to the server.
 */
import type { Db } from '../ledger/db'
import { engineOf } from '../ledger/dialect'
import type { PgDb } from '../ledger/pg/pg-db'

export const SALE_COLUMNS = 10
const COLUMNS = '(unit_key, sale_id, player_id, prev_key, sold_at, stake_cents, prize_cents, tier, play, events)'
const ROWS_PER_INSERT = 100

/** What a batch adds to one player. */
export interface PlayerTotals {
  id: number
  units: number
  staked: number
  won: number
  first: number
  lastAt: number
  head: number | null
}

/** What a batch adds to one day of one emission. */
export interface DayTotals {
  day: string
  emission: number
  units: number
  sales: number
  prizes: number
  prizesCents: number
}

const ADD_TO_DAY = `ON CONFLICT(day, emission) DO UPDATE SET units = daily_sales.units + excluded.units,
      sales_cents = daily_sales.sales_cents + excluded.sales_cents, prizes = daily_sales.prizes + excluded.prizes,
      prizes_cents = daily_sales.prizes_cents + excluded.prizes_cents`

export interface SalesRows {
  /** Inserts `count` sales whose columns are `values` in order (SALE_COLUMNS each). */
  insert(values: unknown[], count: number): void
  /** Adds each player's totals; returns how many players rows were updated. */
  addToPlayers(players: readonly PlayerTotals[]): number
  /** New players by name, in the order given: their ids. */
  newPlayers(names: readonly string[]): number[]
  /** Adds each day's totals (daily_sales), creating the day's row if needed. */
  addToDays(days: readonly DayTotals[]): void
}

export function createSalesRows(db: Db): SalesRows {
  return engineOf(db) === 'postgres' ? pgSalesRows(db as unknown as PgDb) : sqliteSalesRows(db)
}

function sqliteSalesRows(db: Db): SalesRows {
  const one = '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)'
  const insertOne = db.prepare(`INSERT INTO sales ${COLUMNS} VALUES ${one}`)
  const insertMany = db.prepare(`INSERT INTO sales ${COLUMNS} VALUES ${Array(ROWS_PER_INSERT).fill(one).join(', ')}`)
  const chunk: unknown[] = new Array(ROWS_PER_INSERT * SALE_COLUMNS)
  const single: unknown[] = new Array(SALE_COLUMNS)
  // lastInsertRowid, not RETURNING id: RETURNING costs about twice the bare insert on SQLite
  const insertPlayer = db.prepare('INSERT INTO players (name) VALUES (?)')
  const updatePlayer = db.prepare(`UPDATE players SET units = units + ?, staked_cents = staked_cents + ?, won_cents = won_cents + ?,
      first_sale_at = min(coalesce(first_sale_at, ?), ?), last_sale_at = max(coalesce(last_sale_at, ?), ?), last_key = ? WHERE id = ?`)
  const addDay = db.prepare(`INSERT INTO daily_sales (day, emission, units, sales_cents, prizes, prizes_cents) VALUES (?, ?, ?, ?, ?, ?) ${ADD_TO_DAY}`)
  return {
    insert(values, count) {
      let i = 0
      for (; i + ROWS_PER_INSERT <= count; i += ROWS_PER_INSERT) {
        const from = i * SALE_COLUMNS
        for (let k = 0; k < chunk.length; k++) chunk[k] = values[from + k]
        insertMany.run(chunk)
      }
      for (; i < count; i++) {
        for (let k = 0; k < SALE_COLUMNS; k++) single[k] = values[i * SALE_COLUMNS + k]
        insertOne.run(single)
      }
    },
    addToPlayers(players) {
      let updated = 0
      for (const t of players) updated += updatePlayer.run(t.units, t.staked, t.won, t.first, t.first, t.lastAt, t.lastAt, t.head, t.id).changes
      return updated
    },
    newPlayers: (names) => names.map((name) => Number(insertPlayer.run(name).lastInsertRowid)),
    addToDays(days) {
      for (const d of days) addDay.run(d.day, d.emission, d.units, d.sales, d.prizes, d.prizesCents)
    },
  }
}

/** COPY's text form of one value: \N for null, bytea as \\x…, text with its backslashes, tabs and line ends escaped. */
function copyValue(v: unknown): string {
  if (v === null || v === undefined) return '\\N'
  if (typeof v === 'number' || typeof v === 'bigint') return String(v)
  if (v instanceof Uint8Array) return `\\\\x${Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('hex')}`
  return String(v).replace(/[\\\t\n\r]/g, (c) => ({ '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' })[c]!)
}

const COPY_SALES = `COPY sales ${COLUMNS} FROM STDIN`
/** Sales per COPY sent: the server takes one while the next is built (PgDb.postCopyIn). */
const COPY_CHUNK = 10_000

/** Sales `from`…`from + count - 1` of `values` as COPY's text lines. */
function copyText(values: unknown[], from: number, count: number): string {
  const lines: string[] = new Array(count)
  for (let i = 0; i < count; i++) {
    const at = (from + i) * SALE_COLUMNS
    let line = copyValue(values[at])
    for (let k = 1; k < SALE_COLUMNS; k++) line += '\t' + copyValue(values[at + k])
    lines[i] = line
  }
  return lines.join('\n') + '\n'
}

function pgSalesRows(db: PgDb): SalesRows {
  const update = db.prepare(`UPDATE players p SET units = p.units + v.units, staked_cents = p.staked_cents + v.staked,
      won_cents = p.won_cents + v.won, first_sale_at = least(coalesce(p.first_sale_at, v.first), v.first),
      last_sale_at = greatest(coalesce(p.last_sale_at, v.last_at), v.last_at), last_key = v.head
    FROM (SELECT unnest(CAST(? AS bigint[])) AS id, unnest(CAST(? AS bigint[])) AS units, unnest(CAST(? AS bigint[])) AS staked,
                 unnest(CAST(? AS bigint[])) AS won, unnest(CAST(? AS bigint[])) AS first, unnest(CAST(? AS bigint[])) AS last_at,
                 unnest(CAST(? AS bigint[])) AS head) v
    WHERE p.id = v.id`)
  const insertNames = db.prepare('INSERT INTO players (name) SELECT unnest(CAST(? AS text[])) RETURNING id, name').raw()
  const addDays = db.prepare(`INSERT INTO daily_sales (day, emission, units, sales_cents, prizes, prizes_cents)
    SELECT unnest(CAST(? AS text[])), unnest(CAST(? AS bigint[])), unnest(CAST(? AS bigint[])), unnest(CAST(? AS bigint[])),
           unnest(CAST(? AS bigint[])), unnest(CAST(? AS bigint[])) ${ADD_TO_DAY}`)
  return {
    insert(values, count) {
      // each chunk goes to the server as soon as it is built, and is taken while the next is built
      for (let from = 0; from < count; from += COPY_CHUNK) db.postCopyIn(COPY_SALES, copyText(values, from, Math.min(COPY_CHUNK, count - from)))
      db.flush()
    },
    addToPlayers(players) {
      if (players.length === 0) return 0
      const col = (f: (t: PlayerTotals) => number | null) => players.map(f)
      // each player found by its key: a hash of the whole table (about 0.2 s a batch with a whole
      // block's 400,800 players) costs more than looking up the batch's players
      return db.byIndex(() => update.run(col((t) => t.id), col((t) => t.units), col((t) => t.staked), col((t) => t.won), col((t) => t.first), col((t) => t.lastAt), col((t) => t.head)).changes)
    },
    newPlayers(names) {
      if (names.length === 0) return []
      const ids = new Map((insertNames.all([names]) as [number, string][]).map(([id, name]) => [name, id]))
      return names.map((n) => ids.get(n)!)
    },
    addToDays(days) {
      if (days.length === 0) return
      const col = <T,>(f: (d: DayTotals) => T) => days.map(f)
      addDays.run(col((d) => d.day), col((d) => d.emission), col((d) => d.units), col((d) => d.sales), col((d) => d.prizes), col((d) => d.prizesCents))
    },
  }
}
