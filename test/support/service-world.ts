/**
 * A ledger of its own for a services test (a file in a temporary folder, or a database of its own
 * on PostgreSQL: test/support/ledger-engine.ts): the emissions, their key
 * ceremonies and their verdicts wired as the backend wires them, with the test's clock and check
 * of a block. Every ledger made is closed and its folder removed after each test.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach } from 'vitest'
import type { GameDefinition } from '../../game-core/rules'
import { openLedger, type Db } from '../../electron/ledger/db'
import { openLedgerKey, type KeyStore } from '../../electron/ledger/keystore'
import { createAuditService, type AuditService } from '../../electron/services/audit'
import { createCatalog, type Catalog } from '../../electron/services/catalog'
import {
  createCeremonyService,
  type CeremonyService,
  createEmissionsService,
  type EmissionsService,
  type VerifyBlockFn,
  createVerifications,
  type Verifications,
} from '../../electron/services/emissions'
import type { Clock } from '../../electron/services/common'
import { createJobRegistry, type JobRegistry } from '../../electron/services/jobs'
import { freshLedgerLocation } from './fresh-ledger'

export interface ServiceWorld {
  /** The ledger's location: a file on SQLite, a database URL on PostgreSQL (ledger-engine.ts). */
  path: string
  /** Its key file where it is not `<path>.key` (PostgreSQL). */
  keyFile: string | undefined
  db: Db
  keys: KeyStore
  audit: AuditService
  catalog: Catalog
  jobs: JobRegistry
  ceremony: CeremonyService
  emissions: EmissionsService
  verifications: Verifications
}

/** Call at the top of a test file: returns the function that makes a world. */
export function useServiceWorlds(
  prefix: string,
): (opts: { clock: Clock; verifyBlock: VerifyBlockFn; definition: GameDefinition }) => ServiceWorld {
  const dirs: string[] = []
  const dbs: Db[] = []
  afterEach(() => {
    while (dbs.length) dbs.pop()!.close()
    while (dirs.length) rmSync(dirs.pop()!, { recursive: true, force: true })
  })
  return ({ clock, verifyBlock, definition }) => {
    const dir = mkdtempSync(join(tmpdir(), `carats-${prefix}-`))
    dirs.push(dir)
    const { location: path, keyFile } = freshLedgerLocation(dir)
    const db = openLedger(path)
    dbs.push(db)
    const keys = openLedgerKey(db, path, { keyFile })
    const audit = createAuditService({ db, clock, keys, dbPath: path, keyFile })
    const catalog = createCatalog({ db, keys })
    const jobs = createJobRegistry({ clock })
    const ceremony = createCeremonyService({ db, keys, audit, catalog, clock })
    const verifications = createVerifications({ db, clock, catalog })
    const emissions = createEmissionsService({
      db,
      clock,
      keys,
      audit,
      jobs,
      catalog,
      ceremony,
      verifications,
      verifyBlock,
      definition,
    })
    return { path, keyFile, db, keys, audit, catalog, jobs, ceremony, emissions, verifications }
  }
}
