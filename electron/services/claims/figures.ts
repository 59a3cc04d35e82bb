/**
 * Improbable winners (README.md). For a claimant who bought n_e units of emission e, each
 * unit reaches e's claim threshold with probability p_e = (units of a block at or above the
 * threshold) ÷ (units of a block), from the prize table. Their claims then number about a Poisson
 * variable of mean λ = Σ n_e·p_e (units are drawn without replacement from blocks of 8 million,
 * so the binomial and Poisson agree to well under 1 %). The chance of at least k claims is the
 * Poisson tail P(X ≥ k). A player is flagged:
 * - `improbable` when k ≥ IMPROBABLE_FROM (2) and P(X ≥ k) < IMPROBABLE_BELOW. One claim is not flagged however
 *   few units were bought: every top prize is won by somebody, most often by someone who bought
 *   few units. Two or more is the pattern of insiders who collect for others.
 * - `many-claims` from MANY_CLAIMS claims, whatever their odds (how auditors found ordinary
 *   players with dozens of claims);
 * - `related` when the account is in the register of related parties.
 */
import { WINNER_CUT_OFFS, type WinnerFigures, type WinnerFlag } from '../../contract/claims-types'
import type { Db } from '../../ledger/db'
import { jsonValues } from '../../ledger/dialect'
import { UNIT_KEY_EMISSION } from '../../ledger/unit-key'
import type { Catalog } from '../catalog'
import { RELATED_SQL } from './related-parties'

/** One chance in a million: below it, k ≥ IMPROBABLE_FROM claims on these units are improbable. */
export const {
  improbableBelow: IMPROBABLE_BELOW,
  improbableFrom: IMPROBABLE_FROM,
  manyClaims: MANY_CLAIMS,
} = WINNER_CUT_OFFS

/** log(e^-λ λ^i / i!) */
function logPoissonTerm(lambda: number, i: number): number {
  let log = -lambda + i * Math.log(lambda)
  for (let j = 2; j <= i; j++) log -= Math.log(j)
  return log
}

/**
 * P(X ≥ k) for X Poisson of mean λ. Above the mean (k > λ) the tail's terms fall from the first,
 * so they are summed from k up: exact for the tiny tails that matter. At or below the mean the
 * tail holds most of the mass: it is 1 − P(X < k), the terms below k summed from k − 1 down
 * (e^-λ alone underflows past λ ≈ 745, where that sum is 0 and the tail 1).
 */
export function poissonTail(lambda: number, k: number): number {
  if (k <= 0) return 1
  if (lambda <= 0) return 0
  if (k <= lambda) return Math.max(0, 1 - sumTerms(lambda, k - 1, -1))
  return Math.min(1, sumTerms(lambda, k, 1))
}

/** Σ of the Poisson terms from i = from, going `step` (1 up, −1 down to 0), while they still count. */
function sumTerms(lambda: number, from: number, step: 1 | -1): number {
  let term = Math.exp(logPoissonTerm(lambda, from))
  let sum = 0
  for (let i = from; i >= 0 && term > 0; i += step) {
    sum += term
    if (term < sum * 1e-17) break
    // e^-λ λ^(i+1)/(i+1)! = term · λ/(i+1); going down, term · i/λ
    term *= step === 1 ? lambda / (i + 1) : i / lambda
  }
  return sum
}

interface ClaimantRow {
  id: number
  name: string
  units: number
  claims: number
  claims_cents: number
  related: number
}

export interface ClaimFigures {
  /** One player's figures (by account id), flagged or not. */
  of(playerId: number): WinnerFigures
  /** Every flagged claimant, least probable first. */
  flagged(): WinnerFigures[]
}

export function createClaimFigures({ db, catalog }: { db: Db; catalog: Catalog }): ClaimFigures {
  const claimant = `SELECT p.id, p.name, p.units, count(c.unit_key) AS claims, coalesce(sum(c.prize_cents), 0) AS claims_cents,
                           ${RELATED_SQL} AS related
                    FROM player_totals p LEFT JOIN claims c ON c.player_id = p.id`
  // grouped by every column read: a view's key does not stand for its other columns, as a table's does
  const one = db.prepare(`${claimant} WHERE p.id = ? GROUP BY p.id, p.name, p.units`)
  const candidates = db.prepare(`${claimant} WHERE p.id IN (SELECT player_id FROM claims) GROUP BY p.id, p.name, p.units
                                 HAVING count(c.unit_key) >= ${Math.min(IMPROBABLE_FROM, MANY_CLAIMS)} OR ${RELATED_SQL}`)
  // the players' units per emission, counted on the index sales_by_player (its entries hold the unit key)
  const unitsOf = db
    .prepare(
      `SELECT s.player_id, s.unit_key / ${UNIT_KEY_EMISSION} AS emission, count(*) AS units FROM sales s
    WHERE s.player_id IN (SELECT CAST(value AS BIGINT) FROM ${jsonValues(db)}) GROUP BY s.player_id, s.unit_key / ${UNIT_KEY_EMISSION}`,
    )
    .raw()
  const soldEmissions = db.prepare('SELECT emission FROM blocks GROUP BY emission HAVING sum(units_sold) > 0').pluck()
  const odds = new Map<number, number>()

  /** Σ n_e·p_e of each player: n·p when every emission sold from has one p (no count per emission then). */
  function expectedOf(players: { id: number; units: number }[]): Map<number, number> {
    const p = sharedOdds()
    if (p !== null) return new Map(players.map((r) => [r.id, r.units * p]))
    return expectedClaims(unitsOf.all(JSON.stringify(players.map((r) => r.id))) as [number, number, number][])
  }

  /** The chance p_e of the emissions sold from, when they all have the same (null when they differ). */
  function sharedOdds(): number | null {
    const all = new Set((soldEmissions.all() as number[]).map(claimOdds))
    return all.size > 1 ? null : ([...all][0] ?? 0)
  }

  /** p_e: the chance that one unit of emission e reaches its claim threshold. */
  function claimOdds(emission: number): number {
    let p = odds.get(emission)
    if (p === undefined) {
      const def = catalog.definition(emission)
      const threshold = catalog.facts(emission).claim_threshold_cents
      p = def.tiers.filter((t) => t.amountCents >= threshold).reduce((n, t) => n + t.count, 0) / def.blockSize
      odds.set(emission, p)
    }
    return p
  }

  /** Σ n_e·p_e of each player in `rows` (player, emission, units). */
  function expectedClaims(rows: [number, number, number][]): Map<number, number> {
    const expected = new Map<number, number>()
    for (const [id, emission, units] of rows) expected.set(id, (expected.get(id) ?? 0) + units * claimOdds(emission))
    return expected
  }

  function figures(r: ClaimantRow, expected: number): WinnerFigures {
    const probability = poissonTail(expected, r.claims)
    const flags: WinnerFlag[] = []
    if (r.claims >= IMPROBABLE_FROM && probability < IMPROBABLE_BELOW) flags.push('improbable')
    if (r.claims >= MANY_CLAIMS) flags.push('many-claims')
    if (r.related) flags.push('related')
    return {
      player: r.name,
      units: r.units,
      claims: r.claims,
      claimsCents: r.claims_cents,
      expectedClaims: expected,
      probability,
      flags,
    }
  }

  return {
    of(playerId) {
      const r = one.get(playerId) as ClaimantRow | undefined
      if (!r) throw new Error(`player id ${playerId} is not in the ledger`)
      return figures(r, expectedOf([r]).get(r.id) ?? 0)
    },
    flagged: () => {
      const rows = candidates.all() as ClaimantRow[]
      const expected = expectedOf(rows)
      return rows
        .map((r) => figures(r, expected.get(r.id) ?? 0))
        .filter((f) => f.flags.length > 0)
        .sort((a, b) => a.probability - b.probability || b.claims - a.claims || a.player.localeCompare(b.player))
    },
  }
}
