/**
 * The prize liability's identity held by the ledger check: for every block with a prize table,
 * credited + paid + outstanding + expired + void + unsold = the table (reports' liability.ts,
 * every emission, demonstrations included). Each prize tier off is one problem, `LIABILITY_GAP`.
 */
import type { LedgerDataCheck, LedgerProblem, LedgerProblemKind } from '../../contract/types'
import type { Db } from '../../ledger/db'
import type { Catalog } from '../catalog'
import type { Clock } from '../common'
import { liabilityReport } from '../reports'

type Add = (kind: LedgerProblemKind, make: () => Omit<LedgerProblem, 'kind'>) => void

export function checkLiability(
  deps: { db: Db; catalog: Catalog; clock: Clock },
  add: Add,
): LedgerDataCheck['liability'] {
  const r = liabilityReport(deps, { includeDemo: true })
  let blocks = 0
  for (const e of r.emissions)
    for (const b of e.blocks) {
      blocks++
      for (const t of b.tiers.filter((x) => x.figures.gapCents !== 0)) {
        const f = t.figures
        add('LIABILITY_GAP', () => ({
          row: { emission: e.emission, block: b.block, tier: t.tier },
          field: 'prize table',
          stored: f.tableCents,
          recomputed: f.tableCents + f.gapCents,
          message: `emission ${e.emission} block ${b.block}, prizes of ${t.amountCents} cents: credited ${f.creditedCents} + paid ${f.paidCents} + outstanding ${f.outstandingCents} + expired ${f.expiredCents} + void ${f.voidCents} + unsold ${f.unsoldCents} = ${f.tableCents + f.gapCents}, not the table's ${f.tableCents}`,
        }))
      }
    }
  return { blocks, tableCents: r.total.tableCents, balanced: r.balanced }
}
