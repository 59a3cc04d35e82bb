/**
 * Ledgers for the publication tests: a small game (10,000 units a block), emissions made, sold
 * and closed through the services, one of them seeded by a key ceremony (generation then makes
 * each block's secret from both shares).
 */
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openLedgerKey, type KeyStore } from '../../electron/ledger/keystore'
import { createPublicationService, type PublicationService } from '../../electron/services/emissions'
import { openLedgerFixture, TEST_ACTOR, type LedgerFixture } from '../support/simulator-world'
import type { Actor } from '../../electron/services/common'
import { smallDefinition } from '../support/game-fixtures'

export const AUDITOR: Actor = { name: 'aude', role: 'auditor' }
const OPERATOR: Actor = { name: 'otto', role: 'operator' }

export interface PublicationLedger extends LedgerFixture {
  keys: KeyStore
  publication: PublicationService
  /** An open emission of `blocks` blocks with `sales` units sold (in unit order, block 1 first), then closed. */
  closedEmission(opts: { blocks: number; sales: number; twoPerson?: boolean }): Promise<number>
}

export function openPublicationLedger(): PublicationLedger {
  const f = openLedgerFixture({ definition: smallDefinition() })
  const keys = openLedgerKey(f.db, f.path, { keyFile: f.keyFile })
  const publication = createPublicationService({
    db: f.db,
    keys,
    catalog: f.catalog,
    ceremony: f.ceremony,
    audit: f.audit,
    clock: f.clock,
  })

  async function closedEmission({
    blocks,
    sales,
    twoPerson = false,
  }: {
    blocks: number
    sales: number
    twoPerson?: boolean
  }): Promise<number> {
    const e = f.emissions.create(TEST_ACTOR, { blocks, demo: true }).emission
    if (twoPerson) {
      f.ceremony.start(OPERATOR, e)
      f.ceremony.contribute(AUDITOR, e, { share: 'c0'.repeat(32) })
    }
    for (const step of [() => f.emissions.generate(TEST_ACTOR, e), () => f.emissions.verify(TEST_ACTOR, e)]) {
      const end = await f.jobs.wait(step().id)
      if (end.state !== 'done') throw new Error(`emission ${e}: ${end.message}`)
    }
    f.emissions.open(TEST_ACTOR, e)
    if (sales > 0) await f.simulator.run(TEST_ACTOR, { emission: e, sales, seed: 7 })
    f.emissions.close(TEST_ACTOR, e)
    return e
  }

  return { ...f, keys, publication, closedEmission }
}

/** A copy of a published folder, to be tampered with. */
export function copyBundle(dir: string): string {
  const copy = mkdtempSync(join(tmpdir(), 'carats-tampered-'))
  cpSync(dir, copy, { recursive: true })
  return copy
}

export const readBundle = (dir: string) => JSON.parse(readFileSync(join(dir, 'bundle.json'), 'utf8'))
export const writeBundle = (dir: string, bundle: unknown) =>
  writeFileSync(join(dir, 'bundle.json'), JSON.stringify(bundle, null, 2) + '\n')
