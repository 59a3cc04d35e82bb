/**
 * A reconciliation's three sources gathered (day-sales.ts), and the summary of its result that
 * the audit log keeps: the day, the feed's SHA-256, each source's totals and the units named.
 */
import { parseSerial } from '../../../game-core/serial'
import type { ReconciliationReport } from '../../contract/types'
import type { Db } from '../../ledger/db'
import { unitKey } from '../../ledger/unit-key'
import { feedSalesOfDay, ledgerSalesOfDay, vaultSalesOfDay, type EmissionNames } from './day-sales'
import { readVaultState } from './folder'
import type { DaySources } from './reconcile'
import type { VaultSources } from './sources'

/** Serials the audit entry names (the report lists more; the count is always whole). */
const SEALED_SERIALS = 50

export function daySources(
  db: Db,
  folder: string,
  sources: VaultSources,
  day: string,
  feed?: { content: string; fileName: string | null },
): DaySources {
  const byNumber = new Map(sources.emissions().map((e) => [e.emission, e]))
  const names: EmissionNames = { get: (n) => byNumber.get(n) }
  const sent = readVaultState(folder).sales
  return {
    ledger: ledgerSalesOfDay(db, day, names),
    vault: vaultSalesOfDay(folder, day),
    feed: feed ? { ...feed, ...feedSalesOfDay(feed.content, day, names) } : null,
    notSentYet(serial) {
      const id = parseSerial(serial)
      return unitKey(id.emission, id.block, id.unit) > (sent[id.emission]?.last ?? 0)
    },
  }
}

export function sealOf(r: ReconciliationReport): Record<string, unknown> {
  return {
    day: r.day,
    ok: r.ok,
    feed: r.feed?.sha256 ?? null,
    totals: r.totals,
    differences: r.differenceCount,
    serials: [...new Set(r.differences.map((d) => d.serial).filter((s) => s !== null))].slice(0, SEALED_SERIALS),
  }
}
