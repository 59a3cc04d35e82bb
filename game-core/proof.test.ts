import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { nodePrimitives } from '../electron/crypto/node-primitives'
import { BlockDeriver, CHUNK_UNITS } from './block'
import { batchRoots, canonicalJson, chunkCount } from './commitment'
import { toHex } from './primitives'
import { buildUnitProof, verifyUnitProof, type UnitProof } from './proof'
import { deriveSaltKey, unitSalts } from './unit-commitment'
import { assembleVerification, processChunks, verifyBlock } from './verify'
import { fixedSecret, smallDefinition } from '../test/support/game-fixtures'

const prim = nodePrimitives
const def = smallDefinition()
const ref = { emission: 3, block: 7, secret: fixedSecret('proof') }
const sha = (...parts: (Uint8Array | number[])[]) => {
  const h = createHash('sha256')
  for (const p of parts) h.update(Uint8Array.from(p))
  return new Uint8Array(h.digest())
}

describe('commitment version 2', () => {
  const v1 = verifyBlock(def, prim, ref)
  const v2 = verifyBlock(def, prim, ref, { commitmentVersion: 2 })
  const deriver = new BlockDeriver(def, prim, ref)

  it('is sound and differs from version 1 in its leaves and commitment, not in its units', () => {
    expect(v2.sound).toBe(true)
    expect(v2.commitmentVersion).toBe(2)
    expect(v2.tiers).toEqual(v1.tiers)
    expect(v2.merkleRoot).not.toBe(v1.merkleRoot)
    expect(v2.commitment).not.toBe(v1.commitment)
  })

  it('commits the same whether the units are hashed one call each or many in one call', () => {
    expect(prim.sha256Many).toBeDefined()
    const { sha256Many: _many, ...oneByOne } = prim
    const slow = verifyBlock(def, oneByOne, ref, { commitmentVersion: 2 })
    expect(slow.commitment).toBe(v2.commitment)
    expect(toHex(slow.leafHashes)).toBe(toHex(v2.leafHashes))
  })

  it('makes a leaf SHA256(0x00 ‖ h…) of the salted unit hashes SHA256(0x02 ‖ salt ‖ record)', () => {
    const key = deriveSaltKey(prim, ref)
    const unitHashes = Array.from({ length: CHUNK_UNITS }, (_, u) =>
      sha([0x02], unitSalts(prim, key, CHUNK_UNITS + u, 1), deriver.records(CHUNK_UNITS + u, 1)),
    )
    expect(toHex(v2.leafHashes.subarray(32, 64))).toBe(toHex(sha([0x00], ...unitHashes)))
    // salt_u is KS(K_salts, 2u, 32): the salts of consecutive units are one stream
    expect(toHex(unitSalts(prim, key, 10, 2))).toBe(
      toHex(unitSalts(prim, key, 10, 1)) + toHex(unitSalts(prim, key, 11, 1)),
    )
  })

  it('gives the same commitment from ranges as from the whole block', () => {
    const total = chunkCount(def)
    const ranges = [
      processChunks(deriver, 40, total - 40, { commitmentVersion: 2 }),
      processChunks(deriver, 0, 17, { commitmentVersion: 2 }),
      processChunks(deriver, 17, 23, { commitmentVersion: 2 }),
    ]
    expect(assembleVerification(def, prim, ref, ranges, 2).commitment).toBe(v2.commitment)
  })

  describe('unit proofs', () => {
    const stored = {
      definition: canonicalJson(def),
      batchRoots: batchRoots(prim, v2.leafHashes),
      merkleRoot: v2.merkleRoot,
      commitment: v2.commitment,
    }
    const units = [0, 1, 127, 128, 5_000, 8_191, 9_983, 9_999]

    it('verify for units in full and partial chunks and batches, and lead to the commitment', () => {
      for (const u of units) {
        const p = buildUnitProof(deriver, u, stored)
        const check = verifyUnitProof(prim, p)
        expect(check.problems, `unit ${u}`).toEqual([])
        expect(check.valid).toBe(true)
        expect(check.commitment).toBe(v2.commitment)
        expect(p.content).toMatchObject({ winning: deriver.ticket(u).winning, numbers: deriver.ticket(u).numbers })
      }
    })

    it('show no other unit’s record or salt', () => {
      const p = buildUnitProof(deriver, 130, stored)
      const text = JSON.stringify(p)
      const key = deriveSaltKey(prim, ref)
      for (const other of [128, 129, 131, 255]) {
        expect(text).not.toContain(toHex(deriver.records(other, 1)).slice(16))
        expect(text).not.toContain(toHex(unitSalts(prim, key, other, 1)))
      }
      expect(p.chunk.unitHashes).toHaveLength(CHUNK_UNITS)
    })

    it('fail when any byte of the record, the salt, a unit hash or the path changes, or the content differs', () => {
      const p = buildUnitProof(deriver, 300, stored)
      const flip = (hex: string, i: number) =>
        hex.slice(0, 2 * i) +
        (parseInt(hex.slice(2 * i, 2 * i + 2), 16) ^ 1).toString(16).padStart(2, '0') +
        hex.slice(2 * i + 2)
      const tampered: UnitProof[] = []
      for (let i = 0; i < p.record.length / 2; i++) tampered.push({ ...p, record: flip(p.record, i) })
      for (let i = 0; i < 32; i++) tampered.push({ ...p, salt: flip(p.salt, i) })
      for (const j of [0, 44, 127])
        tampered.push({
          ...p,
          chunk: { ...p.chunk, unitHashes: p.chunk.unitHashes.map((h, k) => (k === j ? flip(h, 5) : h)) },
        })
      p.path.forEach((_, j) => tampered.push({ ...p, path: p.path.map((h, k) => (k === j ? flip(h, 31) : h)) }))
      tampered.push({ ...p, content: { ...p.content, numbers: [...p.content.numbers].reverse() } })
      tampered.push({ ...p, content: { ...p.content, prizeCents: p.content.prizeCents + 500 } })
      tampered.push({ ...p, commitment: flip(p.commitment, 0) })
      tampered.push({ ...p, unit: 301 })
      for (const t of tampered) expect(verifyUnitProof(prim, t).valid).toBe(false)
    })

    it('fail when a field that the check could derive instead states something false', () => {
      const p = buildUnitProof(deriver, 300, stored)
      const falseFields: [string, UnitProof, RegExp][] = [
        ['chunk.index', { ...p, chunk: { ...p.chunk, index: p.chunk.index + 1 } }, /chunk\.index/],
        ['chunk.firstUnit', { ...p, chunk: { ...p.chunk, firstUnit: p.chunk.firstUnit + 1 } }, /chunk\.firstUnit/],
        ['leafCount', { ...p, leafCount: p.leafCount + 1 }, /leafCount/],
        ['serial', { ...p, serial: p.serial.replace(/.$/, (d) => String((Number(d) + 1) % 10)) }, /serial/],
        ['definitionDigest', { ...p, definitionDigest: '00'.repeat(32) }, /definition hashes to/],
      ]
      for (const [field, t, said] of falseFields) {
        const check = verifyUnitProof(prim, t)
        expect(check.valid, field).toBe(false)
        expect(check.problems.join(' '), field).toMatch(said)
      }
    })
  })
})
