/**
 * What the emissions' functions share (service.ts, views.ts, verify.ts): the
 * ledger, the services they lean on, the game of new emissions, and the statements prepared once.
 */
import type { GameDefinition } from '../../../game-core/rules'
import type { Db } from '../../ledger/db'
import type { KeyStore } from '../../ledger/keystore'
import type { AuditService } from '../audit'
import type { Catalog } from '../catalog'
import type { Clock } from '../common'
import type { JobRegistry } from '../jobs'
import type { Leases } from '../leases'
import type { CeremonyService } from './ceremony'
import type { Verifications } from './verifications'
import type { createGeneration } from './generation'
import type { VerifyBlockFn } from './block-pool'

export interface EmissionsDeps {
  db: Db
  clock: Clock
  keys: KeyStore
  audit: AuditService
  jobs: JobRegistry
  catalog: Catalog
  /** The emissions' key ceremonies (default: this ledger's, made here). */
  ceremony?: CeremonyService
  /** The worker pool (block-pool.ts). */
  verifyBlock: VerifyBlockFn
  threads?: number
  /** The game of new emissions. */
  definition?: GameDefinition
  /** Where verdicts are kept (default: this ledger's, made here). */
  verifications?: Verifications
  /** The leases of long jobs across workstations (default: a holder of its own, made here). */
  leases?: Leases
}

export type EmissionStatements = ReturnType<typeof prepareEmissionStatements>

/** The service's dependencies, the defaults made, and its statements. */
export interface EmissionsContext extends Required<Omit<EmissionsDeps, 'threads'>> {
  threads?: number
  generation: ReturnType<typeof createGeneration>
  statements: EmissionStatements
}

/** An emission's row with its blocks counted: made, verified, units sold. */
const WITH_BLOCK_COUNTS = `
    SELECT e.*, count(b.block) AS n_blocks,
           count(CASE WHEN b.status <> 'pending' THEN 1 END) AS n_generated,
           count(CASE WHEN b.status = 'verified' THEN 1 END) AS n_verified,
           coalesce(sum(b.units_sold), 0) AS units_sold
    FROM emissions e LEFT JOIN blocks b ON b.emission = e.emission`

export function prepareEmissionStatements(db: Db) {
  return {
    // a verification left open by a workstation gone mid-way (its lease is ours now)
    closeAbandoned: db.prepare(
      "UPDATE verifications SET ended_at = ?, outcome = 'failed', error = ? WHERE emission = ? AND ended_at IS NULL",
    ),
    setStatus: db.prepare('UPDATE emissions SET status = ? WHERE emission = ?'),
    setBlock: db.prepare('UPDATE blocks SET status = ?, verified_at = ? WHERE emission = ? AND block = ?'),
    summary: db.prepare(`${WITH_BLOCK_COUNTS} WHERE e.emission = ? GROUP BY e.emission`),
    list: db.prepare(`${WITH_BLOCK_COUNTS} GROUP BY e.emission ORDER BY e.emission DESC`),
  }
}
