import { describe, expect, it } from 'vitest'
import { AppError } from '../../contract/errors'
import { BlockDeriver } from '../../../game-core/block'
import { chunkCount } from '../../../game-core/commitment'
import { assembleVerification, processChunks, verifyBlock } from '../../../game-core/verify'
import { completeCeremony } from '../../../test/support/ceremony'
import { smallDefinition } from '../../../test/support/game-fixtures'
import { useServiceWorlds, type ServiceWorld } from '../../../test/support/service-world'
import { newBlockSecret, nodePrimitives } from '../../crypto/node-primitives'
import type { Actor } from '../common'
import type { VerifyBlockFn } from './block-pool'
import { SOFTWARE } from './verifications'
import { forgedHex } from '../../../test/support/forge'

const def = smallDefinition()
const T0 = Date.parse('2026-05-04T08:00:00Z')
const operator: Actor = { name: 'otto', role: 'operator' }
const auditor: Actor = { name: 'aude', role: 'auditor' }

interface World extends ServiceWorld {
  /** Moves the clock on. */
  tick(ms: number): void
  /** What the next verifications run instead of the honest check of a block (by block number). */
  alter: Map<number, VerifyBlockFn>
}

const serviceWorld = useServiceWorlds('verdicts')

function world(): World {
  let now = T0
  const alter = new Map<number, VerifyBlockFn>()
  // each block takes 1.5 s of the test's clock
  const verify: VerifyBlockFn = async (d, ref, opts) => {
    now += 1_500
    const instead = alter.get(ref.block)
    return instead ? instead(d, ref, opts) : verifyBlock(d, nodePrimitives, ref)
  }
  const w = serviceWorld({ clock: () => new Date(now), verifyBlock: verify, definition: def })
  return { ...w, alter, tick: (ms) => (now += ms) }
}

async function generated(w: World, blocks = 2, code = 'SPRING'): Promise<number> {
  const e = w.emissions.create(operator, { blocks, code, startsOn: '2026-06-01' })
  completeCeremony(w.ceremony, e.emission, { starter: operator, custodian: auditor })
  const g = await w.jobs.wait(w.emissions.generate(operator, e.emission).id)
  expect(g.state).toBe('done')
  return e.emission
}

async function verified(w: World, who: Actor, emission: number) {
  return w.jobs.wait(w.emissions.verify(who, emission).id)
}

/** One unit's record altered after synthesis: its prize field says 1 cent more. */
function alteredUnit(unit: number): VerifyBlockFn {
  return async (d, ref) => {
    const deriver = new BlockDeriver(d, nodePrimitives, ref)
    const original = deriver.records.bind(deriver)
    const rb = deriver.synthesizer.recordBytes
    deriver.records = (first: number, count: number, into?: Uint8Array) => {
      const rec = original(first, count, into)
      if (unit >= first && unit < first + count) rec[(unit - first) * rb + 7] ^= 1
      return rec
    }
    return assembleVerification(d, nodePrimitives, ref, [processChunks(deriver, 0, chunkCount(d))])
  }
}

describe('verdicts of block verification', () => {
  it('states each block sound, with its commitment reproduced, units, prize table, time, who and which software', async () => {
    const w = world()
    const e = await generated(w)
    const end = await verified(w, auditor, e)
    expect(end.state).toBe('done')

    const { latest, blocks } = w.verifications.latest(e)
    expect(latest).toMatchObject({
      emission: e,
      actor: 'aude',
      role: 'auditor',
      software: SOFTWARE,
      blocks: 2,
      blocksChecked: 2,
      blocksSound: 2,
      unsoundBlocks: [],
      outcome: 'sound',
      error: null,
      ms: 3_000,
    })
    expect(SOFTWARE).toMatch(/^CARATS back-office \d+\.\d+\.\d+/)
    const commitments = w.catalog.blocks(e).map((b) => b.commitment)
    expect(blocks.map((b) => b.block)).toEqual([1, 2])
    blocks.forEach((b, i) => {
      expect(b).toMatchObject({
        verification: latest!.id,
        sound: true,
        commitmentRecorded: commitments[i],
        commitmentReproduced: commitments[i],
        commitmentMatches: true,
        unitsChecked: def.blockSize,
        unitsTotal: def.blockSize,
        unitsFailed: 0,
        prizeTableExact: true,
        problems: [],
        ms: 1_500,
        actor: 'aude',
      })
      expect(b.tiers).toEqual(def.tiers.map((t) => ({ amountCents: t.amountCents, expected: t.count, found: t.count })))
      expect(b.losingFound).toBe(b.losingExpected)
      expect(b.prizeTotalCents).toBe(def.tiers.reduce((a, t) => a + t.amountCents * t.count, 0))
    })

    // the audit log says the verdict, per block and for the emission
    const done = w.audit.list({ page: 1, pageSize: 5, action: 'emission.verify-done' }).items[0]
    expect(JSON.parse(done.details)).toEqual({
      from: 'generated',
      to: 'verified',
      verification: latest!.id,
      outcome: 'sound',
      blocks: 2,
      sound: 2,
      unsound: [],
      ms: 3_000,
    })
    const block = w.audit.list({ page: 1, pageSize: 5, action: 'block.verify' }).items.map((a) => JSON.parse(a.details))
    expect(block[0]).toEqual({
      commitment: commitments[1],
      verification: latest!.id,
      units: def.blockSize,
      commitmentReproduced: true,
      prizeTableExact: true,
      ms: 1_500,
    })
    expect(w.audit.verify().ok).toBe(true)
  })

  it('keeps every verification: a re-verification adds a verdict, the old ones stay and cannot be changed', async () => {
    const w = world()
    const e = await generated(w, 1)
    await verified(w, operator, e)
    w.tick(60_000)
    await verified(w, auditor, e)

    const history = w.verifications.history(e)
    expect(history.map((r) => [r.actor, r.outcome])).toEqual([
      ['aude', 'sound'],
      ['otto', 'sound'],
    ])
    expect(w.db.prepare('SELECT count(*) FROM verification_blocks').pluck().get()).toBe(2)
    const { latest, blocks } = w.verifications.latest(e)
    expect(latest!.id).toBe(history[0].id)
    expect(blocks).toHaveLength(1)
    expect(blocks[0]).toMatchObject({ verification: history[0].id, actor: 'aude' })
    // the report of the first is still there, as it was
    expect(w.verifications.report(e, history[1].id)).toMatchObject({
      run: { actor: 'otto' },
      blocks: [{ block: 1, sound: true }],
      history,
    })

    expect(() => w.db.prepare('UPDATE verification_blocks SET sound = 0').run()).toThrow(
      /verdict is history: it cannot be changed/,
    )
    expect(() => w.db.prepare('DELETE FROM verification_blocks').run()).toThrow(/cannot be deleted/)
    expect(() => w.db.prepare("UPDATE verifications SET outcome = 'unsound'").run()).toThrow(
      /only its end is written, once/,
    )
    expect(() => w.db.prepare('DELETE FROM verifications').run()).toThrow(/cannot be deleted/)
  })

  it('numbers each emission’s verifications from 1, as the screens say them, beside the ledger’s own number', async () => {
    const w = world()
    const first = await generated(w, 1)
    const second = await generated(w, 1, 'SUMMER')
    // interleaved: the ledger's numbers run across emissions, each emission's from 1
    for (const e of [first, second, second, first, second]) await verified(w, operator, e)
    const ranks = (e: number) => w.verifications.history(e).map((r) => [r.id, r.number])
    expect(ranks(first)).toEqual([
      [4, 2],
      [1, 1],
    ])
    expect(ranks(second)).toEqual([
      [5, 3],
      [3, 2],
      [2, 1],
    ])
    expect(w.verifications.run(5).number).toBe(3)
  })

  it('finds a block whose recorded commitment was altered unsound, and says why', async () => {
    const w = world()
    const e = await generated(w)
    const honest = w.catalog.block(e, 2).commitment!
    const forged = forgedHex(honest)
    w.db.prepare('UPDATE blocks SET commitment = ? WHERE emission = ? AND block = 2').run(forged, e)

    const end = await verified(w, auditor, e)
    expect(end.state).toBe('failed')
    expect(end.message).toMatch(/block 2: the commitment differs/)
    const { latest, blocks } = w.verifications.latest(e)
    expect(latest).toMatchObject({ outcome: 'unsound', blocksChecked: 2, blocksSound: 1, unsoundBlocks: [2] })
    expect(blocks[0]).toMatchObject({ block: 1, sound: true })
    expect(blocks[1]).toMatchObject({
      block: 2,
      sound: false,
      commitmentRecorded: forged,
      commitmentReproduced: honest,
      commitmentMatches: false,
      unitsChecked: def.blockSize,
      unitsFailed: 0,
      prizeTableExact: true,
      problems: [`the commitment differs (stored ${forged}, regenerated ${honest})`],
    })
    expect(w.catalog.block(e, 2).status).toBe('failed')
    // an emission with a failed block does not open, and the failure is in the audit log
    expect(() => w.emissions.open(operator, e)).toThrow(/generated but not verified/)
    expect(w.audit.list({ page: 1, pageSize: 5, action: 'block.verify-failed' }).total).toBe(1)
    const done = JSON.parse(w.audit.list({ page: 1, pageSize: 1, action: 'emission.verify-done' }).items[0].details)
    expect(done).toMatchObject({
      outcome: 'unsound',
      sound: 1,
      unsound: [2],
      failed: [`block 2: the commitment differs (stored ${forged}, regenerated ${honest})`],
    })
  })

  it('finds a block whose units do not re-derive as recorded unsound: the unit, its fault and the prize table', async () => {
    const w = world()
    const e = await generated(w, 1)
    const winner = new BlockDeriver(def, nodePrimitives, {
      emission: e,
      block: 1,
      secret: w.keys.openSecret({ emission: e, block: 1 }, w.catalog.block(e, 1).secret!),
    }).tiers.findIndex((t) => t === 0)
    w.alter.set(1, alteredUnit(winner))

    const end = await verified(w, auditor, e)
    expect(end.state).toBe('failed')
    const v = w.verifications.latest(e).blocks[0]
    expect(v).toMatchObject({
      sound: false,
      unitsChecked: def.blockSize,
      unitsFailed: 1,
      prizeTableExact: false,
      commitmentMatches: false,
    })
    expect(v.tiers[0]).toEqual({
      amountCents: def.tiers[0].amountCents,
      expected: def.tiers[0].count,
      found: def.tiers[0].count - 1,
    })
    expect(v.problems).toContain(
      `unit ${winner}: the record carries a prize of ${def.tiers[0].amountCents ^ 1} cents but its outcome is ${def.tiers[0].amountCents} cents`,
    )
  })

  it('finds a block whose sealed secret was replaced unsound: its units no longer reproduce the commitment', async () => {
    const w = world()
    const e = await generated(w, 1)
    w.db
      .prepare('UPDATE blocks SET secret = ? WHERE emission = ? AND block = 1')
      .run(w.keys.sealSecret({ emission: e, block: 1 }, newBlockSecret()), e)
    await verified(w, auditor, e)
    const v = w.verifications.latest(e).blocks[0]
    expect(v).toMatchObject({ sound: false, commitmentMatches: false, prizeTableExact: true, unitsFailed: 0 })
    expect(v.commitmentReproduced).not.toBe(v.commitmentRecorded)
  })

  it('closes a cancelled verification as cancelled, keeping the verdicts it reached', async () => {
    const w = world()
    const e = await generated(w)
    w.alter.set(
      2,
      (_d, _ref, opts) =>
        new Promise((_, reject) =>
          opts!.signal!.addEventListener('abort', () => reject(new AppError('CANCELLED', 'the task was cancelled'))),
        ),
    )
    const job = w.emissions.verify(auditor, e)
    await expect.poll(() => w.db.prepare('SELECT count(*) FROM verification_blocks').pluck().get()).toBe(1)
    w.jobs.cancel(job.id)
    expect((await w.jobs.wait(job.id)).state).toBe('cancelled')
    const { latest, blocks } = w.verifications.latest(e)
    expect(latest).toMatchObject({ outcome: 'cancelled', blocksChecked: 1, blocks: 2 })
    expect(blocks.map((b) => [b.block, b.sound])).toEqual([[1, true]])
    const entry = w.audit.list({ page: 1, pageSize: 1 }).items[0]
    expect(entry.action).toBe('emission.verify-cancelled')
    expect(JSON.parse(entry.details)).toMatchObject({ verification: latest!.id, outcome: 'cancelled', checked: 1 })
  })

  it('refuses a report of an emission never verified, or of a verification of another emission', async () => {
    const w = world()
    const e = await generated(w, 1)
    const reason = (fn: () => unknown) => {
      try {
        fn()
      } catch (err) {
        return (err as AppError).extras.reason
      }
      throw new Error('expected a refusal')
    }
    expect(reason(() => w.verifications.report(e))).toEqual({ key: 'NEVER_VERIFIED', params: { emission: e } })
    await verified(w, auditor, e)
    const id = w.verifications.latest(e).latest!.id
    expect(reason(() => w.verifications.report(e, id + 1))).toEqual({
      key: 'VERIFICATION_NOT_FOUND',
      params: { emission: e, verification: id + 1 },
    })
    expect(w.verifications.report(e).run.id).toBe(id)
  })
})

describe('the certificate', () => {
  it('is issued when the last commitment was made, and provisional until every block is committed', async () => {
    const w = world()
    const e = w.emissions.create(operator, { blocks: 2, code: 'SPRING', startsOn: '2026-06-01' }).emission
    completeCeremony(w.ceremony, e, { starter: operator, custodian: auditor })
    const none = w.emissions.certificate(e)
    expect(none).toMatchObject({
      issuedAt: null,
      provisional: true,
      startsOn: '2026-06-01',
      totals: { blocks: 2, blocksCommitted: 0 },
    })

    // block 1 made, then the generation cancelled: one commitment of two
    w.alter.set(
      2,
      (_d, _ref, opts) =>
        new Promise((_, reject) =>
          opts!.signal!.addEventListener('abort', () => reject(new AppError('CANCELLED', 'the task was cancelled'))),
        ),
    )
    const job = w.emissions.generate(operator, e)
    await expect.poll(() => w.catalog.block(e, 1).status).toBe('generated')
    w.jobs.cancel(job.id)
    await w.jobs.wait(job.id)
    const half = w.emissions.certificate(e)
    expect(half).toMatchObject({
      issuedAt: w.catalog.block(e, 1).generated_at,
      provisional: true,
      totals: { blocksCommitted: 1 },
    })

    w.alter.clear()
    w.tick(3_600_000)
    await w.jobs.wait(w.emissions.generate(operator, e).id)
    const lastMade = w.catalog.block(e, 2).generated_at!
    w.tick(86_400_000)
    const cert = w.emissions.certificate(e)
    expect(cert.issuedAt).toBe(lastMade)
    expect(cert.printedAt).toBe(new Date(Date.parse(lastMade) + 86_400_000).toISOString())
    expect(cert).toMatchObject({
      provisional: false,
      startsOn: '2026-06-01',
      totals: {
        units: 2 * def.blockSize,
        blocks: 2,
        blocksCommitted: 2,
        prizes: 2 * def.tiers.reduce((a, t) => a + t.count, 0),
        prizesCents: 2 * def.tiers.reduce((a, t) => a + t.count * t.amountCents, 0),
        salesCents: 2 * def.blockSize * def.unitPriceCents,
        payoutRatio: cert.payoutRatio,
      },
    })
    expect(cert.blocks.map((b) => b.generatedAt)).toEqual(w.catalog.blocks(e).map((b) => b.generated_at))
  })
})
