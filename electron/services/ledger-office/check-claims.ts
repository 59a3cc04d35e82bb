/**
 * The ledger check's claims (check.ts, electron/services/claims/README.md): every sold unit whose stored prize
 * reaches its emission's claim threshold has exactly one claim, of the same emission, player,
 * prize and time of sale, and no claim is without such a sale. The check's one pass over the
 * sales collects the due sales (one comparison a row: they are few, tens in a block at 5,000 €,
 * about 81,000 at 100 €); the claims are then read once in unit_key order and merged with them.
 */
import type { LedgerProblem, LedgerProblemKind } from '../../contract/types'
import type { Db } from '../../ledger/db'
import { UNIT_KEY_BLOCK, UNIT_KEY_EMISSION } from '../../ledger/unit-key'

type Report = (kind: LedgerProblemKind, make: () => Omit<LedgerProblem, 'kind'>) => void

/** The sales the scan found at or above their emission's threshold, in unit_key order: key, player id, sold at, prize. */
export class DueClaims {
  readonly rows: number[] = []

  add(key: number, playerId: number, soldAt: number, prize: number): void {
    this.rows.push(key, playerId, soldAt, prize)
  }
}

/** Each emission's claim threshold (an emission row without one, or none: never due). */
export function thresholdsOf(db: Db): Map<number, number> {
  const rows = db.prepare('SELECT emission, claim_threshold_cents FROM emissions').raw().all() as [number, number][]
  return new Map(rows)
}

const FIELDS = ['emission', 'player_id', 'sold_at', 'prize_cents'] as const

/** The due sales merged with the claims table, each disagreement reported. */
export function compareClaims(db: Db, due: DueClaims, report: Report, serialOf: (key: number) => string): void {
  const claims = db
    .prepare('SELECT unit_key, emission, player_id, sold_at, prize_cents FROM claims ORDER BY unit_key')
    .raw()
    .all() as number[][]
  const saleOf = db.prepare('SELECT prize_cents FROM sales WHERE unit_key = ?').pluck()
  const threshold = thresholdsOf(db)
  const d = due.rows
  let i = 0
  let c = 0
  while (i < d.length || c < claims.length) {
    const dueKey = i < d.length ? d[i] : Infinity
    const claim = c < claims.length ? claims[c] : null
    const claimKey = claim ? claim[0] : Infinity
    if (dueKey < claimKey) missing(report, serialOf, d[i], d[i + 3], threshold)
    else if (claimKey < dueKey)
      withoutSale(report, serialOf, claim!, saleOf.get(claimKey) as number | undefined, threshold)
    else mismatches(report, serialOf, claim!, [Math.floor(dueKey / UNIT_KEY_EMISSION), d[i + 1], d[i + 2], d[i + 3]])
    if (dueKey <= claimKey) i += 4
    if (claimKey <= dueKey) c++
  }
}

const rowOf = (key: number, serialOf: (key: number) => string) => ({
  emission: Math.floor(key / UNIT_KEY_EMISSION),
  block: Math.floor(key / UNIT_KEY_BLOCK) % 1000,
  serial: serialOf(key),
  unitKey: key,
})

function missing(
  report: Report,
  serialOf: (key: number) => string,
  key: number,
  prize: number,
  threshold: Map<number, number>,
): void {
  report('CLAIM_MISSING', () => {
    const row = rowOf(key, serialOf)
    return {
      row,
      field: 'unit_key',
      stored: null,
      recomputed: prize,
      message: `sale ${row.serial} won ${prize} cents, at or above emission ${row.emission}'s claim threshold of ${threshold.get(row.emission)} cents, but has no claim: it would be paid without its winner's identity checked`,
    }
  })
}

function withoutSale(
  report: Report,
  serialOf: (key: number) => string,
  claim: number[],
  prize: number | undefined,
  threshold: Map<number, number>,
): void {
  report('CLAIM_WITHOUT_SALE', () => {
    const row = rowOf(claim[0], serialOf)
    const limit = threshold.get(row.emission)
    const why =
      prize === undefined
        ? 'is not sold'
        : `won ${prize} cents, below emission ${row.emission}'s claim threshold of ${limit ?? 'no'} cents`
    return {
      row,
      field: 'unit_key',
      stored: claim[4],
      recomputed: prize ?? null,
      message: `a claim of ${claim[4]} cents names ${row.serial}, which ${why}: a claim is made only with a sale at or above the threshold`,
    }
  })
}

function mismatches(report: Report, serialOf: (key: number) => string, claim: number[], sale: number[]): void {
  FIELDS.forEach((field, f) => {
    const stored = claim[f + 1]
    const recomputed = sale[f]
    if (stored === recomputed) return
    report('CLAIM_MISMATCH', () => {
      const row = rowOf(claim[0], serialOf)
      return {
        row,
        field,
        stored,
        recomputed,
        message: `the claim on ${row.serial} has ${field} ${stored}, but its sale has ${recomputed}`,
      }
    })
  })
}
