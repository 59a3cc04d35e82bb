/**
 * A ledger with its services wired together, for the simulator's, importer's and reports' tests
 * and the ledger benchmark: a fresh ledger (a file in a temporary folder, or a database of its own
 * on PostgreSQL), a fixed or given clock, and an emission made, generated, verified and opened in
 * one call (a real one after its key ceremony).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { nodePrimitives } from '../../electron/crypto/node-primitives'
import { verifyBlock } from '../../game-core/verify'
import { completeCeremony } from './ceremony'
import type { GameDefinition } from '../../game-core/rules'
import { openLedger, type Db } from '../../electron/ledger/db'
import { openLedgerKey } from '../../electron/ledger/keystore'
import {
  verifyBlockInWorkers,
  createCeremonyService,
  type CeremonyService,
  createEmissionsService,
  type EmissionsService,
  type VerifyBlockFn,
} from '../../electron/services/emissions'
import { workerSeller, createSimulator, type Simulator } from '../../electron/services/simulator'
import { workerLedgerRef } from '../../electron/ledger/worker-ref'
import { createAlertsService } from '../../electron/services/alerts'
import { createAuditService, type AuditService } from '../../electron/services/audit'
import { createCatalog, type Catalog } from '../../electron/services/catalog'
import type { Actor, Clock } from '../../electron/services/common'
import { createJobRegistry, type JobRegistry } from '../../electron/services/jobs'
import { createSalesService, type SalesService } from '../../electron/services/sales'
import { dropTestLedger } from './ledger-engine'
import { freshLedgerLocation } from './fresh-ledger'

export interface LedgerFixture {
  dir: string
  /** The ledger's location: a file on SQLite, a database URL on PostgreSQL (test/support/ledger-engine.ts). */
  path: string
  /** Its key file where it is not `<path>.key` (PostgreSQL). */
  keyFile: string | undefined
  db: Db
  clock: Clock
  audit: AuditService
  catalog: Catalog
  jobs: JobRegistry
  ceremony: CeremonyService
  emissions: EmissionsService
  sales: SalesService
  simulator: Simulator
  /** Creates, generates, verifies and opens an emission; returns its number. */
  /** A demonstration emission unless `demo: false` (only those take simulated sales). */
  openEmission(opts?: {
    blocks?: number
    startsOn?: string
    code?: string
    demo?: boolean
    claimThresholdCents?: number
  }): Promise<number>
  close(): void
}

export const TEST_ACTOR: Actor = { name: 'tester', role: 'admin' }

/** Blocks of a small game verify in process; real blocks on all cores. */
const inProcess: VerifyBlockFn = async (def, ref) =>
  verifyBlock(def, nodePrimitives, ref, { commitmentVersion: ref.commitmentVersion })

export function openLedgerFixture(
  opts: { definition?: GameDefinition; clock?: Clock; path?: string; keyFile?: string; workers?: boolean } = {},
): LedgerFixture {
  const dir = mkdtempSync(join(tmpdir(), 'carats-ledger-'))
  const { location: path, keyFile } = opts.path
    ? { location: opts.path, keyFile: opts.keyFile }
    : freshLedgerLocation(dir)
  const clock = opts.clock ?? (() => new Date())
  const db = openLedger(path)
  const keys = openLedgerKey(db, path, { keyFile })
  const audit = createAuditService({ db, clock, keys, dbPath: path, keyFile })
  const catalog = createCatalog({ db, keys })
  const jobs = createJobRegistry({ clock })
  const alerts = createAlertsService({ db, clock, audit, catalog })
  const ceremony = createCeremonyService({ db, keys, audit, catalog, clock })
  const emissions = createEmissionsService({
    db,
    clock,
    keys,
    audit,
    jobs,
    catalog,
    ceremony,
    verifyBlock: opts.workers ? verifyBlockInWorkers : inProcess,
    definition: opts.definition,
  })
  const sales = createSalesService({ db, clock, catalog, alerts })
  // with workers, as in the app: the sales are written on a worker thread (which also makes its drafts on another)
  const simulator = createSimulator({
    db,
    clock,
    catalog,
    sales,
    audit,
    jobs,
    seller: opts.workers ? workerSeller(workerLedgerRef(path, keyFile)) : undefined,
  })

  async function openEmission(
    o: { blocks?: number; startsOn?: string; code?: string; demo?: boolean; claimThresholdCents?: number } = {},
  ): Promise<number> {
    const e = emissions.create(TEST_ACTOR, {
      blocks: o.blocks ?? 1,
      startsOn: o.startsOn,
      code: o.code,
      demo: o.demo ?? true,
      claimThresholdCents: o.claimThresholdCents,
    })
    if (!e.demo) completeCeremony(ceremony, e.emission, { starter: TEST_ACTOR })
    for (const start of [
      () => emissions.generate(TEST_ACTOR, e.emission),
      () => emissions.verify(TEST_ACTOR, e.emission),
    ]) {
      const end = await jobs.wait(start().id)
      if (end.state !== 'done')
        throw new Error(`${end.kind} of emission ${e.emission} ended ${end.state}: ${end.message}`)
    }
    emissions.open(TEST_ACTOR, e.emission)
    return e.emission
  }

  return {
    dir,
    path,
    keyFile,
    db,
    clock,
    audit,
    catalog,
    jobs,
    ceremony,
    emissions,
    sales,
    simulator,
    openEmission,
    close() {
      db.close()
      dropTestLedger(path)
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
