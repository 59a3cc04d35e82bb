/**
 * A batch's players locked before their totals are written, on a team ledger (issue 30). Two
 * workstations may sell to one player at once (an import beside a simulation, two imports into
 * two emissions): each batch adds its totals to the players' rows, and keeps as the newest sale
 * the newer of its own and the row's (rows.ts), so the batches may commit in any order. The
 * rows are locked first, in order of id (row-locks.ts lockPlayers), so that two batches never wait
 * for each other in a circle; the locks are held to the commit. A bulk job that appends its totals
 * (player_deltas) writes no players row, and locks none. On SQLite nothing (lockPlayers locks only on
 * PostgreSQL): one writer per file.
 *
 * Until schema 15 this also read the heads of the players' chains of sales again, and relinked a
 * batch's sales onto a head another workstation had moved: the chains are gone (players.ts).
 */
import type { Db } from '../../ledger/db'
import { lockPlayers } from '../../ledger/row-locks'
import type { PlayerEntry } from './player-cache'

/** Locks the batch's players' rows, unless it appends its totals. */
export type PlayerLocks = (players: readonly PlayerEntry[], appending: boolean) => void

export function createPlayerLocks(db: Db): PlayerLocks {
  return (players, appending) => {
    if (!appending && players.length > 0)
      lockPlayers(
        db,
        players.map((t) => t.id),
      )
  }
}
