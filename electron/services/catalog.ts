/**
 * Reading emissions and blocks as stored, shared by the services. What an emission is (its
 * definition, whether it is a demonstration, its claim threshold…) is fixed at its creation and
 * an emission is never deleted, so those facts are read once and kept; its status and its blocks'
 * progress are read each time. On a team ledger each read is a round trip to the server.
 */
import { AppError, because } from '../contract/errors'
import type { BlockSeeding, BlockStatus, EmissionStatus } from '../contract/types'
import type { GameDefinition } from '../../game-core/rules'
import { BlockDeriver } from '../../game-core/block'
import { nodePrimitives } from '../crypto/node-primitives'
import type { Db } from '../ledger/db'
import type { KeyStore } from '../ledger/keystore'

export interface EmissionRow {
  emission: number
  /** 1: a demonstration emission, the only kind that takes simulated sales */
  demo: number
  code: string
  starts_on: string | null
  status: EmissionStatus
  withdrawn_reason: string | null
  blocks: number
  definition: string
  definition_digest: string
  created_at: string
  opened_at: string | null
  closed_at: string | null
  published_at: string | null
  published_by: string | null
  /** From this prize up, a sold unit's prize is claimed (claims table) rather than credited. */
  claim_threshold_cents: number
  /** Days after closed_at during which claims are paid (migration 17). */
  claim_days: number
}

/** The columns of an emission fixed when it is created (no statement updates them). */
export type EmissionFacts = Pick<EmissionRow, (typeof EMISSION_FACT_COLUMNS)[number]>
export const EMISSION_FACT_COLUMNS = [
  'emission',
  'demo',
  'code',
  'blocks',
  'definition',
  'definition_digest',
  'claim_threshold_cents',
  'claim_days',
] as const

/** A block's state without its heavy columns (the secret, the proof roots). */
export type BlockState = Pick<
  BlockRow,
  'emission' | 'block' | 'status' | 'commitment' | 'commitment_version' | 'units_sold'
> & { sealed: number }
const STATE_COLUMNS =
  'emission, block, status, commitment, commitment_version, units_sold, CASE WHEN secret IS NULL THEN 0 ELSE 1 END AS sealed'

export interface BlockRow {
  emission: number
  block: number
  status: BlockStatus
  secret: Buffer | null
  commitment: string | null
  merkle_root: string | null
  /** 1 for blocks committed before version 2, 2 from then on (DERIVATION.md §6, §7). */
  commitment_version: number
  /** Version 2: the roots of the block's proof batches, 32 bytes each (game-core batchRoots). */
  proof_roots: Buffer | null
  generated_at: string | null
  verified_at: string | null
  units_sold: number
  /** 'two-person': the secret came from the emission's key ceremony; 'single': drawn by one person. */
  seeding: BlockSeeding
}

export interface Catalog {
  emission(emission: number): EmissionRow
  /** The emission's fixed facts, read once. */
  facts(emission: number): EmissionFacts
  definition(emission: number): GameDefinition
  block(emission: number, block: number): BlockRow
  /** The block's status and commitment, without its secret and proof roots. */
  blockState(emission: number, block: number): BlockState
  /** The emission's blocks' states, in order. */
  blockStates(emission: number): BlockState[]
  blocks(emission: number): BlockRow[]
  /**
   * The block's units, from its decrypted secret; a few recently used blocks are kept (8 MB each).
   * `state`: the block's state if the caller has just read it (one read less).
   */
  deriver(emission: number, block: number, state?: BlockState): BlockDeriver
}

export function createCatalog({ db, keys, cacheSize = 4 }: { db: Db; keys: KeyStore; cacheSize?: number }): Catalog {
  const emissionStmt = db.prepare('SELECT * FROM emissions WHERE emission = ?')
  const blockStmt = db.prepare('SELECT * FROM blocks WHERE emission = ? AND block = ?')
  const blocksStmt = db.prepare('SELECT * FROM blocks WHERE emission = ? ORDER BY block')
  const factsStmt = db.prepare(`SELECT ${EMISSION_FACT_COLUMNS.join(', ')} FROM emissions WHERE emission = ?`)
  const stateStmt = db.prepare(`SELECT ${STATE_COLUMNS} FROM blocks WHERE emission = ? AND block = ?`)
  const statesStmt = db.prepare(`SELECT ${STATE_COLUMNS} FROM blocks WHERE emission = ? ORDER BY block`)
  const facts = new Map<number, EmissionFacts>()
  const definitions = new Map<number, GameDefinition>()
  const derivers = new Map<string, { deriver: BlockDeriver; commitment: string }>()

  const catalog: Catalog = {
    emission(emission) {
      const row = emissionStmt.get(emission) as EmissionRow | undefined
      if (!row)
        throw new AppError('NOT_FOUND', `emission ${emission} does not exist`, {
          field: 'emission',
          ...because('EMISSION_NOT_FOUND', { emission }),
        })
      return row
    },
    facts(emission) {
      let f = facts.get(emission)
      if (!f) {
        f = factsStmt.get(emission) as EmissionFacts | undefined
        if (!f) return catalog.emission(emission) // says the emission does not exist
        facts.set(emission, f)
      }
      return f
    },
    definition(emission) {
      let def = definitions.get(emission)
      if (!def) {
        def = JSON.parse(catalog.facts(emission).definition) as GameDefinition
        definitions.set(emission, def)
      }
      return def
    },
    block(emission, block) {
      const row = blockStmt.get(emission, block) as BlockRow | undefined
      if (!row) {
        const e = catalog.emission(emission)
        throw new AppError('NOT_FOUND', `emission ${emission} has no block ${block} (it has ${e.blocks})`, {
          field: 'block',
          ...because('BLOCK_NOT_FOUND', { emission, block, blocks: e.blocks }),
        })
      }
      return row
    },
    blockState(emission, block) {
      const state = stateStmt.get(emission, block) as BlockState | undefined
      if (!state) catalog.block(emission, block) // says which block does not exist
      return state!
    },
    blockStates: (emission) => statesStmt.all(emission) as BlockState[],
    blocks: (emission) => blocksStmt.all(emission) as BlockRow[],
    deriver(emission, block, state) {
      const key = `${emission}/${block}`
      // the commitment alone first: the whole row carries the block's proof roots (about 250 KB
      // for a whole block), which a lookup on a team ledger would fetch over the network each time
      const seal = state ?? catalog.blockState(emission, block)
      if (!seal.sealed || !seal.commitment)
        throw new AppError('ILLEGAL_STATE', `block ${key} has not been generated yet`)
      const hit = derivers.get(key)
      // the commitment identifies the secret: a block is never regenerated, but a test may rebuild a ledger
      if (hit && hit.commitment === seal.commitment) {
        derivers.delete(key)
        derivers.set(key, hit)
        return hit.deriver
      }
      const row = catalog.block(emission, block)
      if (!row.secret || !row.commitment) throw new AppError('ILLEGAL_STATE', `block ${key} has not been generated yet`)
      const secret = keys.openSecret({ emission, block }, row.secret)
      const deriver = new BlockDeriver(catalog.definition(emission), nodePrimitives, { emission, block, secret })
      derivers.set(key, { deriver, commitment: row.commitment })
      while (derivers.size > cacheSize) derivers.delete(derivers.keys().next().value!)
      return deriver
    },
  }
  return catalog
}
