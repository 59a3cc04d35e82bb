/**
 * Key ceremonies (game-core/DERIVATION.md §1.1). One per emission, before its blocks are
 * generated: the backend draws its share, seals it and records its hash; then a second person
 * (never the one who started it), having seen only that hash, contributes 32 bytes of their own,
 * drawn in their window or read from dice. Each block's secret then comes from both shares.
 * Both steps are audited; the shares stay sealed until the emission is published.
 */
import { randomBytes } from 'node:crypto'
import { blockSecretFromShares, diceProblemText, diceRolls, MIN_DICE_ROLLS, shareFromDice, shareHash } from '../../game-core/seeding'
import { AppError, because } from '../contract/errors'
import type { KeyCeremony } from '../contract/types'
import { nodePrimitives } from '../crypto/node-primitives'
import type { Db } from '../ledger/db'
import type { KeyStore } from '../ledger/keystore'
import type { AuditService } from './audit'
import type { Catalog } from './catalog'
import { iso, type Actor, type Clock } from './common'

interface CeremonyRow {
  emission: number
  server_share: Buffer
  server_hash: string
  started_by: string
  started_at: string
  custodian: string | null
  custodian_share: Buffer | null
  custodian_hash: string | null
  custodian_source: 'random' | 'dice' | null
  contributed_at: string | null
}

export interface CeremonyService {
  get(emission: number): KeyCeremony | null
  start(actor: Actor, emission: number): KeyCeremony
  contribute(actor: Actor, emission: number, input: { share?: string; dice?: string }): KeyCeremony
  /** Both shares, opened, of a complete ceremony (null: none, or not complete). */
  shares(emission: number): { server: Uint8Array; custodian: Uint8Array } | null
  /** Block b's secret from the emission's complete ceremony (null: no complete ceremony). */
  blockSecret(emission: number, block: number): Uint8Array | null
}

export interface CeremonyDeps {
  db: Db
  keys: KeyStore
  audit: AuditService
  catalog: Catalog
  clock: Clock
}

const toCeremony = (r: CeremonyRow): KeyCeremony => ({
  emission: r.emission,
  state: r.custodian === null ? 'awaiting-custodian' : 'complete',
  serverHash: r.server_hash,
  startedBy: r.started_by,
  startedAt: r.started_at,
  custodian: r.custodian,
  custodianHash: r.custodian_hash,
  custodianSource: r.custodian_source,
  contributedAt: r.contributed_at,
})

/** The custodian's 32 bytes: given in hex (drawn in their window), or from their dice. */
function custodianShare(input: { share?: string; dice?: string }): { share: Uint8Array; source: 'random' | 'dice' } {
  if (input.share !== undefined) return { share: new Uint8Array(Buffer.from(input.share, 'hex')), source: 'random' }
  const checked = diceRolls(input.dice ?? '')
  if ('problem' in checked) {
    const reason = checked.problem === 'not-a-roll' ? because('DICE_NOT_A_ROLL', { char: checked.char }) : because('DICE_TOO_FEW', { count: checked.count, min: MIN_DICE_ROLLS })
    throw new AppError('BAD_ARGUMENTS', `dice: ${diceProblemText(checked)}`, { ...reason, field: 'dice' })
  }
  return { share: shareFromDice(nodePrimitives, checked.rolls), source: 'dice' }
}

export function createCeremonyService({ db, keys, audit, catalog, clock }: CeremonyDeps): CeremonyService {
  const read = db.prepare('SELECT * FROM key_ceremonies WHERE emission = ?')
  const row = (emission: number) => read.get(emission) as CeremonyRow | undefined
  const insert = db.prepare('INSERT INTO key_ceremonies (emission, server_share, server_hash, started_by, started_at) VALUES (?, ?, ?, ?, ?)')
  const complete = db.prepare(`UPDATE key_ceremonies SET custodian = ?, custodian_share = ?, custodian_hash = ?, custodian_source = ?, contributed_at = ?
                               WHERE emission = ? AND custodian IS NULL`)

  /** Shares are taken only before the emission's blocks are generated. */
  function refuseUnlessBeforeGeneration(emission: number): void {
    const e = catalog.emission(emission)
    if (e.status !== 'created') {
      throw new AppError('ILLEGAL_STATE', `emission ${emission} is ${e.status}: its blocks' secrets are drawn already, a key ceremony comes before generation`, because('CEREMONY_TOO_LATE', { emission, status: e.status }))
    }
  }

  /** A share opened, and checked against the hash recorded (and printed on the certificate) for it. */
  function openChecked(emission: number, party: 'server' | 'custodian', sealed: Buffer, recorded: string): Uint8Array {
    const share = keys.openShare({ emission, party }, sealed)
    if (shareHash(nodePrimitives, share) !== recorded) {
      const whose = party === 'server' ? "the backend's share" : "the custodian's share"
      throw new AppError('DATABASE', `${whose} of emission ${emission}'s key ceremony does not have the hash recorded for it: the ledger's record of the ceremony was altered; restore the ledger from a backup`)
    }
    return share
  }

  const service: CeremonyService = {
    get: (emission) => {
      catalog.emission(emission)
      const r = row(emission)
      return r ? toCeremony(r) : null
    },

    start(actor, emission) {
      db.transaction(() => {
        refuseUnlessBeforeGeneration(emission)
        if (row(emission)) throw new AppError('CONFLICT', `emission ${emission}'s key ceremony was started already: one per emission`, because('CEREMONY_EXISTS', { emission }))
        const share = new Uint8Array(randomBytes(32))
        const hash = shareHash(nodePrimitives, share)
        insert.run(emission, keys.sealShare({ emission, party: 'server' }, share), hash, actor.name, iso(clock()))
        audit.record(actor.name, 'ceremony.start', `emission:${emission}`, { serverHash: hash })
      }).immediate()
      return service.get(emission)!
    },

    contribute(actor, emission, input) {
      const { share, source } = custodianShare(input)
      db.transaction(() => {
        refuseUnlessBeforeGeneration(emission)
        const r = row(emission)
        if (!r) throw new AppError('ILLEGAL_STATE', `emission ${emission} has no key ceremony yet: an operator starts it first`, because('CEREMONY_NOT_STARTED', { emission }))
        if (r.custodian !== null) {
          throw new AppError('CONFLICT', `emission ${emission}'s key ceremony is complete: ${r.custodian} contributed its second share`, because('CEREMONY_COMPLETE', { emission, custodian: r.custodian }))
        }
        if (r.started_by.toLowerCase() === actor.name.toLowerCase()) {
          throw new AppError('FORBIDDEN', `${actor.name} started this key ceremony: the second share must come from another person`, because('CEREMONY_SAME_PERSON', { name: actor.name }))
        }
        const hash = shareHash(nodePrimitives, share)
        complete.run(actor.name, keys.sealShare({ emission, party: 'custodian' }, share), hash, source, iso(clock()), emission)
        audit.record(actor.name, 'ceremony.contribute', `emission:${emission}`, { serverHash: r.server_hash, custodianHash: hash, source })
      }).immediate()
      return service.get(emission)!
    },

    shares(emission) {
      const r = row(emission)
      if (!r || !r.custodian_share || !r.custodian_hash) return null
      return { server: openChecked(emission, 'server', r.server_share, r.server_hash), custodian: openChecked(emission, 'custodian', r.custodian_share, r.custodian_hash) }
    },

    blockSecret(emission, block) {
      const s = service.shares(emission)
      return s ? blockSecretFromShares(nodePrimitives, s.server, s.custodian, emission, block) : null
    },
  }
  return service
}
