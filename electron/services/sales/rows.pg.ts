/**
 * A batch's sales rows and totals on PostgreSQL: a binary COPY for the rows, in chunks sent without
 * waiting, and one UPDATE … FROM unnest(…) for all the players, since each statement there is a
 * round trip to the server; or, for a bulk job, the players' totals appended by COPY to
 * player_deltas and folded into their rows when the job ends (docs/ledger.md).
 */
import { binaryCopy, type CopyKind } from '../../ledger/pg/binary-copy'
import type { PgDb } from '../../ledger/pg/pg-db'
import { DELTAS_SUMMED, TOTALS } from '../../ledger/schema/v12.pg'
import { ADD_TO_DAY, COLUMNS, newer, type DayTotals, type PlayerTotals, type SalesRows } from './rows'

const COPY_SALES = `COPY sales ${COLUMNS} FROM STDIN (FORMAT binary)`
/** The types of COLUMNS, in order, as the binary COPY writes them. */
const SALE_KINDS: readonly CopyKind[] = ['int8', 'text', 'int8', 'int8', 'int8', 'int8', 'int8', 'int8', 'bytea']
/** Sales per COPY sent: the server takes one while the next is built (PgDb.postCopyIn). */
const COPY_CHUNK = 10_000
const COPY_DELTAS =
  'COPY player_deltas (player_id, units, staked_cents, won_cents, first_sale_at, last_sale_at, last_key) FROM STDIN (FORMAT binary)'
const DELTA_KINDS: readonly CopyKind[] = ['int8', 'int8', 'int8', 'int8', 'int8', 'int8', 'int8']
/**
 * The fold: the players that have deltas are locked, in order of id (as every batch locks its
 * players: heads.ts), so that no batch appends to them meanwhile; then, in one statement,
 * their deltas are deleted and added to their rows by the rule that player_totals reads with
 * (v12.pg.ts, written once for both): summed in one pass, grouped by player, rather than
 * player by player as the view does for one. A delta appended by another workstation for another
 * player after the lock is neither deleted nor folded: it waits for the next fold.
 */
const FOLD_WORK_MEM = '256MB'
const LOCK_FOLDED =
  'SELECT id FROM players WHERE id IN (SELECT player_id FROM player_deltas) ORDER BY id FOR NO KEY UPDATE'
const FOLD_TOTALS = `WITH gone AS (DELETE FROM player_deltas x WHERE x.player_id = ANY(CAST(? AS bigint[])) RETURNING x.*)
  UPDATE players p SET ${TOTALS.map(([column, value]) => `${column} = ${value}`).join(', ')}
  FROM (SELECT x.player_id, ${DELTAS_SUMMED} FROM gone x GROUP BY x.player_id) d WHERE p.id = d.player_id`

/** Each player's totals as player_deltas' columns, in order. */
function deltaValues(players: readonly PlayerTotals[]): number[] {
  const v: number[] = new Array(players.length * DELTA_KINDS.length)
  let o = 0
  for (const t of players) {
    v[o++] = t.id
    v[o++] = t.units
    v[o++] = t.staked
    v[o++] = t.won
    v[o++] = t.first
    // the head's time: (last_sale_at, last_key) names one sale (a late batch's lastAt may be older)
    v[o++] = t.headSoldAt
    v[o++] = t.head!
  }
  return v
}

export function pgSalesRows(db: PgDb): SalesRows {
  const update = db.prepare(`UPDATE players p SET units = p.units + v.units, staked_cents = p.staked_cents + v.staked,
      won_cents = p.won_cents + v.won, first_sale_at = least(coalesce(p.first_sale_at, v.first), v.first),
      last_sale_at = greatest(coalesce(p.last_sale_at, v.last_at), v.last_at),
      last_key = CASE WHEN ${newer('p.', 'v.head_at', 'v.head')} THEN v.head ELSE p.last_key END
    FROM (SELECT unnest(CAST(? AS bigint[])) AS id, unnest(CAST(? AS bigint[])) AS units, unnest(CAST(? AS bigint[])) AS staked,
                 unnest(CAST(? AS bigint[])) AS won, unnest(CAST(? AS bigint[])) AS first, unnest(CAST(? AS bigint[])) AS last_at,
                 unnest(CAST(? AS bigint[])) AS head, unnest(CAST(? AS bigint[])) AS head_at) v
    WHERE p.id = v.id`)
  // a name another workstation creates at the same time is taken as it made it (its head checked at the batch's end: heads.ts)
  const insertNames = db
    .prepare(
      'INSERT INTO players (name) SELECT unnest(CAST(? AS text[])) ON CONFLICT (name) DO NOTHING RETURNING id, name',
    )
    .raw()
  const idsOf = db.prepare('SELECT id, name FROM players WHERE name = ANY(CAST(? AS text[]))').raw()
  const addDays = db.prepare(`INSERT INTO daily_sales (day, emission, units, sales_cents, prizes, prizes_cents)
    SELECT unnest(CAST(? AS text[])), unnest(CAST(? AS bigint[])), unnest(CAST(? AS bigint[])), unnest(CAST(? AS bigint[])),
           unnest(CAST(? AS bigint[])), unnest(CAST(? AS bigint[])) ${ADD_TO_DAY}`)
  return {
    insert(values, count) {
      // each chunk goes to the server as soon as it is built, and is taken while the next is built
      for (let from = 0; from < count; from += COPY_CHUNK)
        db.postCopyIn(COPY_SALES, binaryCopy(SALE_KINDS, values, from, Math.min(COPY_CHUNK, count - from)))
    },
    settle: () => db.flush(),
    addToPlayers(players) {
      if (players.length === 0) return 0
      const col = (f: (t: PlayerTotals) => number | null) => players.map(f)
      // each player found by its key: a hash of the whole table (about 0.2 s a batch with a whole
      // block's 400,800 players) costs more than looking up the batch's players
      return db.byIndex(
        () =>
          update.run(
            col((t) => t.id),
            col((t) => t.units),
            col((t) => t.staked),
            col((t) => t.won),
            col((t) => t.first),
            col((t) => t.lastAt),
            col((t) => t.head),
            col((t) => t.headSoldAt),
          ).changes,
      )
    },
    newPlayers(names) {
      if (names.length === 0) return []
      const ids = new Map((insertNames.all([names]) as [number, string][]).map(([id, name]) => [name, id]))
      const taken = names.filter((n) => !ids.has(n))
      if (taken.length > 0) for (const [id, name] of idsOf.all([taken]) as [number, string][]) ids.set(name, id)
      return names.map((n) => ids.get(n)!)
    },
    addToDays(days) {
      if (days.length === 0) return
      const col = <T>(f: (d: DayTotals) => T) => days.map(f)
      addDays.run(
        col((d) => d.day),
        col((d) => d.emission),
        col((d) => d.units),
        col((d) => d.sales),
        col((d) => d.prizes),
        col((d) => d.prizesCents),
      )
    },
    appendToPlayers(players) {
      if (players.length === 0) return 0
      return db.copyIn(COPY_DELTAS, binaryCopy(DELTA_KINDS, deltaValues(players), 0, players.length))
    },
    foldPlayers() {
      const folded = db
        .transaction(() => {
          // the deltas of a whole block (6 million rows, 400,000 players) summed in memory, not on disk
          db.exec(`SET LOCAL work_mem = '${FOLD_WORK_MEM}'`)
          const ids = db.prepare(LOCK_FOLDED).pluck().all() as number[]
          return ids.length === 0 ? 0 : db.prepare(FOLD_TOTALS).run([ids]).changes
        })
        .immediate()
      // the deleted deltas' rows and index entries cleared now: until then each look-up of a
      // player walked past its dead ones (an import after a whole block found players 10× slower)
      if (folded > 0 && !db.inTransaction) db.exec('VACUUM player_deltas')
      return folded
    },
    playersChecked: (on) => void db.exec(`SET LOCAL carats.sales_players_checked = ${on ? 'on' : 'off'}`),
  }
}
