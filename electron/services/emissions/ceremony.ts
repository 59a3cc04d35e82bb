/**
 * Key ceremonies (game-core/DERIVATION.md §1.1, docs/trust.md), commit-first. One complete
 * ceremony per emission, before its blocks are generated:
 *
 * 1. start: an operator opens it; nothing is drawn.
 * 2. commit: a second person (never the opener) gives SHA-256 of their share C. In the same
 *    transaction the backend draws its share A, seals it and records SHA-256 of A. C is fixed
 *    before A exists, so nobody who reads A afterwards (whoever holds the ledger key) can fit C to it.
 * 3. reveal: the same person gives C; it must hash to the commitment. Each block's secret then
 *    comes from both shares, as it did for the ceremonies made before (protocol 1, the backend's
 *    share first), which stay verifiable unchanged.
 *
 * A ceremony whose custodian never reveals is abandoned by an operator, with a reason: kept in
 * key_ceremony_abandons, audited, listed on the certificate; whoever committed to it is not the
 * emission's custodian again. Every step is audited; the shares stay sealed until publication.
 */
import { randomBytes } from 'node:crypto'
import { blockSecretFromShares, shareHash } from '../../../game-core/seeding'
import { AppError, because } from '../../contract/errors'
import type { KeyCeremony } from '../../contract/types'
import { nodePrimitives } from '../../crypto/node-primitives'
import type { Db } from '../../ledger/db'
import type { KeyStore } from '../../ledger/keystore'
import { lockEmission } from '../../ledger/row-locks'
import type { AuditService } from '../audit'
import type { Catalog } from '../catalog'
import {
  ceremonyStatements,
  commitmentOf,
  custodianShare,
  toAbandoned,
  toCeremony,
  type CeremonyRow,
  type CeremonyStatements,
} from './ceremony-rows'
import { iso, type Actor, type Clock } from '../common'
import { samePerson } from '../people'
import { refuseUnconfirmed } from '../staff'

export interface CeremonyService {
  get(emission: number): KeyCeremony | null
  /** Opens the ceremony: an operator; no share is drawn yet. */
  start(actor: Actor, emission: number): KeyCeremony
  /** The second person's commitment (SHA-256 of their share, hex); the backend's share is drawn then. */
  commit(actor: Actor, emission: number, commitment: string): KeyCeremony
  /** The same person's share, which must hash to their commitment: the ceremony is then complete. */
  reveal(actor: Actor, emission: number, input: { share?: string; dice?: string }): KeyCeremony
  /** Commit then reveal, from one process that holds the share throughout (the command line's `contribute`, tests). */
  contribute(actor: Actor, emission: number, input: { share?: string; dice?: string }): KeyCeremony
  /** An incomplete ceremony abandoned, with a reason: kept and audited; another may be opened. */
  abandon(actor: Actor, emission: number, reason: string): null
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

interface Ctx extends CeremonyDeps {
  st: CeremonyStatements
  row: (emission: number) => CeremonyRow | undefined
}

/** Shares are taken only before the emission's blocks are generated. */
function refuseUnlessBeforeGeneration({ catalog }: Ctx, emission: number): void {
  const e = catalog.emission(emission)
  if (e.status !== 'created') {
    throw new AppError(
      'ILLEGAL_STATE',
      `emission ${emission} is ${e.status}: its blocks' secrets are drawn already, a key ceremony comes before generation`,
      because('CEREMONY_TOO_LATE', { emission, status: e.status }),
    )
  }
}

/** The ceremony under way, or the refusal that says why there is none to act on. */
function openCeremony(ctx: Ctx, emission: number): CeremonyRow {
  // one step of an emission's ceremony at a time, and none beside a change of the emission's state
  lockEmission(ctx.db, emission)
  refuseUnlessBeforeGeneration(ctx, emission)
  const r = ctx.row(emission)
  if (!r) {
    throw new AppError(
      'ILLEGAL_STATE',
      `emission ${emission} has no key ceremony yet: an operator opens it first`,
      because('CEREMONY_NOT_STARTED', { emission }),
    )
  }
  if (r.custodian !== null) {
    throw new AppError(
      'CONFLICT',
      `emission ${emission}'s key ceremony is complete: ${r.custodian} contributed its second share`,
      because('CEREMONY_COMPLETE', { emission, custodian: r.custodian }),
    )
  }
  return r
}

function refuseOldProtocol(r: CeremonyRow): void {
  if (Number(r.protocol) !== 1) return
  throw new AppError(
    'ILLEGAL_STATE',
    `emission ${r.emission}'s key ceremony was begun the old way (the backend's share first, readable by whoever holds the ledger key): ` +
      'an operator abandons it and opens it again, then the second person commits to their share before the backend draws its own',
    because('CEREMONY_OLD_PROTOCOL', { emission: Number(r.emission) }),
  )
}

/** The second person: never the opener, nor anyone who committed to an abandoned ceremony of the emission. */
function refuseCommitter(ctx: Ctx, r: CeremonyRow, actor: Actor): void {
  refuseUnconfirmed(ctx.db, actor)
  if (samePerson(r.started_by, actor.name)) {
    throw new AppError(
      'FORBIDDEN',
      `${actor.name} started this key ceremony: the second share must come from another person`,
      because('CEREMONY_SAME_PERSON', { name: actor.name }),
    )
  }
  const lapsed = (ctx.st.abandons.all(r.emission) as { committed_by: string | null }[]).some((a) =>
    samePerson(a.committed_by, actor.name),
  )
  if (lapsed) {
    throw new AppError(
      'FORBIDDEN',
      `${actor.name} committed to an abandoned key ceremony of emission ${r.emission}: another person is its custodian now`,
      because('CEREMONY_CUSTODIAN_ABANDONED', { name: actor.name, emission: Number(r.emission) }),
    )
  }
}

function commit(ctx: Ctx, actor: Actor, emission: number, commitment: string): void {
  const { st, keys, audit, clock } = ctx
  const h = commitmentOf(commitment)
  ctx.db
    .transaction(() => {
      const r = openCeremony(ctx, emission)
      refuseOldProtocol(r)
      if (r.committed_by !== null) {
        throw new AppError(
          'CONFLICT',
          `emission ${emission}'s key ceremony has ${r.committed_by}'s commitment already`,
          because('CEREMONY_COMMITTED', { emission, custodian: r.committed_by }),
        )
      }
      refuseCommitter(ctx, r, actor)
      // drawn only now that the custodian's share is fixed by its hash
      const share = new Uint8Array(randomBytes(32))
      const serverHash = shareHash(nodePrimitives, share)
      st.commit.run(
        actor.name,
        h,
        iso(clock()),
        keys.sealShare({ emission, party: 'server' }, share),
        serverHash,
        emission,
      )
      audit.record(actor.name, 'ceremony.commit', `emission:${emission}`, { custodianCommit: h, serverHash })
    })
    .immediate()
}

function reveal(ctx: Ctx, actor: Actor, emission: number, input: { share?: string; dice?: string }): void {
  const { st, keys, audit, clock } = ctx
  const { share, source } = custodianShare(input)
  const hash = shareHash(nodePrimitives, share)
  ctx.db
    .transaction(() => {
      const r = openCeremony(ctx, emission)
      refuseOldProtocol(r)
      if (r.committed_by === null || r.custodian_commit === null) {
        throw new AppError(
          'ILLEGAL_STATE',
          `emission ${emission}'s key ceremony has no commitment yet: commit to your share's hash first, then reveal it`,
          because('CEREMONY_NOT_COMMITTED', { emission }),
        )
      }
      if (!samePerson(r.committed_by, actor.name)) {
        throw new AppError(
          'FORBIDDEN',
          `${r.committed_by} committed to the second share: only they reveal it`,
          because('CEREMONY_NOT_CUSTODIAN', { name: actor.name, custodian: r.committed_by }),
        )
      }
      if (hash !== r.custodian_commit) {
        throw new AppError(
          'BAD_ARGUMENTS',
          `this share's SHA-256 is ${hash}, not the commitment ${r.custodian_commit}: reveal the very share you committed to`,
          {
            field: source === 'dice' ? 'dice' : 'share',
            ...because('CEREMONY_REVEAL_MISMATCH', { emission, commitment: r.custodian_commit, hash }),
          },
        )
      }
      st.reveal.run(
        actor.name,
        keys.sealShare({ emission, party: 'custodian' }, share),
        hash,
        source,
        iso(clock()),
        emission,
      )
      audit.record(actor.name, 'ceremony.reveal', `emission:${emission}`, {
        serverHash: r.server_hash,
        custodianHash: hash,
        source,
      })
    })
    .immediate()
}

function abandon(ctx: Ctx, actor: Actor, emission: number, reason: string): void {
  const { st, audit, clock } = ctx
  ctx.db
    .transaction(() => {
      const r = openCeremony(ctx, emission)
      st.keepAbandoned.run(actor.name, iso(clock()), reason, emission)
      st.drop.run(emission)
      const abandoned = st.abandons.all(emission).length
      audit.record(actor.name, 'ceremony.abandon', `emission:${emission}`, {
        reason,
        protocol: Number(r.protocol),
        serverHash: r.server_hash,
        committedBy: r.committed_by,
        custodianCommit: r.custodian_commit,
        abandoned,
      })
    })
    .immediate()
}

function start(ctx: Ctx, actor: Actor, emission: number): void {
  ctx.db
    .transaction(() => {
      lockEmission(ctx.db, emission)
      refuseUnlessBeforeGeneration(ctx, emission)
      refuseUnconfirmed(ctx.db, actor)
      if (ctx.row(emission)) {
        throw new AppError(
          'CONFLICT',
          `emission ${emission}'s key ceremony was started already: one per emission`,
          because('CEREMONY_EXISTS', { emission }),
        )
      }
      ctx.st.open.run(emission, actor.name, iso(ctx.clock()))
      ctx.audit.record(actor.name, 'ceremony.start', `emission:${emission}`, {
        protocol: 2,
        abandonedBefore: ctx.st.abandons.all(emission).length,
      })
    })
    .immediate()
}

/** A share opened, and checked against the hash recorded (and printed on the certificate) for it. */
function openChecked(
  { keys }: Ctx,
  emission: number,
  party: 'server' | 'custodian',
  sealed: Buffer,
  recorded: string,
): Uint8Array {
  const share = keys.openShare({ emission, party }, sealed)
  if (shareHash(nodePrimitives, share) !== recorded) {
    const whose = party === 'server' ? "the backend's share" : "the custodian's share"
    throw new AppError(
      'DATABASE',
      `${whose} of emission ${emission}'s key ceremony does not have the hash recorded for it: ` +
        "the ledger's record of the ceremony was altered; restore the ledger from a backup",
    )
  }
  return share
}

export function createCeremonyService(deps: CeremonyDeps): CeremonyService {
  const st = ceremonyStatements(deps.db)
  const ctx: Ctx = { ...deps, st, row: (emission) => st.read.get(emission) as CeremonyRow | undefined }
  const service: CeremonyService = {
    get: (emission) => {
      deps.catalog.emission(emission)
      const r = ctx.row(emission)
      return r
        ? toCeremony(r, (st.abandons.all(emission) as Parameters<typeof toAbandoned>[0][]).map(toAbandoned))
        : null
    },
    start: (actor, emission) => (start(ctx, actor, emission), service.get(emission)!),
    commit: (actor, emission, commitment) => (commit(ctx, actor, emission, commitment), service.get(emission)!),
    reveal: (actor, emission, input) => (reveal(ctx, actor, emission, input), service.get(emission)!),
    contribute: (actor, emission, input) => {
      const { share } = custodianShare(input)
      commit(ctx, actor, emission, shareHash(nodePrimitives, share))
      return service.reveal(actor, emission, input)
    },
    abandon: (actor, emission, reason) => (abandon(ctx, actor, emission, reason), null),
    shares(emission) {
      const r = ctx.row(emission)
      if (!r || !r.custodian_share || !r.custodian_hash || !r.server_share || !r.server_hash) return null
      return {
        server: openChecked(ctx, emission, 'server', r.server_share, r.server_hash),
        custodian: openChecked(ctx, emission, 'custodian', r.custodian_share, r.custodian_hash),
      }
    },
    blockSecret(emission, block) {
      const s = service.shares(emission)
      return s ? blockSecretFromShares(nodePrimitives, s.server, s.custodian, emission, block) : null
    },
  }
  return service
}
