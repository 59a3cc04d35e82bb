/**
 * Unit proofs end to end on a real ledger (commitment version 2): the service and the contract's
 * rules, `carats ticket proof` / `carats proof verify`, the outsiders' verifier (tools/), which
 * must accept every proof the app makes and refuse it once any byte of it changes; and version 1
 * blocks, which keep verifying under their version.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCli } from '../../electron/cli/main'
import type { CliIo } from '../../electron/cli/io'
import type { Backend } from '../../electron/app/backend'
import { blockCommitment } from '../../game-core/commitment'
import { CARATS } from '../../game-core/carats'
import { fromHex } from '../../game-core/primitives'
import { verifyUnitProof, type UnitProof } from '../../game-core/proof'
import { formatSerial } from '../../game-core/serial'
import { nodePrimitives } from '../../electron/crypto/node-primitives'
import { AppError } from '../../electron/contract/errors'
// the outsiders' verifier: plain JavaScript with node:crypto only
import { checkVectors, verifyProof } from '../../tools/carats-verify.mjs'
import { ledgerArgs } from '../support/ledger-engine'
import { T0, actor, ledgerOf, openEmissionBackend, samplePlay, tempDir } from './ledger-fixture'

let dir: string
let b: Backend
let sold = ''
const unsold = formatSerial({ emission: 1, block: 1, unit: 5_000_000 })

async function carats(...argv: string[]) {
  let out = ''
  let err = ''
  const io: CliIo = {
    out: (t) => {
      out += t
    },
    err: (t) => {
      err += t
    },
    progress: () => {},
  }
  const code = await runCli([...ledgerArgs(ledgerOf(b)), ...argv], io)
  return { code, out, err }
}

const flip = (hex: string, i: number) =>
  hex.slice(0, 2 * i) +
  (parseInt(hex.slice(2 * i, 2 * i + 2), 16) ^ 0x10).toString(16).padStart(2, '0') +
  hex.slice(2 * i + 2)

beforeAll(async () => {
  dir = tempDir('proof')
  b = await openEmissionBackend(dir)
  sold = b.services.sales.sellNext(1, { player: 'alice', soldAt: T0, play: samplePlay(1) }).serial
}, 300_000)
afterAll(async () => {
  await b.closeGracefully()
  rmSync(dir, { recursive: true, force: true })
})

describe('unit proofs on a ledger', () => {
  it('new blocks are committed under version 2, which the block shows', () => {
    expect(b.services.emissions.get(1).blockList[0]).toMatchObject({ commitmentVersion: 2, status: 'verified' })
  })

  it('a sold unit: its content as ticket show gives it, beside its record, verified by the outsiders’ verifier', () => {
    const p = b.services.tickets.proof(actor('support'), sold)
    const t = b.services.tickets.get(actor('support'), sold)
    expect(p.content).toEqual({
      prizeCents: t.prizeCents,
      tier: t.tier,
      winning: t.winning,
      numbers: t.numbers,
      amountsCents: t.amountsCents,
    })
    expect(p.commitment).toBe(b.services.emissions.certificate(1).blocks[0].commitment)
    expect(verifyProof(p)).toMatchObject({ valid: true, commitment: p.commitment })
  })

  it('fails in the outsiders’ verifier when any byte of the record, the content or the path changes', () => {
    const p = b.services.tickets.proof(actor('support'), sold)
    const bad: UnitProof[] = []
    for (let i = 0; i < 64; i++) bad.push({ ...p, record: flip(p.record, i) })
    for (let i = 0; i < 32; i++) bad.push({ ...p, salt: flip(p.salt, i) })
    p.path.forEach((h, j) => {
      for (const i of [0, 31]) bad.push({ ...p, path: p.path.map((x, k) => (k === j ? flip(h, i) : x)) })
    })
    for (const j of [0, 1, 127])
      bad.push({
        ...p,
        chunk: { ...p.chunk, unitHashes: p.chunk.unitHashes.map((x, k) => (k === j ? flip(x, 7) : x)) },
      })
    for (const key of ['winning', 'numbers', 'amountsCents'] as const)
      bad.push({ ...p, content: { ...p.content, [key]: [...p.content[key].slice(1), p.content[key][0]] } })
    bad.push({ ...p, content: { ...p.content, prizeCents: p.content.prizeCents + 100 } })
    bad.push({ ...p, definition: p.definition.replace('"unitPriceCents":500', '"unitPriceCents":400') })
    // fields the check derives, stated falsely (an auditor's finding: they were not looked at)
    bad.push({ ...p, chunk: { ...p.chunk, index: p.chunk.index + 1 } })
    bad.push({ ...p, chunk: { ...p.chunk, firstUnit: p.chunk.firstUnit + 128 } })
    bad.push({ ...p, leafCount: p.leafCount - 1 })
    for (const x of bad) expect(verifyProof(x).valid).toBe(false)
    for (const x of bad) expect(verifyUnitProof(nodePrimitives, x).valid).toBe(false)
  })

  it('an unsold unit: only an auditor, with a reason, and the audit log keeps it', () => {
    expect(() => b.services.tickets.proof(actor('support'), unsold)).toThrow(
      expect.objectContaining({ code: 'FORBIDDEN' }),
    )
    expect(() => b.services.tickets.proof(actor('auditor'), unsold)).toThrow(
      expect.objectContaining({ code: 'REASON_REQUIRED' }),
    )
    const p = b.services.tickets.proof(actor('auditor'), unsold, 'complaint 42')
    expect(verifyProof(p).valid).toBe(true)
    const last = b.services.db
      .prepare(
        "SELECT actor, object, details FROM audit WHERE action = 'ticket.inspect-unsold' ORDER BY seq DESC LIMIT 1",
      )
      .get() as { actor: string; object: string; details: string }
    expect(last).toMatchObject({ actor: 'aude', object: `unit:${unsold}` })
    expect(JSON.parse(last.details)).toEqual({ reason: 'complaint 42', proof: true })
  })

  it('through the contract, with the same rules as tickets:get', async () => {
    const token = (await b.services.users.login('suzy', 'correct horse battery')).token
    const r = await b.dispatch('tickets:proof', { serial: sold }, token)
    expect(r.ok && verifyProof(r.result).valid).toBe(true)
    expect(await b.dispatch('tickets:proof', { serial: unsold }, token)).toMatchObject({
      ok: false,
      error: { code: 'FORBIDDEN' },
    })
  })

  it('carats ticket proof writes it, carats proof verify checks it from the file alone', async () => {
    const file = join(dir, 'proof.json')
    expect((await carats('ticket', 'proof', sold, '--out', file)).code).toBe(0)
    const ok = await carats('proof', 'verify', file)
    expect(ok.code).toBe(0)
    expect(ok.out).toContain(JSON.parse(readFileSync(file, 'utf8')).commitment)
    const p = JSON.parse(readFileSync(file, 'utf8')) as UnitProof
    writeFileSync(file, JSON.stringify({ ...p, record: flip(p.record, 20) }))
    const failed = await carats('--json', 'proof', 'verify', file)
    expect(failed.code).toBe(1)
    expect(JSON.parse(failed.out).problems).toContain('the content shown differs from the record')
    const refused = await carats('ticket', 'proof', unsold)
    expect(refused.code).toBe(1)
    expect(refused.err).toMatch(/^carats ticket proof: unit .* is not sold: give a reason/)
  }, 60_000)

  it('a block committed under version 1 still verifies under it, and gives no unit proof', async () => {
    const s = b.services
    const row = s.db.prepare('SELECT secret FROM blocks WHERE emission = 1 AND block = 1').get() as { secret: Buffer }
    const v = await import('../../electron/services/emissions').then((m) =>
      m.verifyBlockInWorkers(CARATS, {
        emission: 1,
        block: 1,
        secret: s.keys.openSecret({ emission: 1, block: 1 }, row.secret),
        commitmentVersion: 1,
      }),
    )
    // the block as an older ledger holds it: version 1, its v1 root and commitment, no proof roots
    expect(v.commitment).toBe(
      blockCommitment(nodePrimitives, CARATS, { emission: 1, block: 1 }, fromHex(v.merkleRoot), 1),
    )
    s.db
      .prepare(
        'UPDATE blocks SET commitment_version = 1, commitment = ?, merkle_root = ?, proof_roots = NULL WHERE emission = 1 AND block = 1',
      )
      .run(v.commitment, v.merkleRoot)
    const job = await s.jobs.wait(s.emissions.verify(actor('auditor'), 1).id)
    expect(job).toMatchObject({ state: 'done' })
    expect(s.emissions.get(1).blockList[0]).toMatchObject({
      commitmentVersion: 1,
      status: 'verified',
      commitment: v.commitment,
    })
    let error: unknown
    try {
      s.tickets.proof(actor('support'), sold)
    } catch (e) {
      error = e
    }
    expect(error).toBeInstanceOf(AppError)
    expect(error).toMatchObject({ code: 'ILLEGAL_STATE', extras: { reason: { key: 'PROOF_VERSION' } } })
  }, 120_000)
})

describe('the outsiders’ verifier against the known-answer vectors', () => {
  it('reproduces every vector from DERIVATION.md alone (the main block’s whole commitments with --whole)', () => {
    const vectors = JSON.parse(readFileSync(join(__dirname, '../../game-core/vectors/derivation.json'), 'utf8'))
    expect(checkVectors(vectors)).toEqual([])
    // and a changed vector is found
    expect(
      checkVectors({
        ...vectors,
        smallBlock: { ...vectors.smallBlock, v2: { ...vectors.smallBlock.v2, commitment: '00'.repeat(32) } },
      }),
    ).toHaveLength(1)
  }, 120_000)
})
