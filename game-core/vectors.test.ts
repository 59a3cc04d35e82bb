/** game-core's code against its known-answer vectors (game-core/vectors/derivation.json, DERIVATION.md §9). */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { nodePrimitives as prim } from '../electron/crypto/node-primitives'
import { BlockDeriver, buildTierTable, deriveBlockKeys } from './block'
import { canonicalJson, definitionDigest } from './commitment'
import { CARATS } from './carats'
import { fromHex, toHex } from './primitives'
import type { GameDefinition } from './rules'
import { deriveSaltKey, unitHash, unitSalts } from './unit-commitment'
import { processChunks, verifyBlock } from './verify'
import { blockSecretFromShares, diceRolls, shareFromDice, shareHash } from './seeding'

const V = JSON.parse(readFileSync(new URL('./vectors/derivation.json', import.meta.url), 'utf8'))
const main = V.block
const ref = { emission: main.emission, block: main.block, secret: fromHex(main.secret) }

function unitOf(d: BlockDeriver, unit: number) {
  const t = d.ticket(unit)
  const rec = d.records(unit, 1)
  return {
    unit,
    tier: t.tier ?? 255,
    prizeCents: t.prizeCents,
    winning: t.winning,
    numbers: t.numbers,
    amountsCents: t.amountsCents,
    matches: rec[rec.length - 1],
    record: toHex(rec),
  }
}
const withoutExtra = ({ extraSlices: _, ...u }: { extraSlices: number }) => u

describe('known-answer vectors', () => {
  it('are for 500 000 CARATS as defined, with its digest', () => {
    expect(main.canonicalDefinition).toBe(canonicalJson(CARATS))
    expect(toHex(definitionDigest(prim, CARATS))).toBe(main.definitionDigest)
  })

  it('keys and the first 64 bytes of each keystream', () => {
    const k = deriveBlockKeys(prim, ref)
    const keys = { ...k, salts: deriveSaltKey(prim, ref) }
    for (const name of ['tiers', 'units', 'extra', 'salts'] as const) {
      expect(toHex(keys[name]), name).toBe(main.keys[name])
      expect(toHex(prim.keystream(keys[name], 0, 64)), name).toBe(main.keystreams[name])
    }
  })

  const d = new BlockDeriver(CARATS, prim, ref)
  it('the tier table after the shuffle, units 0, 1 and 8,015,999, their salts and salted hashes', () => {
    const t = buildTierTable(CARATS, prim, d.keys)
    expect(Array.from(t.subarray(0, 32))).toEqual(main.tierTable.first)
    expect(Array.from(t.subarray(CARATS.blockSize - 8))).toEqual(main.tierTable.last)
    d.adoptTierTable(t)
    const saltKey = deriveSaltKey(prim, ref)
    for (const want of main.units) {
      expect(unitOf(d, want.unit)).toEqual(withoutExtra(want))
      const salt = unitSalts(prim, saltKey, want.unit, 1)
      expect(toHex(salt)).toBe(main.v2.salts[want.unit])
      expect(toHex(unitHash(prim, salt, d.records(want.unit, 1)))).toBe(main.v2.unitHashes[want.unit])
    }
  })

  it('the first leaves under both versions', () => {
    expect(toHex(processChunks(d, 0, 2, { commitmentVersion: 1 }).leafHashes).match(/.{64}/g)).toEqual(main.v1.leaves)
    expect(toHex(processChunks(d, 0, 2, { commitmentVersion: 2 }).leafHashes).match(/.{64}/g)).toEqual(main.v2.leaves)
  })

  it('a unit that takes the extra keystream', () => {
    const x = V.extraKeystream
    const def = JSON.parse(x.canonicalDefinition) as GameDefinition
    const xd = new BlockDeriver(def, prim, { emission: x.emission, block: x.block, secret: fromHex(x.secret) })
    expect(x.unit.extraSlices).toBeGreaterThan(0)
    expect(unitOf(xd, x.unit.unit)).toEqual(withoutExtra(x.unit))
  })

  it('a small whole block: Merkle roots and commitments under both versions', () => {
    const s = V.smallBlock
    const def = JSON.parse(s.canonicalDefinition) as GameDefinition
    const sref = { emission: s.emission, block: s.block, secret: fromHex(s.secret) }
    for (const version of [1, 2] as const) {
      const v = verifyBlock(def, prim, sref, { commitmentVersion: version })
      expect(v.sound).toBe(true)
      expect({ merkleRoot: v.merkleRoot, commitment: v.commitment }).toEqual(s[`v${version}`])
    }
  })

  it('the key ceremony: both shares’ hashes, the secrets they give, a share from typed dice (§1.1)', () => {
    const c = V.ceremony
    const A = fromHex(c.serverShare)
    const C = fromHex(c.custodianShare)
    expect(shareHash(prim, A)).toBe(c.serverHash)
    expect(shareHash(prim, C)).toBe(c.custodianHash)
    expect(
      c.secrets.map((s: { emission: number; block: number }) => ({
        ...s,
        secret: toHex(blockSecretFromShares(prim, A, C, s.emission, s.block)),
      })),
    ).toEqual(c.secrets)
    expect(c.secrets.some((s: { emission: number; block: number }) => s.emission > 255 && s.block > 255)).toBe(true)
    expect(diceRolls(c.dice.typed)).toEqual({ rolls: c.dice.rolls })
    const D = shareFromDice(prim, c.dice.typed)
    expect(toHex(D)).toBe(c.dice.share)
    expect(shareHash(prim, D)).toBe(c.dice.hash)
    const [s] = c.dice.secrets
    expect(toHex(blockSecretFromShares(prim, A, D, s.emission, s.block))).toBe(s.secret)
  })
})
