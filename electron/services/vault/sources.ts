/**
 * What the ledger holds that its vault does not yet: the audit log's entries after the last one
 * sent (every staff action, sign-in, claim step, emission, block, ceremony and verdict change is
 * one), and each emission's sales after the last one sent (units sell in order, so a sale's key
 * is its place). The ledger is the queue: nothing is lost while the vault cannot be reached.
 */
import type { Db } from '../../ledger/db'
import { UNIT_KEY_EMISSION } from '../../ledger/unit-key'
import type { AuditSource, SaleSource } from './format'

/** Up to where a source was sent (the vault's state). */
export interface SentUpTo {
  audit: { seq: number; hash: string } | null
  sales: Record<string, { count: number; last: number }>
}

export interface Backlog {
  entries: number
  sales: number
  /** The time of the oldest entry not yet sent (ISO), if any. */
  oldestEntryAt: string | null
}

export interface VaultSources {
  entriesAfter(seq: number, limit: number): AuditSource[]
  /** The emissions that hold sales, with their codes and block size. */
  emissions(): { emission: number; code: string; blockSize: number; sold: number }[]
  salesAfter(emission: { emission: number; code: string; blockSize: number }, key: number, limit: number): SaleSource[]
  backlog(sent: SentUpTo): Backlog
  /** The entry `seq`'s hash in the ledger, and the last entry's number. */
  entryHash(seq: number): string | null
  lastEntry(): number
  /** Whether the ledger holds the sale of this unit key. */
  holdsSale(key: number): boolean
  /** The folder the audit log says the vault was attached to (its first `vault.attached` entry), if any. */
  attachedFolder(): string | null
}

/** Players' names cached by id (up to NAMES_CACHED; then started afresh). */
const NAMES_CACHED = 1_000_000

function playerNames(db: Db): (id: number) => string {
  const get = db.prepare('SELECT name FROM players WHERE id = ?').pluck()
  const names = new Map<number, string>()
  return (id) => {
    let name = names.get(id)
    if (name === undefined) {
      if (names.size >= NAMES_CACHED) names.clear()
      name = get.get(id) as string
      names.set(id, name)
    }
    return name
  }
}

export function vaultSources(db: Db): VaultSources {
  const entries = db.prepare(
    'SELECT seq, at, actor, action, object, details, hash FROM audit WHERE seq > ? ORDER BY seq LIMIT ?',
  )
  const emissions = db.prepare(
    `SELECT e.emission, e.code, e.definition, (SELECT COALESCE(SUM(b.units_sold), 0) FROM blocks b
       WHERE b.emission = e.emission) AS sold FROM emissions e ORDER BY e.emission`,
  )
  // the players' names from a cache (a name never changes): a join looked each one up again, for each sale
  const sales = db
    .prepare(
      `SELECT unit_key, sale_id, player_id, sold_at, stake_cents, prize_cents, tier, play, events
       FROM sales WHERE unit_key > ? AND unit_key < ? ORDER BY unit_key LIMIT ?`,
    )
    .raw()
  const nameOf = playerNames(db)
  const lastSeq = db.prepare('SELECT COALESCE(MAX(seq), 0) FROM audit').pluck()
  const entryAt = db.prepare('SELECT at FROM audit WHERE seq = ?').pluck()
  const hashOf = db.prepare('SELECT hash FROM audit WHERE seq = ?').pluck()
  const saleAt = db.prepare('SELECT 1 FROM sales WHERE unit_key = ?').pluck()
  const attachedAs = db.prepare("SELECT object FROM audit WHERE action = 'vault.attached' ORDER BY seq LIMIT 1").pluck()
  const listEmissions = () =>
    (emissions.all() as { emission: number; code: string; definition: string; sold: number }[]).map((e) => ({
      emission: e.emission,
      code: e.code,
      blockSize: (JSON.parse(e.definition) as { blockSize: number }).blockSize,
      sold: Number(e.sold),
    }))
  return {
    entriesAfter: (seq, limit) => entries.all(seq, limit) as AuditSource[],
    emissions: listEmissions,
    salesAfter(e, key, limit) {
      const from = Math.max(key, e.emission * UNIT_KEY_EMISSION - 1)
      const rows = sales.all(from, (e.emission + 1) * UNIT_KEY_EMISSION, limit) as unknown[][]
      for (const r of rows) {
        r[0] = Number(r[0])
        r[2] = nameOf(r[2] as number)
      }
      return rows as SaleSource[]
    },
    backlog(sent) {
      const last = Number(lastSeq.get())
      const after = sent.audit?.seq ?? 0
      const salesBehind = listEmissions().reduce((n, e) => n + e.sold - (sent.sales[e.emission]?.count ?? 0), 0)
      return {
        entries: Math.max(0, last - after),
        sales: Math.max(0, salesBehind),
        oldestEntryAt: last > after ? ((entryAt.get(after + 1) as string | undefined) ?? null) : null,
      }
    },
    entryHash: (seq) => (hashOf.get(seq) as string | undefined) ?? null,
    lastEntry: () => Number(lastSeq.get()),
    holdsSale: (key) => saleAt.get(key) !== undefined,
    attachedFolder() {
      const object = attachedAs.get() as string | undefined
      return object === undefined ? null : object.slice('vault:'.length)
    },
  }
}
