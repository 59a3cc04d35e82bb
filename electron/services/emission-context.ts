/**
 * What the emissions' functions share (emissions.ts, emission-views.ts, emission-verify.ts): the
 * ledger, the services they lean on, the game of new emissions, and the statements prepared once.
 */
import type { GameDefinition } from '../../game-core/rules'
import type { Db } from '../ledger/db'
import type { KeyStore } from '../ledger/keystore'
import type { AuditService } from './audit'
import type { Catalog } from './catalog'
import type { CeremonyService } from './ceremony'
import type { Clock } from './common'
import type { VerifyBlockFn } from './emissions'
import type { createGeneration } from './generation'
import type { JobRegistry } from './jobs'
import type { Leases } from './leases'
import type { Verifications } from './verifications'

export type EmissionStatements = ReturnType<typeof prepareEmissionStatements>

export interface EmissionsContext {
  db: Db
  clock: Clock
  keys: KeyStore
  audit: AuditService
  jobs: JobRegistry
  catalog: Catalog
  ceremony: CeremonyService
  verifications: Verifications
  leases: Leases
  generation: ReturnType<typeof createGeneration>
  verifyBlock: VerifyBlockFn
  threads?: number
  /** The game of new emissions. */
  definition: GameDefinition
  statements: EmissionStatements
}

export function prepareEmissionStatements(db: Db) {
  return {
    // a verification left open by a workstation gone mid-way (its lease is ours now)
    closeAbandoned: db.prepare("UPDATE verifications SET ended_at = ?, outcome = 'failed', error = ? WHERE emission = ? AND ended_at IS NULL"),
    setStatus: db.prepare('UPDATE emissions SET status = ? WHERE emission = ?'),
    setBlock: db.prepare('UPDATE blocks SET status = ?, verified_at = ? WHERE emission = ? AND block = ?'),
    summary: db.prepare(`
    SELECT e.*, count(b.block) AS n_blocks,
           count(CASE WHEN b.status <> 'pending' THEN 1 END) AS n_generated,
           count(CASE WHEN b.status = 'verified' THEN 1 END) AS n_verified,
           coalesce(sum(b.units_sold), 0) AS units_sold
    FROM emissions e LEFT JOIN blocks b ON b.emission = e.emission
    WHERE e.emission = ? GROUP BY e.emission`),
    list: db.prepare(`
    SELECT e.*, count(b.block) AS n_blocks,
           count(CASE WHEN b.status <> 'pending' THEN 1 END) AS n_generated,
           count(CASE WHEN b.status = 'verified' THEN 1 END) AS n_verified,
           coalesce(sum(b.units_sold), 0) AS units_sold
    FROM emissions e LEFT JOIN blocks b ON b.emission = e.emission
    GROUP BY e.emission ORDER BY e.emission DESC`),
  }
}
