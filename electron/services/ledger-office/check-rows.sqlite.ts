/** The ledger check's rows on SQLite: a user function called with each row's columns (check-rows.ts). */
import type { Db } from '../../ledger/db'
import { PLAYER_COLUMNS, SALE_COLUMNS, type Num, type PlayerHook, type RowFeeds, type SaleHook } from './check-rows'

interface Hooks {
  sale: SaleHook | null
  player: PlayerHook | null
}

/** The functions SQLite calls, registered once per connection; each feed points them at its own state. */
const hooksOf = new WeakMap<Db, Hooks>()
function sqliteHooks(db: Db): Hooks {
  let h = hooksOf.get(db)
  if (!h) {
    const hk: Hooks = (h = { sale: null, player: null })
    db.function(
      'carats_check_sale',
      { directOnly: true },
      (k: number, p: number, s: number, st: number, pr: number, t: Num) => hk.sale!(k, p, s, st, pr, t),
    )
    db.function(
      'carats_check_player',
      { directOnly: true },
      (i: number, u: number, st: number, w: number, f: Num, l: Num, k: Num) => hk.player!(i, u, st, w, f, l, k),
    )
    hooksOf.set(db, h)
  }
  return h
}

export function sqliteFeeds(db: Db): RowFeeds {
  const h = sqliteHooks(db)
  const range = db
    .prepare(
      `SELECT count(*) FROM sales WHERE unit_key >= ? AND unit_key < ?
    AND carats_check_sale(${SALE_COLUMNS})`,
    )
    .pluck()
  const players = db.prepare(`SELECT count(*) FROM player_totals WHERE carats_check_player(${PLAYER_COLUMNS})`).pluck()
  const using = <T>(key: keyof Hooks, hook: T, run: () => void) => {
    ;(h as unknown as Record<string, T | null>)[key] = hook
    try {
      run()
    } finally {
      h[key] = null
    }
  }
  return {
    sales: (lo, hi, sale) => using('sale', sale, () => range.get(lo, hi)),
    players: (player) => using('player', player, () => players.get()),
  }
}

/** `fn`'s reads in one snapshot: one deferred transaction. */
export const sqliteSnapshot = <R>(db: Db, fn: () => R): R => db.transaction(fn)()
