import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { nodePrimitives } from '../electron/crypto/node-primitives'
import { CHUNK_UNITS } from './block'
import { CARATS } from './carats'
import {
  blockCommitment,
  canonicalJson,
  chunkCount,
  definitionDigest,
  inclusionProof,
  leafHash,
  merkleRoot,
  rootFromProof,
} from './commitment'
import { concatBytes, fromHex, toHex } from './primitives'
import type { GameDefinition } from './rules'
import { caratsCopy, smallDefinition } from '../test/support/game-fixtures'

const prim = nodePrimitives
const sha256 = (...parts: Uint8Array[]) =>
  new Uint8Array(
    createHash('sha256')
      .update(concatBytes(...parts))
      .digest(),
  )
const pack = (leaves: Uint8Array[]) => concatBytes(...leaves)
const hex = (b: Uint8Array) => toHex(b)

/** The Certificate Transparency reference entries and tree heads (RFC 6962 implementations' shared test data). */
const CT_ENTRIES = [
  '',
  '00',
  '10',
  '2021',
  '3031',
  '40414243',
  '5051525354555657',
  '606162636465666768696a6b6c6d6e6f',
].map(fromHex)
const CT_ROOTS = [
  '6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d',
  'fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125',
  'aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77',
  'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
  '4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4',
  '76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef',
  'ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c',
  '5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328',
]

/** Distinct leaf hashes for trees of any size. */
const someLeaves = (n: number) => Array.from({ length: n }, (_, i) => sha256(Uint8Array.of(0x00, i, i >> 8, 0x5a)))

function verifies(leaf: Uint8Array, m: number, n: number, path: Uint8Array[], root: Uint8Array): boolean {
  try {
    return hex(rootFromProof(prim, leaf, m, n, path)) === hex(root)
  } catch {
    return false
  }
}

describe('RFC 6962 Merkle tree', () => {
  it('leaf hash is SHA-256(0x00 ‖ data)', () => {
    expect(hex(leafHash(prim, new Uint8Array(0)))).toBe(CT_ROOTS[0])
    const data = Uint8Array.of(1, 2, 3)
    expect(hex(leafHash(prim, data))).toBe(hex(sha256(Uint8Array.of(0), data)))
  })

  it('matches the reference tree heads for sizes 1 to 8', () => {
    const leaves = CT_ENTRIES.map((e) => leafHash(prim, e))
    for (let n = 1; n <= 8; n++)
      expect(hex(merkleRoot(prim, pack(leaves.slice(0, n)))), `size ${n}`).toBe(CT_ROOTS[n - 1])
  })

  it('matches the reference inclusion proofs (leaf 0 and leaf 5 of 8)', () => {
    const leaves = pack(CT_ENTRIES.map((e) => leafHash(prim, e)))
    expect(inclusionProof(prim, leaves, 0).map(hex)).toEqual([
      '96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7',
      '5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e',
      '6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4',
    ])
    expect(inclusionProof(prim, leaves, 5).map(hex)).toEqual([
      'bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b',
      'ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0',
      'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
    ])
  })

  it('the root of one leaf is the leaf; of two, H(0x01 ‖ a ‖ b); of three, H(0x01 ‖ H(0x01 ‖ a ‖ b) ‖ c)', () => {
    const [a, b, c] = someLeaves(3)
    expect(hex(merkleRoot(prim, a))).toBe(hex(a))
    const ab = sha256(Uint8Array.of(1), a, b)
    expect(hex(merkleRoot(prim, pack([a, b])))).toBe(hex(ab))
    expect(hex(merkleRoot(prim, pack([a, b, c])))).toBe(hex(sha256(Uint8Array.of(1), ab, c)))
    expect(() => merkleRoot(prim, new Uint8Array(0))).toThrow(/at least one leaf/)
  })

  it('every leaf of trees of sizes 1 to 40 has an inclusion proof that verifies, and only for its own leaf and index', () => {
    for (let n = 1; n <= 40; n++) {
      const list = someLeaves(n)
      const leaves = pack(list)
      const root = merkleRoot(prim, leaves)
      for (let m = 0; m < n; m++) {
        const path = inclusionProof(prim, leaves, m)
        expect(path.length).toBeLessThanOrEqual(Math.ceil(Math.log2(n)))
        expect(verifies(list[m], m, n, path, root), `leaf ${m} of ${n}`).toBe(true)
        // a wrong leaf fails
        expect(verifies(list[(m + 1) % n], m, n, path, root) && n > 1).toBe(false)
        expect(verifies(sha256(list[m]), m, n, path, root)).toBe(false)
        // another index of the tree fails
        for (let other = 0; other < n; other++)
          if (other !== m) expect(verifies(list[m], other, n, path, root), `leaf ${m} as ${other} of ${n}`).toBe(false)
        // a tampered path fails
        if (path.length > 0) {
          const bad = path.map((p, i) => (i === path.length - 1 ? sha256(p) : p))
          expect(verifies(list[m], m, n, bad, root)).toBe(false)
          expect(verifies(list[m], m, n, path.slice(0, -1), root)).toBe(false)
        }
        expect(verifies(list[m], m, n, [...path, list[0]], root)).toBe(false)
      }
    }
  })

  it('a proof does not verify for an index outside the tree (m ≥ n or m < 0; RFC 9162 §2.1.3.2 step 1)', () => {
    // A chunk that is not in the block must never be "proven" part of it.
    for (let n = 1; n <= 40; n++) {
      const list = someLeaves(n)
      const leaves = pack(list)
      const root = merkleRoot(prim, leaves)
      for (let m = 0; m < n; m++) {
        const path = inclusionProof(prim, leaves, m)
        for (const outside of [n, n + 1, 2 * n, -1]) {
          expect(verifies(list[m], outside, n, path, root), `leaf ${m} of ${n} claimed at index ${outside}`).toBe(false)
        }
      }
    }
  })

  // (An audit path alone does not fix the tree size — RFC 6962 proofs for sizes n and n+1 can coincide —
  // which is why the commitment binds the block size and the chunk size.)
})

describe('canonical JSON', () => {
  it('sorts keys at every level, keeps array order, drops undefined, has no white space', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 'x' }], c: null }, e: undefined })).toBe(
      '{"a":{"c":null,"d":[3,{"y":"x","z":1}]},"b":1}',
    )
    expect(canonicalJson([2, 1])).toBe('[2,1]')
    expect(canonicalJson('é "q"')).toBe('"é \\"q\\""')
  })

  it('does not depend on the order keys were written in', () => {
    const a = { id: 'x', tiers: [{ amountCents: 5, count: 2 }], nested: { q: [1, 2], p: { s: true, r: false } } }
    const b = { nested: { p: { r: false, s: true }, q: [1, 2] }, tiers: [{ count: 2, amountCents: 5 }], id: 'x' }
    expect(canonicalJson(a)).toBe(canonicalJson(b))
    expect(canonicalJson({ ...a, nested: { ...a.nested, q: [2, 1] } })).not.toBe(canonicalJson(a))
  })

  it('makes the definition digest independent of key order, and sensitive to every rule', () => {
    const def = caratsCopy()
    const reordered = Object.fromEntries(Object.entries(def).reverse()) as unknown as GameDefinition
    expect(hex(definitionDigest(prim, reordered))).toBe(hex(definitionDigest(prim, CARATS)))
    expect(hex(definitionDigest(prim, CARATS))).toBe(hex(sha256(new TextEncoder().encode(canonicalJson(CARATS)))))
    const changed = caratsCopy()
    changed.decoyWeights = changed.decoyWeights.map((d, i) => (i === 7 ? { ...d, weight: d.weight + 1 } : d))
    expect(hex(definitionDigest(prim, changed))).not.toBe(hex(definitionDigest(prim, CARATS)))
  })
})

describe('block commitment', () => {
  const root = sha256(Uint8Array.of(42))

  it('is SHA-256("CARATS-BLOCK-COMMITMENT-v1" ‖ u16 emission ‖ u16 block ‖ u32 block size ‖ u32 chunk units ‖ definition digest ‖ root)', () => {
    const expected = sha256(
      new TextEncoder().encode('CARATS-BLOCK-COMMITMENT-v1'),
      Uint8Array.of(0x04, 0xd2, 0x03, 0xe7),
      Uint8Array.of(0x00, 0x7a, 0x50, 0x80), // 8,016,000
      Uint8Array.of(0, 0, 0, CHUNK_UNITS),
      definitionDigest(prim, CARATS),
      root,
    )
    expect(blockCommitment(prim, CARATS, { emission: 1234, block: 999 }, root)).toBe(hex(expected))
    expect(CHUNK_UNITS).toBe(128)
  })

  it('changes with the emission, the block, the definition and the root', () => {
    const base = blockCommitment(prim, CARATS, { emission: 1, block: 1 }, root)
    expect(base).toMatch(/^[0-9a-f]{64}$/)
    const others = [
      blockCommitment(prim, CARATS, { emission: 2, block: 1 }, root),
      blockCommitment(prim, CARATS, { emission: 1, block: 2 }, root),
      blockCommitment(prim, smallDefinition(), { emission: 1, block: 1 }, root),
      blockCommitment(prim, CARATS, { emission: 1, block: 1 }, sha256(root)),
    ]
    expect(new Set([base, ...others]).size).toBe(5)
  })

  it('chunks cover the block: 62,625 chunks of 128 units for CARATS, a partial last chunk otherwise', () => {
    expect(chunkCount(CARATS)).toBe(62_625)
    expect(chunkCount(smallDefinition())).toBe(79)
    expect(chunkCount({ ...smallDefinition(), blockSize: 128 })).toBe(1)
    expect(chunkCount({ ...smallDefinition(), blockSize: 129 })).toBe(2)
  })
})

describe('subtree ranges (threads hash whole subtrees)', () => {
  it('cover the leaves in order and give the same root as the leaves', async () => {
    const { subtreeRanges, rootFromSubtrees, merkleRoot } = await import('./commitment')
    const { nodePrimitives } = await import('../electron/crypto/node-primitives')
    for (const n of [1, 2, 3, 5, 8, 13, 100, 62625]) {
      const leaves = new Uint8Array(32 * n).map((_, i) => (i * 131 + n) & 255)
      for (const parts of [1, 2, 3, 4, 7]) {
        const ranges = subtreeRanges(n, parts)
        let next = 0
        for (const r of ranges) {
          expect(r.from).toBe(next)
          next += r.count
        }
        expect(next).toBe(n)
        const roots = new Map(
          ranges.map((r) => [
            `${r.from}:${r.count}`,
            merkleRoot(nodePrimitives, leaves.subarray(32 * r.from, 32 * (r.from + r.count))),
          ]),
        )
        expect(Buffer.from(rootFromSubtrees(nodePrimitives, roots, 0, n))).toEqual(
          Buffer.from(merkleRoot(nodePrimitives, leaves)),
        )
      }
    }
  })
})
