/**
 * Ledgers for the publication tests: a small game (10,000 units a block), emissions made, sold
 * and closed through the services, one of them seeded by a key ceremony.
 */
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { batchRoots } from '../../game-core/commitment'
import { verifyBlock } from '../../game-core/verify'
import { nodePrimitives } from '../../electron/crypto/node-primitives'
import { openLedgerKey, type KeyStore } from '../../electron/ledger/keystore'
import { createCeremonyService, type CeremonyService } from '../../electron/services/ceremony'
import { createPublicationService, type PublicationService } from '../../electron/services/publication'
import { openLedgerFixture, TEST_ACTOR, type LedgerFixture } from '../../electron/services/simulator-fixture'
import type { Actor } from '../../electron/services/common'
import { smallDefinition } from '../support/game-fixtures'

export const AUDITOR: Actor = { name: 'aude', role: 'auditor' }
const OPERATOR: Actor = { name: 'otto', role: 'operator' }

export interface PublicationLedger extends LedgerFixture {
  keys: KeyStore
  ceremony: CeremonyService
  publication: PublicationService
  /** An open emission of `blocks` blocks with `sales` units sold (in unit order, block 1 first), then closed. */
  closedEmission(opts: { blocks: number; sales: number; twoPerson?: boolean }): Promise<number>
}

export function openPublicationLedger(): PublicationLedger {
  const f = openLedgerFixture({ definition: smallDefinition() })
  const keys = openLedgerKey(f.db, f.path)
  const ceremony = createCeremonyService({ db: f.db, keys, audit: f.audit, catalog: f.catalog, clock: f.clock })
  const publication = createPublicationService({ db: f.db, keys, catalog: f.catalog, ceremony, audit: f.audit, clock: f.clock })

  /**
   * Until generation takes the ceremony's shares itself (the ceremony's own branch), the blocks'
   * secrets are made here from the shares as DERIVATION.md §1.1 says, and recommitted.
   */
  function seedFromCeremony(emission: number): void {
    const def = f.catalog.definition(emission)
    for (const b of f.catalog.blocks(emission)) {
      if (b.seeding === 'two-person') continue
      const secret = ceremony.blockSecret(emission, b.block)!
      const v = verifyBlock(def, nodePrimitives, { emission, block: b.block, secret }, { commitmentVersion: 2 })
      f.db.prepare("UPDATE blocks SET secret = ?, commitment = ?, merkle_root = ?, proof_roots = ?, seeding = 'two-person' WHERE emission = ? AND block = ?")
        .run(keys.sealSecret({ emission, block: b.block }, secret), v.commitment, v.merkleRoot, Buffer.from(batchRoots(nodePrimitives, v.leafHashes)), emission, b.block)
    }
  }

  async function closedEmission({ blocks, sales, twoPerson = false }: { blocks: number; sales: number; twoPerson?: boolean }): Promise<number> {
    const e = f.emissions.create(TEST_ACTOR, { blocks, demo: true }).emission
    if (twoPerson) {
      ceremony.start(OPERATOR, e)
      ceremony.contribute(AUDITOR, e, { share: 'c0'.repeat(32) })
    }
    for (const step of [() => f.emissions.generate(TEST_ACTOR, e), () => f.emissions.verify(TEST_ACTOR, e)]) {
      const end = await f.jobs.wait(step().id)
      if (end.state !== 'done') throw new Error(`emission ${e}: ${end.message}`)
      if (twoPerson && f.emissions.get(e).status === 'generated') seedFromCeremony(e)
    }
    f.emissions.open(TEST_ACTOR, e)
    if (sales > 0) await f.simulator.run(TEST_ACTOR, { emission: e, sales, seed: 7 })
    f.emissions.close(TEST_ACTOR, e)
    return e
  }

  return { ...f, keys, ceremony, publication, closedEmission }
}

/** A copy of a published folder, to be tampered with. */
export function copyBundle(dir: string): string {
  const copy = mkdtempSync(join(tmpdir(), 'carats-tampered-'))
  cpSync(dir, copy, { recursive: true })
  return copy
}

export const readBundle = (dir: string) => JSON.parse(readFileSync(join(dir, 'bundle.json'), 'utf8'))
export const writeBundle = (dir: string, bundle: unknown) => writeFileSync(join(dir, 'bundle.json'), JSON.stringify(bundle, null, 2) + '\n')
