/**
 * The key ceremony (DERIVATION.md §1.1) in the ledger: who may do what and when, what is kept
 * (hashes in the clear, shares sealed), and how generation and verification depend on it.
 */
import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { blockSecretFromShares, shareFromDice } from '../../game-core/seeding'
import { verifyBlock } from '../../game-core/verify'
import { batchRoots } from '../../game-core/commitment'
import { randomShareHex } from '../../test/support/ceremony'
import { smallDefinition } from '../../test/support/game-fixtures'
import { useServiceWorlds, type ServiceWorld } from '../../test/support/service-world'
import { newBlockSecret, nodePrimitives } from '../crypto/node-primitives'
import type { Actor } from './common'
import { refusalData as refusal } from '../../test/support/refusal'

const def = smallDefinition()
const T0 = Date.parse('2026-05-04T08:00:00Z')
const otto: Actor = { name: 'otto', role: 'operator' }
const aude: Actor = { name: 'aude', role: 'auditor' }
const DICE = '3141526535 8979323846 2643383279 5028841971 6939937510 5820974944 5923078164 0628620899 8628034825 3421170679'
  .replace(/[0789]/g, (d) => String({ 0: 6, 7: 1, 8: 2, 9: 3 }[d]))

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
  w.audit.list({ page: 1, pageSize: 50, action: action as never }).items.map((a) => ({ ...a, details: JSON.parse(a.details) as Record<string, unknown> })).reverse()

async function generate(w: World, emission: number) {
  const end = await w.jobs.wait(w.emissions.generate(otto, emission).id)
  expect(end.state, end.message).toBe('done')
}

describe('a key ceremony', () => {
  it('starts with the backend’s share, sealed, and its hash shown and audited', () => {
    const w = world()
    const e = w.emissions.create(otto, { blocks: 2 }).emission
    expect(w.ceremony.get(e)).toBeNull()
    const c = w.ceremony.start(otto, e)
    expect(c).toMatchObject({ emission: e, state: 'awaiting-custodian', startedBy: 'otto', custodian: null, custodianHash: null, custodianSource: null, contributedAt: null })
    expect(c.serverHash).toMatch(/^[0-9a-f]{64}$/)
    expect(auditOf(w, 'ceremony.start')).toMatchObject([{ actor: 'otto', object: `emission:${e}`, details: { serverHash: c.serverHash } }])
  })

  it('is completed by a second person with 32 bytes of their own: hashes of both shares, who and when, audited', () => {
    const w = world()
    const e = w.emissions.create(otto, { blocks: 1 }).emission
    const started = w.ceremony.start(otto, e)
    const share = randomShareHex()
    const c = w.ceremony.contribute(aude, e, { share })
    expect(c).toMatchObject({ state: 'complete', serverHash: started.serverHash, custodian: 'aude', custodianSource: 'random', custodianHash: sha(Buffer.from(share, 'hex')) })
    expect(Date.parse(c.contributedAt!)).toBeGreaterThan(Date.parse(c.startedAt))
    expect(auditOf(w, 'ceremony.contribute')).toMatchObject([{ actor: 'aude', details: { serverHash: started.serverHash, custodianHash: c.custodianHash, source: 'random' } }])
    const shares = w.ceremony.shares(e)!
    expect(sha(shares.server)).toBe(c.serverHash)
    expect(Buffer.from(shares.custodian).toString('hex')).toBe(share)
  })

  it('takes the second share from dice: SHA256 of ascii("CARATS/v1/dice") and the rolls', () => {
    const w = world()
    const e = w.emissions.create(otto, { blocks: 1 }).emission
    w.ceremony.start(otto, e)
    const c = w.ceremony.contribute(aude, e, { dice: DICE })
    expect(c).toMatchObject({ custodianSource: 'dice', custodianHash: sha(shareFromDice(nodePrimitives, DICE)) })
  })

  it('refuses dice that are not rolls, or too few, saying which', () => {
    const w = world()
    const e = w.emissions.create(otto, { blocks: 1 }).emission
    w.ceremony.start(otto, e)
    expect(refusal(() => w.ceremony.contribute(aude, e, { dice: DICE.replace('5', '7') }))).toMatchObject({ code: 'BAD_ARGUMENTS', reason: { key: 'DICE_NOT_A_ROLL', params: { char: '7' } } })
    expect(refusal(() => w.ceremony.contribute(aude, e, { dice: DICE.slice(0, 60) }))).toMatchObject({ code: 'BAD_ARGUMENTS', message: expect.stringContaining('at least 100'), reason: { key: 'DICE_TOO_FEW', params: { min: 100 } } })
    expect(w.ceremony.get(e)!.state).toBe('awaiting-custodian')
  })

  it('never takes its second share from the person who started it, whatever the case of their name', () => {
    const w = world()
    const e = w.emissions.create(otto, { blocks: 1 }).emission
    w.ceremony.start(otto, e)
    for (const who of [otto, { name: 'OTTO', role: 'auditor' } as Actor]) {
      expect(refusal(() => w.ceremony.contribute(who, e, { share: randomShareHex() }))).toMatchObject({ code: 'FORBIDDEN', reason: { key: 'CEREMONY_SAME_PERSON' } })
    }
    expect(w.ceremony.get(e)!.state).toBe('awaiting-custodian')
    expect(auditOf(w, 'ceremony.contribute')).toHaveLength(0)
  })

  it('happens once per emission: no second start, no second share, no share before the start', () => {
    const w = world()
    const e = w.emissions.create(otto, { blocks: 1 }).emission
    expect(refusal(() => w.ceremony.contribute(aude, e, { share: randomShareHex() }))).toMatchObject({ code: 'ILLEGAL_STATE', reason: { key: 'CEREMONY_NOT_STARTED' } })
    const first = w.ceremony.start(otto, e)
    expect(refusal(() => w.ceremony.start(otto, e))).toMatchObject({ code: 'CONFLICT', reason: { key: 'CEREMONY_EXISTS' } })
    expect(refusal(() => w.ceremony.start(aude, e))).toMatchObject({ code: 'CONFLICT' })
    w.ceremony.contribute(aude, e, { share: randomShareHex() })
    expect(refusal(() => w.ceremony.contribute({ name: 'max', role: 'manager' }, e, { share: randomShareHex() }))).toMatchObject({ code: 'CONFLICT', reason: { key: 'CEREMONY_COMPLETE', params: { custodian: 'aude' } } })
    expect(w.ceremony.get(e)!.serverHash).toBe(first.serverHash)
    expect(auditOf(w, 'ceremony.start')).toHaveLength(1)
  })

  it('is refused once the emission’s blocks are generated', async () => {
    const w = world()
    const e = w.emissions.create(otto, { blocks: 1, demo: true }).emission
    await generate(w, e)
    expect(refusal(() => w.ceremony.start(otto, e))).toMatchObject({ code: 'ILLEGAL_STATE', reason: { key: 'CEREMONY_TOO_LATE', params: { status: 'generated' } } })
    const f = w.emissions.create(otto, { blocks: 1 }).emission
    w.ceremony.start(otto, f)
    w.ceremony.contribute(aude, f, { share: randomShareHex() })
    await generate(w, f)
    expect(refusal(() => w.ceremony.contribute(aude, f, { share: randomShareHex() }))).toMatchObject({ code: 'ILLEGAL_STATE', reason: { key: 'CEREMONY_TOO_LATE' } })
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
      const file = Buffer.concat((raw.prepare('SELECT server_share, custodian_share FROM key_ceremonies UNION ALL SELECT secret, NULL FROM blocks').raw().all() as (Buffer | null)[][]).flat().filter((x): x is Buffer => x !== null))
      for (const secret of [server, custodian, ...secrets]) expect(file.indexOf(Buffer.from(secret))).toBe(-1)
      const text = JSON.stringify(raw.prepare('SELECT * FROM audit').all())
      for (const secret of [server, custodian, ...secrets]) expect(text).not.toContain(Buffer.from(secret).toString('hex'))
    }
  })
})

describe('generation from the ceremony', () => {
  it('refuses a real emission without a complete ceremony, and writes nothing', () => {
    const w = world()
    const e = w.emissions.create(otto, { blocks: 2 }).emission
    const before = w.audit.list({ page: 1, pageSize: 50 }).total
    expect(refusal(() => w.emissions.generate(otto, e))).toMatchObject({ code: 'ILLEGAL_STATE', message: expect.stringContaining('key ceremony'), reason: { key: 'CEREMONY_REQUIRED', params: { emission: e } } })
    w.ceremony.start(otto, e)
    expect(refusal(() => w.emissions.generate(otto, e))).toMatchObject({ code: 'ILLEGAL_STATE', reason: { key: 'CEREMONY_REQUIRED' } })
    expect(w.audit.list({ page: 1, pageSize: 50 }).total).toBe(before + 1) // the ceremony's start alone
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
      expect(Buffer.from(w.keys.openSecret({ emission: e, block: b.block }, b.secret!))).toEqual(Buffer.from(blockSecretFromShares(nodePrimitives, server, custodian, e, b.block)))
    }
    expect(auditOf(w, 'block.generate').map((a) => a.details)).toMatchObject([{ seeding: 'two-person' }, { seeding: 'two-person' }])
    expect(w.emissions.get(e).blockList.map((b) => b.seeding)).toEqual(['two-person', 'two-person'])
    expect(w.emissions.certificate(e)).toMatchObject({ singleControl: false, ceremony: c, blocks: [{ seeding: 'two-person' }, { seeding: 'two-person' }] })
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
    w.db.prepare('UPDATE blocks SET secret = ?, commitment = ?, merkle_root = ?, proof_roots = ? WHERE emission = ? AND block = 2')
      .run(w.keys.sealSecret({ emission: e, block: 2 }, chosen), v.commitment, v.merkleRoot, Buffer.from(batchRoots(nodePrimitives, v.leafHashes)), e)
    const end = await w.jobs.wait(w.emissions.verify(aude, e).id)
    expect(end.state).toBe('failed')
    const verdicts = w.emissions.get(e).blockList
    expect(verdicts.map((b) => b.status)).toEqual(['verified', 'failed'])
    const [one, two] = w.verifications.latest(e).blocks
    expect(one).toMatchObject({ sound: true, problems: [] })
    expect(two).toMatchObject({ sound: false, commitmentMatches: true, prizeTableExact: true, problems: ["the block's secret is not the one its key ceremony gives"] })
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
    w.db.prepare('UPDATE key_ceremonies SET custodian_hash = ? WHERE emission = ?').run(forged, e)
    const refused = await w.jobs.wait(w.emissions.generate(otto, e).id)
    expect(refused.state).toBe('failed')
    expect(refused.message).toContain(`the custodian's share of emission ${e}'s key ceremony does not have the hash recorded for it`)
    w.db.prepare('UPDATE key_ceremonies SET custodian_hash = ? WHERE emission = ?').run(honest, e)
    await generate(w, e)
    w.db.prepare('UPDATE key_ceremonies SET server_hash = ? WHERE emission = ?').run(forged, e)
    const end = await w.jobs.wait(w.emissions.verify(aude, e).id)
    expect(end.state).toBe('failed')
    expect(w.verifications.latest(e).blocks[0]).toMatchObject({ sound: false, commitmentMatches: true })
    expect(w.verifications.latest(e).blocks[0].problems.join()).toContain(`the backend's share of emission ${e}'s key ceremony does not have the hash recorded for it`)
  })
})
