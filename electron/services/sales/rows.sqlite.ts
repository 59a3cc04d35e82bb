/**
 * A batch's sales rows and totals on SQLite: prepared multi-row INSERTs and one UPDATE per player
 * (no round trip: a call into the library).
 */
import type { Db } from '../../ledger/db'
import { ADD_TO_DAY, COLUMNS, newer, SALE_COLUMNS, type PlayerTotals, type SalesRows } from './rows'

const ROWS_PER_INSERT = 100

export function sqliteSalesRows(db: Db): SalesRows {
  const one = '(?, ?, ?, ?, ?, ?, ?, ?, ?)'
  const insertOne = db.prepare(`INSERT INTO sales ${COLUMNS} VALUES ${one}`)
  const insertMany = db.prepare(`INSERT INTO sales ${COLUMNS} VALUES ${Array(ROWS_PER_INSERT).fill(one).join(', ')}`)
  const chunk: unknown[] = new Array(ROWS_PER_INSERT * SALE_COLUMNS)
  const single: unknown[] = new Array(SALE_COLUMNS)
  // lastInsertRowid, not RETURNING id: RETURNING costs about twice the bare insert on SQLite
  const insertPlayer = db.prepare('INSERT INTO players (name) VALUES (?)')
  // every SET reads the row as it was: last_key moves only to a sale newer than the stored newest
  const updatePlayer =
    db.prepare(`UPDATE players SET units = units + ?, staked_cents = staked_cents + ?, won_cents = won_cents + ?,
      first_sale_at = min(coalesce(first_sale_at, ?), ?), last_sale_at = max(coalesce(last_sale_at, ?), ?),
      last_key = CASE WHEN ${newer('', '?', '?')} THEN ? ELSE last_key END WHERE id = ?`)
  const addDay = db.prepare(
    `INSERT INTO daily_sales (day, emission, units, sales_cents, prizes, prizes_cents) VALUES (?, ?, ?, ?, ?, ?) ${ADD_TO_DAY}`,
  )
  const addToPlayers = (players: readonly PlayerTotals[]) => {
    let updated = 0
    for (const t of players) {
      const h = t.headSoldAt
      updated += updatePlayer.run(
        t.units,
        t.staked,
        t.won,
        t.first,
        t.first,
        t.lastAt,
        t.lastAt,
        h,
        h,
        t.head,
        t.head,
        t.id,
      ).changes
    }
    return updated
  }
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
    settle: () => {},
    addToPlayers,
    // SQLite has no deltas: its in-place update costs a call into the library, not a round trip
    appendToPlayers: addToPlayers,
    newPlayers: (names) => names.map((name) => Number(insertPlayer.run(name).lastInsertRowid)),
    addToDays(days) {
      for (const d of days) addDay.run(d.day, d.emission, d.units, d.sales, d.prizes, d.prizesCents)
    },
    foldPlayers: () => 0,
    playersChecked: () => {},
  }
}
