/**
 * Writes game-core/vectors/derivation.json, the known-answer vectors of DERIVATION.md, from
 * game-core's code: npx tsx scripts/make-vectors.ts. The unit that takes the extra keystream is
 * found by trying units in order on a variant of the game whose decoy draws reject 23.7 % of their
 * words (with the real weights it happens about once in 5.6·10¹³ units; here about once in 40, DERIVATION.md §4).
 */
import { writeFileSync } from 'node:fs'
import { createHash } from 'node:crypto'
import { CARATS } from '../game-core/carats'
import { BlockDeriver, buildTierTable, deriveBlockKeys, unitStreamBlocks } from '../game-core/block'
import { canonicalJson, definitionDigest } from '../game-core/commitment'
import { toHex } from '../game-core/primitives'
import type { GameDefinition } from '../game-core/rules'
import { deriveSaltKey, unitHash, unitSalts } from '../game-core/unit-commitment'
import { verifyBlock } from '../game-core/verify'
import { nodePrimitives as prim } from '../electron/crypto/node-primitives'
import { verifyBlockInWorkers } from '../electron/services/emissions'
import { smallDefinition } from '../test/support/game-fixtures'
import { ceremonyVectors } from './ceremony-vectors'
// the outsiders' verifier only counts the extra slices a unit takes
import { makeUnit, keys as outsideKeys, tierTable as outsideTiers, KS } from '../tools/carats-verify.mjs'

const secretOf = (label: string) => new Uint8Array(createHash('sha256').update(`carats-vectors/${label}`).digest())

function unitVector(d: BlockDeriver, unit: number) {
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
    extraSlices: 0,
  }
}

async function main() {
  const def = CARATS
  const ref = { emission: 7, block: 3, secret: secretOf('sample') }
  const d = new BlockDeriver(def, prim, ref)
  const k = deriveBlockKeys(prim, ref)
  const salts = deriveSaltKey(prim, ref)
  const ks = (key: Uint8Array) => toHex(prim.keystream(key, 0, 64))
  const units = [0, 1, def.blockSize - 1]
  const v1 = await verifyBlockInWorkers(def, { ...ref, commitmentVersion: 1 })
  const v2 = await verifyBlockInWorkers(def, { ...ref, commitmentVersion: 2 })
  if (!v1.sound || !v2.sound) throw new Error('the sample block is not sound')

  // the extra keystream: a variant with decoy weights totalling 50,000 (65536 mod 50000 = 15536: a decoy draw rejects 23.7 % of words)
  const variant: GameDefinition = {
    ...smallDefinition(),
    id: 'vector-extra-keystream',
    name: 'Extra keystream vector',
    decoyWeights: CARATS.decoyWeights.map((x) => ({ ...x, weight: x.weight * 50 })),
  }
  const xref = { emission: 1, block: 1, secret: secretOf('extra') }
  const xk = outsideKeys(xref.secret, 1, 1)
  const xt = outsideTiers(variant, xk.tiers)
  const sb = 16 * unitStreamBlocks(variant)
  let found = -1
  for (let u = 0; u < variant.blockSize && found < 0; u++)
    if (makeUnit(variant, xk, xt[u], u, KS(xk.units, u * (sb / 16), sb)).extraSlices >= 1) found = u
  if (found < 0) throw new Error('no unit of the variant takes the extra keystream')
  const xd = new BlockDeriver(variant, prim, xref)

  const small = smallDefinition()
  const sref = { emission: 12, block: 34, secret: secretOf('small') }
  const s1 = verifyBlock(small, prim, sref, { commitmentVersion: 1 })
  const s2 = verifyBlock(small, prim, sref, { commitmentVersion: 2 })
  const tiers = buildTierTable(def, prim, k)

  const out = {
    about:
      'Known-answer vectors of game-core/DERIVATION.md (§9 says how to use them). Bytes are lowercase hexadecimal; records are the 64 bytes of §5.',
    block: {
      canonicalDefinition: canonicalJson(def),
      definitionDigest: toHex(definitionDigest(prim, def)),
      secret: toHex(ref.secret),
      emission: ref.emission,
      block: ref.block,
      keys: { tiers: toHex(k.tiers), units: toHex(k.units), extra: toHex(k.extra), salts: toHex(salts) },
      keystreams: { tiers: ks(k.tiers), units: ks(k.units), extra: ks(k.extra), salts: ks(salts) },
      tierTable: { first: Array.from(tiers.subarray(0, 32)), last: Array.from(tiers.subarray(def.blockSize - 8)) },
      units: units.map((u) => unitVector(d, u)),
      v1: {
        leaves: toHex(v1.leafHashes.subarray(0, 64)).match(/.{64}/g),
        merkleRoot: v1.merkleRoot,
        commitment: v1.commitment,
      },
      v2: {
        salts: Object.fromEntries(units.map((u) => [u, toHex(unitSalts(prim, salts, u, 1))])),
        unitHashes: Object.fromEntries(
          units.map((u) => [u, toHex(unitHash(prim, unitSalts(prim, salts, u, 1), d.records(u, 1)))]),
        ),
        leaves: toHex(v2.leafHashes.subarray(0, 64)).match(/.{64}/g),
        merkleRoot: v2.merkleRoot,
        commitment: v2.commitment,
      },
    },
    extraKeystream: {
      note: "a variant of the small game whose decoy weights are 50 times CARATS's (total 50,000, so a decoy draw rejects 23.7 % of its words): the first unit that runs out of its own 64 words and continues on the extra keystream (slice r = 0)",
      canonicalDefinition: canonicalJson(variant),
      secret: toHex(xref.secret),
      emission: 1,
      block: 1,
      unit: {
        ...unitVector(xd, found),
        extraSlices: makeUnit(variant, xk, xt[found], found, KS(xk.units, found * (sb / 16), sb)).extraSlices,
      },
    },
    smallBlock: {
      canonicalDefinition: canonicalJson(small),
      secret: toHex(sref.secret),
      emission: sref.emission,
      block: sref.block,
      v1: { merkleRoot: s1.merkleRoot, commitment: s1.commitment },
      v2: { merkleRoot: s2.merkleRoot, commitment: s2.commitment },
    },
    ceremony: ceremonyVectors(),
  }
  writeFileSync('game-core/vectors/derivation.json', JSON.stringify(out, null, 2) + '\n')
  console.log(`written; the extra-keystream unit is ${found}`)
}

void main()
