/**
 * The ledger's data checked against itself: every counter recomputed from the `sales` rows
 * (blocks' sold counts, tier counters, players' totals and newest sales, days' totals), and
 * every sold unit's tier and prize re-derived from its block's secret, and the claims held against
 * the sales at or above their emission's threshold (check-claims.ts). One pass over the sales in
 * unit_key order, block by block: each row's columns reach a JavaScript function (how, per engine:
 * check-rows.ts), which counts into typed arrays; then the counts are compared with the
 * stored tables. All reads in one snapshot, so that another connection's writes do not show halfway. PRAGMA integrity_check and the audit chain are the
 * caller's. A block whose secret cannot be opened throws the catalog's AppError (a wrong key).
 */
import { LOSING } from '../../../game-core/block'
import { formatSerial } from '../../../game-core/serial'
import type { LedgerDataCheck, LedgerProblem, LedgerProblemKind, LedgerProblemRow } from '../../contract/types'
import type { Db } from '../../ledger/db'
import { UNIT_KEY_BLOCK, UNIT_KEY_EMISSION } from '../../ledger/unit-key'
import type { Catalog } from '../catalog'
import { compareClaims, DueClaims, thresholdsOf } from './check-claims'
import type { SaleHook } from './check-rows'
import { inReadSnapshot, rowFeeds } from './check-engines'
import { checkLiability } from './check-liability'
import type { Clock } from '../common'

// the result's types are the contract's (it crosses IPC); re-exported for the services that use the check
export type { LedgerDataCheck, LedgerProblem, LedgerProblemKind, LedgerProblemRow }
export type LedgerValue = LedgerProblem['stored']

export interface LedgerCheckOptions {
  /** Re-derive each sold unit's tier and prize from its block's secret (default true). */
  prizes?: boolean
  /** Sales rows checked so far, of about `total`; called while a statement runs, so it must not use the connection. */
  progress?: (done: number, total: number) => void
}

export const MAX_LISTED = 50
const DAY_MS = 86_400_000
/** Per player: units, staked, won, first, last, the newest sale's key (the last sold at `last`), found in players. */
const P_STRIDE = 7
/** Player ids counted in the typed array (ids are given in order; a larger one is an edit, reported as not found). */
const MAX_PLAYER_ID = 2 ** 26
const PROGRESS_EVERY = 0x10000

/** The UTC day of a sale, as services/sales/service.ts writes it into daily_sales (its writeRows has it inline). */
function saleDay(soldAtMs: number): string {
  const d = Math.floor(soldAtMs / DAY_MS)
  return Number.isFinite(d) ? new Date(d * DAY_MS).toISOString().slice(0, 10) : String(soldAtMs)
}

function keySerial(key: number, blockSize: number): string {
  const id = {
    emission: Math.floor(key / UNIT_KEY_EMISSION),
    block: Math.floor(key / UNIT_KEY_BLOCK) % 1000,
    unit: key % UNIT_KEY_BLOCK,
  }
  try {
    return formatSerial(id, blockSize)
  } catch {
    return `unit key ${key}`
  }
}

const tierName = (t: unknown, amounts?: Float64Array) =>
  t === null || t === LOSING
    ? 'losing'
    : `tier ${String(t)}${amounts && typeof t === 'number' && amounts[t] ? ` (${amounts[t]} cents)` : ''}`

class Problems {
  readonly list: LedgerProblem[] = []
  readonly byKind: Partial<Record<LedgerProblemKind, number>> = {}
  count = 0

  /** Counts one; makes and lists it only while fewer than MAX_LISTED of its kind are listed. */
  add(kind: LedgerProblemKind, make: () => Omit<LedgerProblem, 'kind'>): void {
    const n = (this.byKind[kind] ?? 0) + 1
    this.byKind[kind] = n
    this.count++
    if (n <= MAX_LISTED) this.list.push({ kind, ...make() })
  }
}

interface BlockScan {
  emission: number
  block: number
  size: number
  /** the re-derived tier of each unit, or null when not re-derived */
  table: Uint8Array | null
  /** prize per tier code, 0 for LOSING */
  amounts: Float64Array
  tierSold: Float64Array
  /** the emission's claim threshold: a sale whose prize reaches it has a claim (Infinity: none is due) */
  threshold: number
  /** stored tiers outside the prize table: value → rows */
  oddTiers: Map<unknown, number>
  rows: number
}

/** What the rows of no block (keys between and around the blocks') are counted into. */
const noBlock = (): BlockScan => ({
  emission: 0,
  block: 0,
  size: 0,
  table: null,
  amounts: new Float64Array(256),
  tierSold: new Float64Array(0),
  threshold: Infinity,
  oddTiers: new Map(),
  rows: 0,
})

/** The one pass: SQLite calls row() with each sale's columns. */
class SaleScan {
  b: BlockScan = noBlock()
  base = 0
  expect = 0
  stray = false
  rows = 0
  rederived = 0
  readonly players: Float64Array
  readonly strayPlayers = new Map<unknown, number>()
  /** the sales at or above their emission's claim threshold (check-claims.ts) */
  readonly due = new DueClaims()
  /** per day × 1e6 + emission: units, sales_cents, prizes, prizes_cents, a sale time of the day, the emission */
  readonly days = new Map<number, Float64Array>()
  private dayKey = NaN
  private day: Float64Array = new Float64Array(6)

  constructor(
    readonly problems: Problems,
    readonly prizes: boolean,
    readonly maxId: number,
    readonly progress: (done: number) => void,
  ) {
    this.players = new Float64Array((maxId + 1) * P_STRIDE)
    for (let o = 0; o < this.players.length; o += P_STRIDE) {
      this.players[o + 3] = Infinity
      this.players[o + 4] = -Infinity
    }
  }

  begin(b: BlockScan, base: number, stray: boolean): void {
    this.b = b
    this.base = base
    this.expect = 0
    this.stray = stray
  }

  row(key: number, pid: number, soldAt: number, stake: number, prize: number, tier: number | null): number {
    const b = this.b
    const unit = key - this.base
    if (unit !== this.expect) this.outOfStep(key, unit)
    this.expect = unit + 1
    b.rows++
    // a losing unit has no counter
    if (tier !== null) {
      if (tier >= 0 && tier < b.tierSold.length && Number.isInteger(tier)) b.tierSold[tier]++
      else b.oddTiers.set(tier, (b.oddTiers.get(tier) ?? 0) + 1)
    }
    if (unit >= b.size) this.unknownUnit(key)
    else if (b.table !== null) {
      const code = b.table[unit]
      this.rederived++
      if (code === LOSING ? tier !== null : tier !== code) this.tierMismatch(key, tier, code)
      if (prize !== b.amounts[code])
        this.prizeMismatch(key, prize, b.amounts[code], `its block's secret, making it ${tierName(code)},`)
    } else if (!this.prizes) {
      const due = tier === null ? 0 : b.amounts[tier]
      if (prize !== due) this.prizeMismatch(key, prize, due ?? null, `its stored ${tierName(tier)}`)
    }
    if (prize >= b.threshold) this.due.add(key, pid, soldAt, prize)
    this.player(key, pid, soldAt, stake, prize)
    this.dayOf(key, soldAt, stake, prize)
    if ((++this.rows & (PROGRESS_EVERY - 1)) === 0) this.progress(this.rows)
    return 1
  }

  private player(key: number, pid: number, soldAt: number, stake: number, prize: number): void {
    if (!(pid >= 1 && pid <= this.maxId && Number.isInteger(pid))) {
      this.strayPlayers.set(pid, (this.strayPlayers.get(pid) ?? 0) + 1)
      return
    }
    const p = this.players
    const o = pid * P_STRIDE
    p[o]++
    p[o + 1] += stake
    p[o + 2] += prize
    if (soldAt < p[o + 3]) p[o + 3] = soldAt
    // the newest sale by (time of sale, unit key): what players.last_key must name
    if (soldAt > p[o + 4] || (soldAt === p[o + 4] && key > p[o + 5])) {
      p[o + 4] = soldAt
      p[o + 5] = key
    }
  }

  private dayOf(key: number, soldAt: number, stake: number, prize: number): void {
    const emission = this.stray ? Math.floor(key / UNIT_KEY_EMISSION) : this.b.emission
    const k = Math.floor(soldAt / DAY_MS) * 1e6 + emission
    if (k !== this.dayKey) {
      this.dayKey = k
      let acc = this.days.get(k)
      if (!acc) this.days.set(k, (acc = Float64Array.of(0, 0, 0, 0, soldAt, emission)))
      this.day = acc
    }
    const d = this.day
    d[0]++
    d[1] += stake
    if (prize > 0) {
      d[2]++
      d[3] += prize
    }
  }

  private outOfStep(key: number, unit: number): void {
    const { b, expect: from } = this
    if (this.stray || unit < from || unit >= b.size) return
    const missing = unit - from > 1 ? `units ${from} to ${unit - 1}` : `unit ${from}`
    this.unitProblem(
      'UNIT_GAP',
      key - unit + from,
      'unit',
      unit,
      from,
      (serial) =>
        `block ${b.emission}/${b.block} has no sale of ${missing} (${serial}), yet unit ${unit} is sold: units sell in order`,
    )
  }

  private unknownUnit(key: number): void {
    const { b, stray } = this
    this.unitProblem('UNKNOWN_UNIT', key, 'unit_key', key, null, (serial) =>
      stray
        ? `sale ${serial} is of a block that the ledger does not have`
        : `sale ${serial} is of unit ${key - this.base}, beyond the ${b.size} units of block ${b.emission}/${b.block}`,
    )
  }

  private tierMismatch(key: number, tier: number | null, code: number): void {
    const derived = code === LOSING ? null : code
    const a = this.b.amounts
    this.unitProblem(
      'TIER_MISMATCH',
      key,
      'tier',
      tier,
      derived,
      (serial) =>
        `sale ${serial} is stored as ${tierName(tier, a)}, but its block's secret gives ${tierName(derived, a)}`,
    )
  }

  private prizeMismatch(key: number, prize: number, due: number | null, what: string): void {
    this.unitProblem(
      'PRIZE_MISMATCH',
      key,
      'prize_cents',
      prize,
      due,
      (serial) =>
        `sale ${serial} is stored with a prize of ${prize} cents, but ${what} pays ${due === null ? 'nothing' : `${due} cents`}`,
    )
  }

  private unitProblem(
    kind: LedgerProblemKind,
    key: number,
    field: string,
    stored: LedgerValue,
    recomputed: LedgerValue,
    say: (serial: string) => string,
  ): void {
    const { b, stray } = this
    this.problems.add(kind, () => {
      const serial = keySerial(key, stray ? UNIT_KEY_BLOCK : b.size)
      const row: LedgerProblemRow = { ...(stray ? {} : { emission: b.emission, block: b.block }), serial, unitKey: key }
      if (kind === 'TIER_MISMATCH') row.tier = stored as number | null
      return { row, field, stored, recomputed, message: say(serial) }
    })
  }
}

/** Each block's sales scanned, then its sold count and tier counters compared; the keys of no block are scanned too. */
function scanBlocks(db: Db, catalog: Catalog, scan: SaleScan): void {
  const blocks = db
    .prepare('SELECT emission, block, secret IS NOT NULL AS sealed, units_sold FROM blocks ORDER BY emission, block')
    .all() as { emission: number; block: number; sealed: number; units_sold: number }[]
  const feeds = rowFeeds(db)
  const sale: SaleHook = (k, p, s, st, pr, t) => scan.row(k, p, s, st, pr, t)
  const any = db.prepare('SELECT 1 FROM sales WHERE unit_key >= ? AND unit_key < ? LIMIT 1').pluck()
  const tiersOf = db.prepare('SELECT tier, sold FROM block_tiers WHERE emission = ? AND block = ?')
  const thresholds = thresholdsOf(db)
  let from = -Infinity
  const strays = (to: number) => {
    scan.begin(noBlock(), from, true)
    if (to > from) feeds.sales(from, to, sale)
  }
  for (const row of blocks) {
    const lo = row.emission * UNIT_KEY_EMISSION + row.block * UNIT_KEY_BLOCK
    strays(lo)
    const def = catalog.definition(row.emission)
    const amounts = new Float64Array(256)
    def.tiers.forEach((t, i) => (amounts[i] = t.amountCents))
    const sold = any.get(lo, lo + UNIT_KEY_BLOCK) !== undefined
    // the secret is opened only for a block with sales; a wrong key throws here
    const table = sold && scan.prizes && row.sealed ? catalog.deriver(row.emission, row.block).tiers : null
    const tierSold = new Float64Array(def.tiers.length)
    // written in noBlock's order: one shape for every block (a spread made a second one, and the scan a second slower)
    const { emission, block } = row
    const threshold = thresholds.get(emission) ?? Infinity
    const b: BlockScan = {
      emission,
      block,
      size: def.blockSize,
      table,
      amounts,
      tierSold,
      threshold,
      oddTiers: new Map(),
      rows: 0,
    }
    scan.begin(b, lo, false)
    if (sold) feeds.sales(lo, lo + UNIT_KEY_BLOCK, sale)
    compareBlock(
      scan.problems,
      b,
      row.units_sold,
      tiersOf.all(row.emission, row.block) as { tier: number; sold: number }[],
    )
    from = lo + UNIT_KEY_BLOCK
  }
  strays(Infinity)
}

function compareBlock(
  problems: Problems,
  b: BlockScan,
  unitsSold: number,
  stored: { tier: number; sold: number }[],
): void {
  const where = `block ${b.emission}/${b.block}`
  if (unitsSold !== b.rows) {
    problems.add('BLOCK_UNITS_SOLD', () => ({
      row: { emission: b.emission, block: b.block },
      field: 'units_sold',
      stored: unitsSold,
      recomputed: b.rows,
      message: `${where} says ${unitsSold} units sold (blocks.units_sold), but the sales table has ${b.rows} of its units`,
    }))
  }
  const counted = new Map<unknown, number>(b.oddTiers)
  b.tierSold.forEach((n, t) => counted.set(t, n))
  const compare = (tier: unknown, had: number | null) => {
    const n = counted.get(tier) ?? 0
    counted.delete(tier)
    if ((had ?? 0) === n) return
    problems.add('TIER_SOLD', () => ({
      row: { emission: b.emission, block: b.block, tier: typeof tier === 'number' ? tier : null },
      field: 'sold',
      stored: had,
      recomputed: n,
      message:
        `${where} counts ${had ?? 'no row for'} ${tierName(tier, b.amounts)} units sold (block_tiers.sold), ` +
        `but the sales table has ${n}`,
    }))
  }
  for (const r of stored) compare(r.tier, r.sold)
  for (const tier of [...counted.keys()]) compare(tier, null)
}

const PLAYER_FIELDS = ['units', 'staked_cents', 'won_cents', 'first_sale_at', 'last_sale_at'] as const

/** Each players row against its sales' sums, and its last_key against its newest sale. */
function comparePlayers(db: Db, scan: SaleScan, problems: Problems): void {
  const p = scan.players
  const issues: { id: number; field: string; stored: number | null; recomputed: number | null }[] = []
  const heads: { id: number; stored: number | null; newest: number | null }[] = []
  rowFeeds(db).players((id, units, staked, won, first, last, lastKey) => {
    if (!(id >= 1 && id <= scan.maxId)) return 0
    const o = id * P_STRIDE
    p[o + 6] = 1
    const n = p[o]
    const got = [n, p[o + 1], p[o + 2], n ? p[o + 3] : null, n ? p[o + 4] : null]
    const had = [units, staked, won, first, last]
    for (let i = 0; i < had.length; i++) {
      if (had[i] !== got[i]) issues.push({ id, field: PLAYER_FIELDS[i], stored: had[i], recomputed: got[i] })
    }
    const newest = n ? p[o + 5] : null
    if (lastKey !== newest) heads.push({ id, stored: lastKey, newest })
    return 0
  })
  const nameOf = db.prepare('SELECT name FROM players WHERE id = ?').pluck()
  for (const i of issues) {
    problems.add('PLAYER_TOTALS', () => {
      const name = nameOf.get(i.id) as string
      return {
        row: { player: name, playerId: i.id },
        field: i.field,
        stored: i.stored,
        recomputed: i.recomputed,
        message: `player ${name}: ${i.field} is ${i.stored ?? 'empty'}, but the player's sales give ${i.recomputed ?? 'none'}`,
      }
    })
  }
  for (const h of heads) problems.add('PLAYER_CHAIN', () => notNewest(h, nameOf.get(h.id) as string))
  // sales of ids that no players row has
  for (let o = P_STRIDE; o < p.length; o += P_STRIDE)
    if (p[o] > 0 && p[o + 6] === 0) scan.strayPlayers.set(o / P_STRIDE, p[o])
  for (const [id, n] of scan.strayPlayers) {
    problems.add('PLAYER_TOTALS', () => ({
      row: { playerId: typeof id === 'number' ? id : undefined },
      field: 'id',
      stored: null,
      recomputed: n,
      message: `${n} sale${n > 1 ? 's' : ''} name player id ${String(id)}, which is not in the players table`,
    }))
  }
}

/**
 * A player whose last_key is not the newest of their sales by (time of sale, unit key): the last
 * sale that last-game recall shows first (players/service.ts reads the sales on their index, in that order).
 */
function notNewest(
  h: { id: number; stored: number | null; newest: number | null },
  player: string,
): Omit<LedgerProblem, 'kind'> {
  const name = (k: number | null) => (k === null ? 'no sale' : keySerial(k, UNIT_KEY_BLOCK))
  return {
    row: { player, playerId: h.id, unitKey: h.stored ?? undefined },
    field: 'last_key',
    stored: h.stored,
    recomputed: h.newest,
    message:
      `player ${player}: last_key names ${name(h.stored)} as the player's newest sale, but the newest of the player's sales ` +
      `(by time of sale, then serial) is ${name(h.newest)}`,
  }
}

function compareDays(db: Db, scan: SaleScan, problems: Problems): void {
  const counted = new Map<string, { day: string; emission: number; v: number[] }>()
  for (const a of scan.days.values()) {
    const day = saleDay(a[4])
    counted.set(`${day}/${a[5]}`, { day, emission: a[5], v: [...a.subarray(0, 4)] })
  }
  const stored = db
    .prepare('SELECT day, emission, units, sales_cents, prizes, prizes_cents FROM daily_sales')
    .raw()
    .all() as [string, number, ...number[]][]
  const fields = ['units', 'sales_cents', 'prizes', 'prizes_cents']
  const compare = (day: string, emission: number, had: (number | null)[], got: number[]) => {
    fields.forEach((field, i) => {
      if ((had[i] ?? 0) === got[i]) return
      problems.add('DAY_TOTALS', () => ({
        row: { day, emission },
        field,
        stored: had[i],
        recomputed: got[i],
        message: `day ${day}, emission ${emission}: ${field} is ${had[i] ?? 'not recorded'}, but that day's sales give ${got[i]}`,
      }))
    })
  }
  for (const [day, emission, ...had] of stored) {
    const k = `${day}/${emission}`
    compare(day, emission, had, counted.get(k)?.v ?? [0, 0, 0, 0])
    counted.delete(k)
  }
  for (const c of counted.values()) compare(c.day, c.emission, [null, null, null, null], c.v)
}

/**
 * The ledger's counters recomputed from its sales, and (unless `prizes: false`) each sold unit's
 * tier and prize re-derived from its block's secret; without, each prize is held against its
 * stored tier. Throws the catalog's AppError when a block's secret cannot be opened.
 */
export function checkLedgerData(
  deps: { db: Db; catalog: Catalog; clock?: Clock },
  opts: LedgerCheckOptions = {},
): LedgerDataCheck {
  const { db, catalog } = deps
  const problems = new Problems()
  return inReadSnapshot(db, () => {
    const maxId = Math.min(
      MAX_PLAYER_ID,
      (db.prepare('SELECT max(id) FROM players').pluck().get() as number | null) ?? 0,
    )
    const total = (db.prepare('SELECT coalesce(sum(units_sold), 0) FROM blocks').pluck().get() as number) || 0
    const progress = opts.progress ? (done: number) => opts.progress!(done, Math.max(done, total)) : () => {}
    const scan = new SaleScan(problems, opts.prizes !== false, maxId, progress)
    scanBlocks(db, catalog, scan)
    comparePlayers(db, scan, problems)
    compareDays(db, scan, problems)
    compareClaims(
      db,
      scan.due,
      (kind, make) => problems.add(kind, make),
      (key) => keySerial(key, UNIT_KEY_BLOCK),
    )
    const liability = checkLiability({ db, catalog, clock: deps.clock ?? (() => new Date()) }, (kind, make) =>
      problems.add(kind, make),
    )
    opts.progress?.(scan.rows, Math.max(scan.rows, total))
    const { list, count, byKind } = problems
    return {
      ok: count === 0,
      salesRows: scan.rows,
      unitsRederived: scan.rederived,
      problems: list,
      problemCount: count,
      problemsByKind: byKind,
      liability,
    }
  })
}
