/**
 * The key ceremony (DERIVATION.md §1.1) in the ledger: who may do what and when, what is kept
 * (hashes in the clear, shares sealed), and how generation and verification depend on it.
 */
import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { blockSecretFromShares, shareFromDice } from '../../../game-core/seeding'
import { verifyBlock } from '../../../game-core/verify'
import { batchRoots } from '../../../game-core/commitment'
import { randomShareHex } from '../../../test/support/ceremony'
import { smallDefinition } from '../../../test/support/game-fixtures'
import { useServiceWorlds, type ServiceWorld } from '../../../test/support/service-world'
import { newBlockSecret, nodePrimitives } from '../../crypto/node-primitives'
import type { Actor } from '../common'
import { refusalData as refusal } from '../../../test/support/refusal'

const def = smallDefinition()
const T0 = Date.parse('2026-05-04T08:00:00Z')
const otto: Actor = { name: 'otto', role: 'operator' }
const aude: Actor = { name: 'aude', role: 'auditor' }
const DICE =
  '3141526535 8979323846 2643383279 5028841971 6939937510 5820974944 5923078164 0628620899 8628034825 3421170679'.replace(
    /[0789]/g,
    (d) => String({ 0: 6, 7: 1, 8: 2, 9: 3 }[d]),
  )

type World = ServiceWorld

const serviceWorld = useServiceWorlds('ceremony')

function world(): World {
  let now = T0
  return serviceWorld({
    clock: () => new Date((now += 1000)),
    verifyBlock: async (d, ref) => verifyBlock(d, nodePrimitives, ref, { commitmentVersion: ref.commitmentVersion }),
    definition: def,
  })
}

const sha = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex')
const auditOf = (w: World, action: string) =>
  w.audit
    .list({ page: 1, pageSize: 50, action: action as never })
    .items.map((a) => ({ ...a, details: JSON.parse(a.details) as Record<string, unknown> }))
    .reverse()

async function generate(w: World, emission: number) {
  const end = await w.jobs.wait(w.emissions.generate(otto, emission).id)
  expect(end.state, end.message).toBe('done')
}

describe('a key ceremony', () => {
  it('is opened by an operator with no share drawn yet, audited', () => {
    const w = world()
    const e = w.emissions.create(otto, { blocks: 2 }).emission
    expect(w.ceremony.get(e)).toBeNull()
    const c = w.ceremony.start(otto, e)
    expect(c).toMatchObject({
      emission: e,
      protocol: 2,
      state: 'awaiting-commitment',
      serverHash: null,
      startedBy: 'otto',
      committedBy: null,
      custodian: null,
      abandoned: [],
    })
    expect(w.db.prepare('SELECT server_share FROM key_ceremonies WHERE emission = ?').pluck().get(e)).toBeNull()
    expect(auditOf(w, 'ceremony.start')).toMatchObject([
      { actor: 'otto', object: `emission:${e}`, details: { protocol: 2, abandonedBefore: 0 } },
    ])
  })

  it('draws the backend’s share only once the second person has committed to theirs, then takes the share committed to', () => {
    const w = world()
    const e = w.emissions.create(otto, { blocks: 1 }).emission
    w.ceremony.start(otto, e)
    const share = randomShareHex()
    const commitment = sha(Buffer.from(share, 'hex'))
    const committed = w.ceremony.commit(aude, e, commitment.toUpperCase())
    expect(committed).toMatchObject({
      state: 'awaiting-reveal',
      committedBy: 'aude',
      custodianCommit: commitment,
      custodian: null,
      custodianHash: null,
    })
    expect(committed.serverHash).toMatch(/^[0-9a-f]{64}$/)
    expect(auditOf(w, 'ceremony.commit')).toMatchObject([
      { actor: 'aude', details: { custodianCommit: commitment, serverHash: committed.serverHash } },
    ])
    const c = w.ceremony.reveal(aude, e, { share })
    expect(c).toMatchObject({
      state: 'complete',
      serverHash: committed.serverHash,
      custodian: 'aude',
      custodianSource: 'random',
      custodianHash: commitment,
    })
    expect(Date.parse(c.contributedAt!)).toBeGreaterThan(Date.parse(c.committedAt!))
    expect(auditOf(w, 'ceremony.reveal')).toMatchObject([
      { actor: 'aude', details: { serverHash: committed.serverHash, custodianHash: commitment, source: 'random' } },
    ])
    const shares = w.ceremony.shares(e)!
    expect(sha(shares.server)).toBe(c.serverHash)
    expect(Buffer.from(shares.custodian).toString('hex')).toBe(share)
  })

  it('holds against the key holder: the backend’s share read after the commitment cannot change the custodian’s share', () => {
    const w = world()
    const e = w.emissions.create(otto, { blocks: 1 }).emission
    w.ceremony.start(otto, e)
    const share = randomShareHex()
    w.ceremony.commit(aude, e, sha(Buffer.from(share, 'hex')))
    // whoever holds the key file opens the backend's share while the ceremony waits for the reveal…
    const sealed = w.db.prepare('SELECT server_share FROM key_ceremonies WHERE emission = ?').pluck().get(e) as Buffer
    const server = w.keys.openShare({ emission: e, party: 'server' }, sealed)
    // …and picks, among shares of their making, one that gives block 1 the secret they like best: it is refused
    const chosen = [randomShareHex(), randomShareHex(), randomShareHex()]
      .map((hex) => ({
        hex,
        s: Buffer.from(blockSecretFromShares(nodePrimitives, server, Buffer.from(hex, 'hex'), e, 1)),
      }))
      .sort((a, b) => Buffer.compare(a.s, b.s))[0]
    expect(refusal(() => w.ceremony.reveal(aude, e, { share: chosen.hex }))).toMatchObject({
      code: 'BAD_ARGUMENTS',
      reason: { key: 'CEREMONY_REVEAL_MISMATCH', params: { emission: e, commitment: sha(Buffer.from(share, 'hex')) } },
    })
    expect(refusal(() => w.ceremony.reveal(aude, e, { dice: DICE }))).toMatchObject({
      reason: { key: 'CEREMONY_REVEAL_MISMATCH' },
    })
    expect(w.ceremony.get(e)!.state).toBe('awaiting-reveal')
    expect(auditOf(w, 'ceremony.reveal')).toHaveLength(0)
    expect(w.ceremony.reveal(aude, e, { share }).state).toBe('complete')
  })

  it('refuses a reveal before the commitment, and from anyone but who committed', () => {
    const w = world()
    const e = w.emissions.create(otto, { blocks: 1 }).emission
    w.ceremony.start(otto, e)
    expect(refusal(() => w.ceremony.reveal(aude, e, { share: randomShareHex() }))).toMatchObject({
      code: 'ILLEGAL_STATE',
      reason: { key: 'CEREMONY_NOT_COMMITTED' },
    })
    const share = randomShareHex()
    w.ceremony.commit(aude, e, sha(Buffer.from(share, 'hex')))
    expect(refusal(() => w.ceremony.reveal({ name: 'max', role: 'manager' }, e, { share }))).toMatchObject({
      code: 'FORBIDDEN',
      reason: { key: 'CEREMONY_NOT_CUSTODIAN', params: { custodian: 'aude' } },
    })
    expect(refusal(() => w.ceremony.commit({ name: 'max', role: 'manager' }, e, 'ab'.repeat(32)))).toMatchObject({
      code: 'CONFLICT',
      reason: { key: 'CEREMONY_COMMITTED' },
    })
    expect(w.ceremony.get(e)!.state).toBe('awaiting-reveal')
  })

  it('takes the second share from dice: SHA256 of ascii("CARATS/v1/dice") and the rolls', () => {
    const w = world()
    const e = w.emissions.create(otto, { blocks: 1 }).emission
    w.ceremony.start(otto, e)
    const hash = sha(shareFromDice(nodePrimitives, DICE))
    w.ceremony.commit(aude, e, hash)
    const c = w.ceremony.reveal(aude, e, { dice: DICE })
    expect(c).toMatchObject({ custodianSource: 'dice', custodianHash: hash })
  })

  it('refuses dice that are not rolls, or too few, saying which', () => {
    const w = world()
    const e = w.emissions.create(otto, { blocks: 1 }).emission
    w.ceremony.start(otto, e)
    w.ceremony.commit(aude, e, sha(shareFromDice(nodePrimitives, DICE)))
    expect(refusal(() => w.ceremony.reveal(aude, e, { dice: DICE.replace('5', '7') }))).toMatchObject({
      code: 'BAD_ARGUMENTS',
      reason: { key: 'DICE_NOT_A_ROLL', params: { char: '7' } },
    })
    expect(refusal(() => w.ceremony.reveal(aude, e, { dice: DICE.slice(0, 60) }))).toMatchObject({
      code: 'BAD_ARGUMENTS',
      message: expect.stringContaining('at least 100'),
      reason: { key: 'DICE_TOO_FEW', params: { min: 100 } },
    })
    expect(w.ceremony.get(e)!.state).toBe('awaiting-reveal')
  })

  it('never takes the commitment from the person who opened it, whatever the case of their name', () => {
    const w = world()
    const e = w.emissions.create(otto, { blocks: 1 }).emission
    w.ceremony.start(otto, e)
    for (const who of [otto, { name: 'OTTO', role: 'auditor' } as Actor]) {
      expect(refusal(() => w.ceremony.commit(who, e, 'ab'.repeat(32)))).toMatchObject({
        code: 'FORBIDDEN',
        reason: { key: 'CEREMONY_SAME_PERSON' },
      })
      expect(refusal(() => w.ceremony.contribute(who, e, { share: randomShareHex() }))).toMatchObject({
        code: 'FORBIDDEN',
        reason: { key: 'CEREMONY_SAME_PERSON' },
      })
    }
    expect(w.ceremony.get(e)).toMatchObject({ state: 'awaiting-commitment', serverHash: null })
    expect(auditOf(w, 'ceremony.commit')).toHaveLength(0)
  })

  it('happens once per emission: no second start, no second share, no share before the start', () => {
    const w = world()
    const e = w.emissions.create(otto, { blocks: 1 }).emission
    expect(refusal(() => w.ceremony.commit(aude, e, 'ab'.repeat(32)))).toMatchObject({
      code: 'ILLEGAL_STATE',
      reason: { key: 'CEREMONY_NOT_STARTED' },
    })
    w.ceremony.start(otto, e)
    expect(refusal(() => w.ceremony.start(otto, e))).toMatchObject({
      code: 'CONFLICT',
      reason: { key: 'CEREMONY_EXISTS' },
    })
    expect(refusal(() => w.ceremony.start(aude, e))).toMatchObject({ code: 'CONFLICT' })
    const done = w.ceremony.contribute(aude, e, { share: randomShareHex() })
    expect(
      refusal(() => w.ceremony.contribute({ name: 'max', role: 'manager' }, e, { share: randomShareHex() })),
    ).toMatchObject({ code: 'CONFLICT', reason: { key: 'CEREMONY_COMPLETE', params: { custodian: 'aude' } } })
    expect(refusal(() => w.ceremony.abandon(otto, e, 'too late'))).toMatchObject({
      code: 'CONFLICT',
      reason: { key: 'CEREMONY_COMPLETE' },
    })
    expect(w.ceremony.get(e)!.serverHash).toBe(done.serverHash)
    expect(auditOf(w, 'ceremony.start')).toHaveLength(1)
  })

  it('is abandoned by an operator when its custodian never reveals: kept, audited, on the certificate; that custodian is not taken again', () => {
    const w = world()
    const e = w.emissions.create(otto, { blocks: 1 }).emission
    w.ceremony.start(otto, e)
    const first = w.ceremony.commit(aude, e, 'ab'.repeat(32))
    expect(w.ceremony.abandon(otto, e, 'aude did not reveal her share')).toBeNull()
    expect(w.ceremony.get(e)).toBeNull()
    expect(auditOf(w, 'ceremony.abandon')).toMatchObject([
      {
        actor: 'otto',
        details: {
          reason: 'aude did not reveal her share',
          protocol: 2,
          serverHash: first.serverHash,
          committedBy: 'aude',
          custodianCommit: 'ab'.repeat(32),
          abandoned: 1,
        },
      },
    ])
    w.ceremony.start(otto, e)
    expect(refusal(() => w.ceremony.commit({ name: 'Aude', role: 'auditor' }, e, 'cd'.repeat(32)))).toMatchObject({
      code: 'FORBIDDEN',
      reason: { key: 'CEREMONY_CUSTODIAN_ABANDONED' },
    })
    const c = w.ceremony.contribute({ name: 'max', role: 'manager' }, e, { share: randomShareHex() })
    expect(c).toMatchObject({ state: 'complete', custodian: 'max' })
    expect(c.abandoned).toMatchObject([
      {
        protocol: 2,
        startedBy: 'otto',
        committedBy: 'aude',
        serverHash: first.serverHash,
        abandonedBy: 'otto',
        reason: 'aude did not reveal her share',
      },
    ])
    expect(w.emissions.certificate(e).ceremony!.abandoned).toHaveLength(1)
    expect(auditOf(w, 'ceremony.start').map((a) => a.details)).toEqual([
      { protocol: 2, abandonedBefore: 0 },
      { protocol: 2, abandonedBefore: 1 },
    ])
  })

  it('is refused once the emission’s blocks are generated', async () => {
    const w = world()
    const e = w.emissions.create(otto, { blocks: 1, demo: true }).emission
    await generate(w, e)
    expect(refusal(() => w.ceremony.start(otto, e))).toMatchObject({
      code: 'ILLEGAL_STATE',
      reason: { key: 'CEREMONY_TOO_LATE', params: { status: 'generated' } },
    })
    const f = w.emissions.create(otto, { blocks: 1 }).emission
    w.ceremony.start(otto, f)
    w.ceremony.contribute(aude, f, { share: randomShareHex() })
    await generate(w, f)
    expect(refusal(() => w.ceremony.contribute(aude, f, { share: randomShareHex() }))).toMatchObject({
      code: 'ILLEGAL_STATE',
      reason: { key: 'CEREMONY_TOO_LATE' },
    })
    expect(refusal(() => w.ceremony.abandon(otto, f, 'after the fact'))).toMatchObject({
      code: 'ILLEGAL_STATE',
      reason: { key: 'CEREMONY_TOO_LATE' },
    })
  })

  it('keeps the shares sealed: the database alone shows their hashes, never the shares or the secrets', async () => {
    const w = world()
    const e = w.emissions.create(otto, { blocks: 2 }).emission
    w.ceremony.start(otto, e)
    const share = randomShareHex()
    w.ceremony.contribute(aude, e, { share })
    await generate(w, e)
    const { server, custodian } = w.ceremony.shares(e)!
    const secrets = [1, 2].map((b) => blockSecretFromShares(nodePrimitives, server, custodian, e, b))
    // what is stored, read as anyone with the database alone would (the app's own connection: same rows)
    const raw = w.db
    {
      const row = raw.prepare('SELECT * FROM key_ceremonies WHERE emission = ?').get(e) as Record<string, unknown>
      expect(row.server_hash).toBe(sha(server))
      expect(row.custodian_hash).toBe(sha(custodian))
      const file = Buffer.concat(
        (
          raw
            .prepare(
              'SELECT server_share, custodian_share FROM key_ceremonies UNION ALL SELECT secret, NULL FROM blocks',
            )
            .raw()
            .all() as (Buffer | null)[][]
        )
          .flat()
          .filter((x): x is Buffer => x !== null),
      )
      for (const secret of [server, custodian, ...secrets]) expect(file.indexOf(Buffer.from(secret))).toBe(-1)
      const text = JSON.stringify(raw.prepare('SELECT * FROM audit').all())
      for (const secret of [server, custodian, ...secrets])
        expect(text).not.toContain(Buffer.from(secret).toString('hex'))
    }
  })
})

describe('generation from the ceremony', () => {
  it('refuses a real emission without a complete ceremony, and writes nothing', () => {
    const w = world()
    const e = w.emissions.create(otto, { blocks: 2 }).emission
    const before = w.audit.list({ page: 1, pageSize: 50 }).total
    expect(refusal(() => w.emissions.generate(otto, e))).toMatchObject({
      code: 'ILLEGAL_STATE',
      message: expect.stringContaining('key ceremony'),
      reason: { key: 'CEREMONY_REQUIRED', params: { emission: e } },
    })
    w.ceremony.start(otto, e)
    expect(refusal(() => w.emissions.generate(otto, e))).toMatchObject({
      code: 'ILLEGAL_STATE',
      reason: { key: 'CEREMONY_REQUIRED' },
    })
    w.ceremony.commit(aude, e, 'ab'.repeat(32))
    expect(refusal(() => w.emissions.generate(otto, e))).toMatchObject({
      code: 'ILLEGAL_STATE',
      reason: { key: 'CEREMONY_REQUIRED' },
    })
    expect(w.audit.list({ page: 1, pageSize: 50 }).total).toBe(before + 2) // the ceremony's start and commitment alone
    expect(w.emissions.summary(e)).toMatchObject({ status: 'created', blocksGenerated: 0, jobId: null })
    expect(w.catalog.blocks(e).every((b) => b.status === 'pending' && b.secret === null)).toBe(true)
  })

  it('makes each block’s secret from both shares, seeding two-person, audited; the certificate names the ceremony', async () => {
    const w = world()
    const e = w.emissions.create(otto, { blocks: 2 }).emission
    w.ceremony.start(otto, e)
    const c = w.ceremony.contribute(aude, e, { share: randomShareHex() })
    await generate(w, e)
    const { server, custodian } = w.ceremony.shares(e)!
    for (const b of w.catalog.blocks(e)) {
      expect(b.seeding).toBe('two-person')
      expect(Buffer.from(w.keys.openSecret({ emission: e, block: b.block }, b.secret!))).toEqual(
        Buffer.from(blockSecretFromShares(nodePrimitives, server, custodian, e, b.block)),
      )
    }
    expect(auditOf(w, 'block.generate').map((a) => a.details)).toMatchObject([
      { seeding: 'two-person' },
      { seeding: 'two-person' },
    ])
    expect(w.emissions.get(e).blockList.map((b) => b.seeding)).toEqual(['two-person', 'two-person'])
    expect(w.emissions.certificate(e)).toMatchObject({
      singleControl: false,
      ceremony: c,
      blocks: [{ seeding: 'two-person' }, { seeding: 'two-person' }],
    })
  })

  it('lets one person generate a demonstration emission, single control, as the certificate says', async () => {
    const w = world()
    const e = w.emissions.create(otto, { blocks: 1, demo: true }).emission
    await generate(w, e)
    expect(w.catalog.block(e, 1).seeding).toBe('single')
    expect(auditOf(w, 'block.generate')[0].details).toMatchObject({ seeding: 'single' })
    expect(w.emissions.certificate(e)).toMatchObject({ singleControl: true, ceremony: null })
  })
})

describe('verification of a two-person block', () => {
  it('re-derives its secret from the ceremony: a secret swapped for another, commitment and all, makes the block unsound', async () => {
    const w = world()
    const e = w.emissions.create(otto, { blocks: 2 }).emission
    w.ceremony.start(otto, e)
    w.ceremony.contribute(aude, e, { share: randomShareHex() })
    await generate(w, e)
    // an insider with the ledger key remakes block 2 from a secret of their choosing, consistently
    const chosen = newBlockSecret()
    const v = verifyBlock(def, nodePrimitives, { emission: e, block: 2, secret: chosen }, { commitmentVersion: 2 })
    w.db
      .prepare(
        'UPDATE blocks SET secret = ?, commitment = ?, merkle_root = ?, proof_roots = ? WHERE emission = ? AND block = 2',
      )
      .run(
        w.keys.sealSecret({ emission: e, block: 2 }, chosen),
        v.commitment,
        v.merkleRoot,
        Buffer.from(batchRoots(nodePrimitives, v.leafHashes)),
        e,
      )
    const end = await w.jobs.wait(w.emissions.verify(aude, e).id)
    expect(end.state).toBe('failed')
    const verdicts = w.emissions.get(e).blockList
    expect(verdicts.map((b) => b.status)).toEqual(['verified', 'failed'])
    const [one, two] = w.verifications.latest(e).blocks
    expect(one).toMatchObject({ sound: true, problems: [] })
    expect(two).toMatchObject({
      sound: false,
      commitmentMatches: true,
      prizeTableExact: true,
      problems: ["the block's secret is not the one its key ceremony gives"],
    })
    expect(end.message).toContain("block 2: the block's secret is not the one its key ceremony gives")
  })

  it('checks each share against the hash it recorded: a hash edited in the file makes every block unsound and stops generation', async () => {
    const w = world()
    const e = w.emissions.create(otto, { blocks: 1 }).emission
    w.ceremony.start(otto, e)
    w.ceremony.contribute(aude, e, { share: randomShareHex() })
    const forged = 'ab'.repeat(32)
    const honest = w.ceremony.get(e)!.custodianHash!
    // the file edited: the certificate would print a hash that the share does not have
    w.db
      .prepare('UPDATE key_ceremonies SET custodian_hash = ?, custodian_commit = ? WHERE emission = ?')
      .run(forged, forged, e)
    const refused = await w.jobs.wait(w.emissions.generate(otto, e).id)
    expect(refused.state).toBe('failed')
    expect(refused.message).toContain(
      `the custodian's share of emission ${e}'s key ceremony does not have the hash recorded for it`,
    )
    w.db
      .prepare('UPDATE key_ceremonies SET custodian_hash = ?, custodian_commit = ? WHERE emission = ?')
      .run(honest, honest, e)
    await generate(w, e)
    w.db.prepare('UPDATE key_ceremonies SET server_hash = ? WHERE emission = ?').run(forged, e)
    const end = await w.jobs.wait(w.emissions.verify(aude, e).id)
    expect(end.state).toBe('failed')
    expect(w.verifications.latest(e).blocks[0]).toMatchObject({ sound: false, commitmentMatches: true })
    expect(w.verifications.latest(e).blocks[0].problems.join()).toContain(
      `the backend's share of emission ${e}'s key ceremony does not have the hash recorded for it`,
    )
  })
})

describe('a ceremony made the old way (protocol 1: the backend’s share first)', () => {
  /** The row a ledger before migration 14 kept, written as its service wrote it. */
  function oldCeremony(w: World, e: number, custodian: Uint8Array | null) {
    const server = new Uint8Array(crypto.getRandomValues(new Uint8Array(32)))
    w.db
      .prepare(
        'INSERT INTO key_ceremonies (emission, server_share, server_hash, started_by, started_at) VALUES (?, ?, ?, ?, ?)',
      )
      .run(
        e,
        w.keys.sealShare({ emission: e, party: 'server' }, server),
        sha(server),
        'otto',
        '2026-05-01T08:00:00.000Z',
      )
    if (custodian) {
      w.db
        .prepare(
          "UPDATE key_ceremonies SET custodian = 'aude', custodian_share = ?, custodian_hash = ?, custodian_source = 'dice', contributed_at = ? WHERE emission = ?",
        )
        .run(
          w.keys.sealShare({ emission: e, party: 'custodian' }, custodian),
          sha(custodian),
          '2026-05-01T08:05:00.000Z',
          e,
        )
    }
    return server
  }

  it('still generates and verifies, each secret HMAC(A ‖ C, …) as before', async () => {
    const w = world()
    const e = w.emissions.create(otto, { blocks: 2 }).emission
    const custodian = shareFromDice(nodePrimitives, DICE)
    const server = oldCeremony(w, e, custodian)
    expect(w.ceremony.get(e)).toMatchObject({
      protocol: 1,
      state: 'complete',
      serverHash: sha(server),
      committedBy: null,
      custodianCommit: null,
      custodianHash: sha(custodian),
    })
    await generate(w, e)
    for (const b of [1, 2]) {
      expect(Buffer.from(w.keys.openSecret({ emission: e, block: b }, w.catalog.block(e, b).secret!))).toEqual(
        Buffer.from(blockSecretFromShares(nodePrimitives, server, custodian, e, b)),
      )
    }
    const end = await w.jobs.wait(w.emissions.verify(aude, e).id)
    expect(end.state, end.message).toBe('done')
    expect(w.verifications.latest(e).blocks.map((b) => b.sound)).toEqual([true, true])
  })

  it('is not completed the old way any more once begun: an operator abandons it and opens a commit-first one', () => {
    const w = world()
    const e = w.emissions.create(otto, { blocks: 1 }).emission
    oldCeremony(w, e, null)
    expect(w.ceremony.get(e)).toMatchObject({ protocol: 1, state: 'awaiting-custodian' })
    expect(refusal(() => w.ceremony.contribute(aude, e, { share: randomShareHex() }))).toMatchObject({
      code: 'ILLEGAL_STATE',
      reason: { key: 'CEREMONY_OLD_PROTOCOL' },
    })
    expect(refusal(() => w.ceremony.reveal(aude, e, { share: randomShareHex() }))).toMatchObject({
      code: 'ILLEGAL_STATE',
      reason: { key: 'CEREMONY_OLD_PROTOCOL' },
    })
    w.ceremony.abandon(otto, e, 'begun before the commit-first protocol')
    w.ceremony.start(otto, e)
    expect(w.ceremony.contribute(aude, e, { share: randomShareHex() })).toMatchObject({
      protocol: 2,
      state: 'complete',
      abandoned: [{ protocol: 1, committedBy: null }],
    })
  })
})
