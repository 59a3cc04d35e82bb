/**
 * A day's reconciliation: the sales platform's feed (when given), the ledger and the vault held
 * against one another. Counts and sums per emission, block and prize tier in each source, and
 * every unit one of them lacks or differs on, named by serial. A day with no sale gives a report
 * of zeros. The caller seals the result in the audit log, and so in the vault.
 */
import { createHash } from 'node:crypto'
import type { ReconDifference, ReconRow, ReconSums, ReconciliationReport } from '../../contract/types'
import type { DaySale } from './day-sales'

/** Differences a report lists (it counts them all). */
export const RECON_LISTED = 1000

export interface DaySources {
  ledger: Map<string, DaySale>
  vault: Map<string, DaySale>
  feed: {
    fileName: string | null
    content: string
    sales: Map<string, DaySale>
    lines: number
    problems: ReconDifference[]
  } | null
  /** Whether the vault has yet to receive this unit's sale (its emission's last sale sent is before it). */
  notSentYet(serial: string): boolean
}

const zero = (prizes: boolean): ReconSums => ({ units: 0, stakeCents: 0, prizeCents: prizes ? 0 : null })

function add(sums: ReconSums, s: DaySale): void {
  sums.units++
  sums.stakeCents += s.stakeCents
  if (sums.prizeCents !== null) sums.prizeCents += s.prizeCents ?? 0
}

/** The fields two sources hold differently for one unit (the feed has no prize nor tier). */
function fieldsDiffering(a: DaySale, b: DaySale, withPrize: boolean): string[] {
  const keys: (keyof DaySale)[] = ['saleId', 'player', 'soldAt', 'stakeCents']
  if (withPrize) keys.push('prizeCents', 'tier')
  return keys.filter((k) => a[k] !== b[k]).map((k) => `${k} ${JSON.stringify(a[k])} / ${JSON.stringify(b[k])}`)
}

function rowsOf(src: DaySources): ReconRow[] {
  const rows = new Map<string, ReconRow>()
  const rowFor = (s: DaySale, tier: ReconRow['tier']) => {
    const k = `${s.emission}/${s.block}/${tier}`
    let r = rows.get(k)
    if (!r) {
      r = {
        emission: s.emission,
        block: s.block,
        tier,
        ledger: zero(true),
        vault: zero(true),
        feed: src.feed ? zero(false) : null,
      }
      rows.set(k, r)
    }
    return r
  }
  for (const s of src.ledger.values()) add(rowFor(s, s.tier).ledger, s)
  for (const s of src.vault.values()) add(rowFor(s, s.tier).vault, s)
  for (const s of src.feed?.sales.values() ?? []) {
    const tier = src.ledger.get(s.serial)?.tier ?? src.vault.get(s.serial)?.tier
    add(rowFor(s, tier === undefined ? '?' : tier).feed!, s)
  }
  return [...rows.values()].sort(
    (a, b) => a.emission.localeCompare(b.emission) || a.block - b.block || String(a.tier).localeCompare(String(b.tier)),
  )
}

function differencesOf(src: DaySources): ReconDifference[] {
  const out: ReconDifference[] = [...(src.feed?.problems ?? [])]
  const serials = new Set([...src.ledger.keys(), ...src.vault.keys(), ...(src.feed?.sales.keys() ?? [])])
  for (const serial of [...serials].sort()) {
    const l = src.ledger.get(serial)
    const v = src.vault.get(serial)
    const f = src.feed?.sales.get(serial)
    const feedLine = f?.line ?? null
    const d = (problem: ReconDifference['problem'], detail: string) => out.push({ serial, problem, detail, feedLine })
    if (!l)
      d(
        'not-in-ledger',
        v
          ? 'the vault received its sale; the ledger does not hold it'
          : 'the platform sold it; the ledger does not hold it',
      )
    if (l && !v) {
      if (src.notSentYet(serial)) d('not-sent-yet', 'the ledger holds it; the vault has not received it yet')
      else d('not-in-vault', 'the ledger holds it; the vault never received it')
    }
    if (src.feed && !f && (l || v)) d('not-in-feed', "the platform's feed does not hold it")
    const differs = [
      ...(l && v ? fieldsDiffering(l, v, true).map((x) => `ledger / vault: ${x}`) : []),
      ...(f && (l ?? v)
        ? fieldsDiffering(f, (l ?? v)!, false).map((x) => `feed / ${l ? 'ledger' : 'vault'}: ${x}`)
        : []),
    ]
    if (differs.length > 0) d('differs', differs.join('; '))
  }
  return out
}

function totalOf(rows: ReconRow[], pick: (r: ReconRow) => ReconSums | null, prizes: boolean): ReconSums {
  const t = zero(prizes)
  for (const r of rows) {
    const s = pick(r)
    if (!s) continue
    t.units += s.units
    t.stakeCents += s.stakeCents
    if (t.prizeCents !== null) t.prizeCents += s.prizeCents ?? 0
  }
  return t
}

export function reconcileDay(day: string, at: string, src: DaySources): ReconciliationReport {
  const rows = rowsOf(src)
  const differences = differencesOf(src)
  const feed = src.feed
  return {
    day,
    at,
    ok: differences.length === 0,
    feed: feed
      ? { fileName: feed.fileName, sha256: createHash('sha256').update(feed.content).digest('hex'), lines: feed.lines }
      : null,
    rows,
    totals: {
      ledger: totalOf(rows, (r) => r.ledger, true),
      vault: totalOf(rows, (r) => r.vault, true),
      feed: feed ? totalOf(rows, (r) => r.feed, false) : null,
    },
    differences: differences.slice(0, RECON_LISTED),
    differenceCount: differences.length,
    sealedAs: null,
  }
}
