/**
 * The vault's Merkle tree (tlog.ts) against the Certificate Transparency reference data shared by
 * RFC 6962 implementations (the 8 entries, their tree heads, inclusion and consistency proofs as
 * in transparency-dev/merkle's proof tests), and against itself: frontier roots equal the
 * recursive roots, every consistency proof verifies and no altered one does.
 */
import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { inclusionProof, merkleRoot } from '../../../game-core/commitment'
import { nodePrimitives } from '../../crypto/node-primitives'
import {
  EMPTY_ROOT,
  appendLeaf,
  cloneFrontier,
  consistencyProblem,
  consistencyProof,
  consistencyProofLength,
  emptyFrontier,
  frontierFromJson,
  frontierOf,
  frontierRoot,
  frontierToJson,
  inclusionPath,
  inclusionProblem,
  leafHashOf,
  treeRoot,
  verifyConsistency,
  verifyInclusion,
} from './tlog'

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex')
const h = (x: string) => Buffer.from(x, 'hex')

/** The Certificate Transparency reference entries and their tree heads for sizes 1 to 8. */
const CT_ENTRIES = ['', '00', '10', '2021', '3031', '40414243', '5051525354555657', '606162636465666768696a6b6c6d6e6f']
const CT_ROOTS = [
  '6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d',
  'fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125',
  'aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77',
  'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
  '4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4',
  '76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef',
  'ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c',
  '5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328',
].map(h)
const CT_LEAVES = CT_ENTRIES.map((e) => leafHashOf(h(e)))

/** Known consistency proofs (m, n, proof) over the reference entries. */
const CT_CONSISTENCY: [number, number, string[]][] = [
  [1, 1, []],
  [
    1,
    8,
    [
      '96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7',
      '5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e',
      '6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4',
    ],
  ],
  [
    6,
    8,
    [
      '0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a',
      'ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0',
      'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
    ],
  ],
  [
    2,
    5,
    [
      '5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e',
      'bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b',
    ],
  ],
  [
    6,
    7,
    [
      '0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a',
      'b08693ec2e721597130641e8211e7eedccb4c26413963eee6c1e2ed16ffb1a5f',
      'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
    ],
  ],
]

/** Known inclusion proofs (leaf index, tree size, path) over the reference entries. */
const CT_INCLUSION: [number, number, string[]][] = [
  [0, 1, []],
  [
    0,
    8,
    [
      '96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7',
      '5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e',
      '6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4',
    ],
  ],
  [
    5,
    8,
    [
      'bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b',
      'ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0',
      'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
    ],
  ],
  [2, 3, ['fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125']],
  [
    1,
    5,
    [
      '6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d',
      '5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e',
      'bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b',
    ],
  ],
]

/** Distinct leaf hashes for trees of any size. */
const someLeaves = (n: number) => Array.from({ length: n }, (_, i) => leafHashOf(`line ${i}`))

/** The proof with one bit of hash i flipped. */
const flipped = (proof: Buffer[], i: number) =>
  proof.map((p, j) => (j === i ? Buffer.from(p.map((b, k) => (k === 0 ? b ^ 16 : b))) : p))

describe('RFC 6962 hashes', () => {
  it('leaf hash is SHA-256(0x00 ‖ line), a string as UTF-8; the empty tree is SHA-256 of nothing', () => {
    expect(hex(leafHashOf(new Uint8Array(0)))).toBe(hex(CT_ROOTS[0]))
    const digest = createHash('sha256').update(Buffer.from('00c3a9', 'hex')).digest()
    expect(hex(leafHashOf('é'))).toBe(hex(digest))
    expect(hex(EMPTY_ROOT)).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855')
    expect(hex(treeRoot([]))).toBe(hex(EMPTY_ROOT))
    expect(hex(frontierRoot(emptyFrontier()))).toBe(hex(EMPTY_ROOT))
  })

  it('matches the reference tree heads for sizes 1 to 8, recursively and through a frontier', () => {
    const f = emptyFrontier()
    for (let n = 1; n <= 8; n++) {
      expect(hex(treeRoot(CT_LEAVES, n)), `size ${n}`).toBe(hex(CT_ROOTS[n - 1]))
      appendLeaf(f, CT_LEAVES[n - 1])
      expect(hex(frontierRoot(f)), `frontier of size ${n}`).toBe(hex(CT_ROOTS[n - 1]))
    }
  })

  it('matches the reference inclusion proofs, and they verify', () => {
    for (const [index, size, path] of CT_INCLUSION) {
      expect(inclusionPath(CT_LEAVES, index, size).map(hex), `leaf ${index} of ${size}`).toEqual(path)
      expect(verifyInclusion(CT_LEAVES[index], index, size, path.map(h), CT_ROOTS[size - 1])).toBe(true)
    }
  })

  it('matches the reference consistency proofs, and they verify', () => {
    for (const [m, n, proof] of CT_CONSISTENCY) {
      expect(consistencyProof(CT_LEAVES, m, n).map(hex), `${m} to ${n}`).toEqual(proof)
      expect(consistencyProblem(m, n, CT_ROOTS[m - 1], CT_ROOTS[n - 1], proof.map(h))).toBeNull()
    }
  })
})

describe('frontier', () => {
  it('gives the recursive root at every size from 1 to 70, and keeps one hash per set bit of the size', () => {
    const leaves = someLeaves(70)
    const f = emptyFrontier()
    for (let n = 1; n <= 70; n++) {
      appendLeaf(f, leaves[n - 1])
      expect(f.size).toBe(n)
      expect(f.hashes.length).toBe(n.toString(2).replace(/0/g, '').length)
      expect(hex(frontierRoot(f)), `size ${n}`).toBe(hex(treeRoot(leaves, n)))
      expect(hex(frontierRoot(frontierOf(leaves, n)))).toBe(hex(frontierRoot(f)))
    }
  })

  it('agrees with the recursive root on a larger tree (2^16 + 2^10 + 3 leaves, packed)', () => {
    const n = 65536 + 1024 + 3
    const packed = Buffer.concat(someLeaves(n))
    expect(hex(frontierRoot(frontierOf(packed)))).toBe(hex(treeRoot(packed)))
  })

  it('copies the leaf hash it keeps, and a clone grows apart', () => {
    const reused = Buffer.from(someLeaves(1)[0])
    const f = appendLeaf(emptyFrontier(), reused)
    const root = hex(frontierRoot(f))
    reused.fill(7)
    expect(hex(frontierRoot(f))).toBe(root)
    const copy = appendLeaf(cloneFrontier(f), someLeaves(2)[1])
    expect(f.size).toBe(1)
    expect(copy.size).toBe(2)
    expect(hex(frontierRoot(f))).toBe(root)
  })

  it('round-trips through JSON', () => {
    const f = frontierOf(someLeaves(45))
    const json = JSON.parse(JSON.stringify(frontierToJson(f)))
    expect(json.size).toBe(45)
    expect(json.hashes).toHaveLength(4)
    const back = frontierFromJson(json)
    expect(hex(frontierRoot(back))).toBe(hex(frontierRoot(f)))
    expect(frontierToJson(frontierFromJson(frontierToJson(emptyFrontier())))).toEqual({ size: 0, hashes: [] })
  })

  it('refuses a malformed frontier, saying why', () => {
    const good = frontierToJson(frontierOf(someLeaves(5)))
    const bad: [unknown, RegExp][] = [
      [null, /not an object/],
      [[], /not an object/],
      [{ ...good, size: -1 }, /size -1/],
      [{ ...good, size: 5.5 }, /size 5.5/],
      [{ ...good, size: '5' }, /size 5 is not/],
      [{ ...good, hashes: 'x' }, /not an array/],
      [{ ...good, size: 7 }, /7 leaves has 3 subtree hashes, not 2/],
      [{ ...good, hashes: [good.hashes[0]] }, /has 2 subtree hashes, not 1/],
      [{ ...good, hashes: [good.hashes[0], 'AAAA'] }, /hash 1 must decode to 32 bytes/],
      [{ ...good, hashes: [good.hashes[0], good.hashes[1].replace(/=$/, '')] }, /hash 1 is not canonical/],
      [{ ...good, hashes: [good.hashes[0], 42] }, /hash 1 must be a base64 string/],
    ]
    for (const [json, message] of bad) expect(() => frontierFromJson(json), JSON.stringify(json)).toThrow(message)
  })

  it('refuses a leaf hash that is not 32 bytes', () => {
    expect(() => appendLeaf(emptyFrontier(), new Uint8Array(31))).toThrow(/32 bytes/)
  })
})

describe('inclusion', () => {
  it('every leaf of trees of sizes 1 to 33 verifies, and only at its own index, size and root', () => {
    const leaves = someLeaves(34)
    for (let n = 1; n <= 33; n++) {
      const root = treeRoot(leaves, n)
      for (let i = 0; i < n; i++) {
        const path = inclusionPath(leaves, i, n)
        expect(verifyInclusion(leaves[i], i, n, path, root), `leaf ${i} of ${n}`).toBe(true)
        expect(verifyInclusion(leaves[n], i, n, path, root)).toBe(false)
        if (n > 1) expect(verifyInclusion(leaves[i], (i + 1) % n, n, path, root)).toBe(false)
        expect(verifyInclusion(leaves[i], i, n, [...path, root], root)).toBe(false)
        for (let k = 0; k < path.length; k++)
          expect(verifyInclusion(leaves[i], i, n, flipped(path, k), root)).toBe(false)
      }
    }
  })

  it('says why a proof fails, and never throws', () => {
    const leaves = someLeaves(8)
    const root = treeRoot(leaves)
    const path = inclusionPath(leaves, 3, 8)
    expect(inclusionProblem(leaves[3], 3, 8, path, root)).toBeNull()
    expect(inclusionProblem(leaves[3], 8, 8, path, root)).toMatch(/outside a tree of 8/)
    expect(inclusionProblem(leaves[3], 3, 0, path, root)).toMatch(/at least one leaf/)
    expect(inclusionProblem(leaves[3], 3, 8, path.slice(1), root)).toMatch(/too short/)
    expect(inclusionProblem(leaves[3], 3, 8, [...path, root], root)).toMatch(/longer/)
    expect(inclusionProblem(leaves[3], 3, 8, path, root.subarray(1))).toMatch(/root must be 32 bytes/)
    expect(inclusionProblem(leaves[3], 3, 8, path, leaves[0])).toMatch(/another root/)
    expect(() => inclusionPath(leaves, 8, 8)).toThrow(/outside/)
    expect(() => inclusionPath(leaves, 0, 9)).toThrow(/needs 9 leaf hashes/)
  })
})

describe('consistency', () => {
  const leaves = someLeaves(40)
  const roots = [EMPTY_ROOT, ...Array.from({ length: 40 }, (_, i) => treeRoot(leaves, i + 1))]

  it('proofs for every 1 ≤ m ≤ n ≤ 40 verify, have the expected length, and fail when altered', () => {
    for (let n = 1; n <= 40; n++) {
      for (let m = 1; m <= n; m++) {
        const proof = consistencyProof(leaves, m, n)
        const what = `${m} to ${n}`
        expect(proof.length, what).toBe(m === n ? 0 : consistencyProofLength(m, n))
        expect(consistencyProblem(m, n, roots[m], roots[n], proof), what).toBeNull()
        for (let i = 0; i < proof.length; i++)
          expect(verifyConsistency(m, n, roots[m], roots[n], flipped(proof, i)), `${what}, hash ${i}`).toBe(false)
        if (m < n) {
          expect(verifyConsistency(n, m, roots[n], roots[m], proof), `${what} swapped`).toBe(false)
          expect(verifyConsistency(m, n, roots[n], roots[m], proof), `${what} roots swapped`).toBe(false)
          expect(verifyConsistency(m, n, roots[m - 1], roots[n], proof), `${what} wrong old root`).toBe(false)
          expect(verifyConsistency(m, n, roots[m], roots[n - 1], proof), `${what} wrong new root`).toBe(false)
          expect(verifyConsistency(m, n, roots[m], roots[n], proof.slice(0, -1))).toBe(false)
          expect(verifyConsistency(m, n, roots[m], roots[n], [...proof, roots[m]])).toBe(false)
          expect(verifyConsistency(m, n, roots[m], roots[n], [roots[m], ...proof])).toBe(false)
          if (m + 1 < n) expect(verifyConsistency(m + 1, n, roots[m + 1], roots[n], proof)).toBe(false)
          if (m > 1) expect(verifyConsistency(m - 1, n, roots[m - 1], roots[n], proof)).toBe(false)
        }
      }
    }
  })

  it('refuses malformed input with a reason, without throwing', () => {
    const proof = consistencyProof(leaves, 3, 7)
    expect(consistencyProblem(0, 7, EMPTY_ROOT, roots[7], [])).toMatch(/empty tree/)
    expect(consistencyProblem(7, 3, roots[7], roots[3], proof)).toMatch(/does not shrink/)
    expect(consistencyProblem(3, 7, roots[3], roots[7], proof.slice(1))).toMatch(/has 4 hashes, not 3/)
    expect(consistencyProblem(3, 3, roots[3], roots[3], proof)).toMatch(/has 0 hashes, not 4/)
    expect(consistencyProblem(3, 3, roots[3], roots[4], [])).toMatch(/two different roots/)
    expect(consistencyProblem(3, 3, roots[3], roots[3], [])).toBeNull()
    expect(consistencyProblem(3.5, 7, roots[3], roots[7], proof)).toMatch(/whole numbers/)
    expect(consistencyProblem(-1, 7, roots[3], roots[7], proof)).toMatch(/whole numbers/)
    expect(consistencyProblem(3, 7, roots[3].subarray(2), roots[7], proof)).toMatch(/old root must be 32 bytes/)
    expect(consistencyProblem(3, 7, roots[3], roots[7], [proof[0], proof[1], Buffer.alloc(3)])).toMatch(/hash 2/)
    expect(consistencyProblem(3, 7, roots[4], roots[7], proof)).toMatch(/old root/)
    expect(consistencyProblem(3, 7, roots[3], roots[6], proof)).toMatch(/new root/)
    expect(() => consistencyProof(leaves, 0, 7)).toThrow(/0 < m ≤ n/)
    expect(() => consistencyProof(leaves, 8, 7)).toThrow(/0 < m ≤ n/)
    expect(() => consistencyProof(leaves, 3, 41)).toThrow(/needs 41 leaf hashes/)
  })

  it('works over packed leaves as over an array', () => {
    const packed = Buffer.concat(leaves)
    expect(consistencyProof(packed, 13, 37).map(hex)).toEqual(consistencyProof(leaves, 13, 37).map(hex))
    expect(inclusionPath(packed, 21, 37).map(hex)).toEqual(inclusionPath(leaves, 21, 37).map(hex))
    expect(() => treeRoot(packed.subarray(1))).toThrow(/multiple of 32/)
  })

  it('large trees (roots and paths through chunks of 1024 leaves) agree with game-core taken directly', () => {
    const big = Buffer.concat(someLeaves(3001))
    for (const n of [1024, 1025, 2047, 2048, 2049, 3001]) {
      const direct = merkleRoot(nodePrimitives, big, 0, n)
      expect(hex(treeRoot(big, n)), `root of ${n}`).toBe(hex(direct))
      expect(hex(frontierRoot(frontierOf(big, n)))).toBe(hex(direct))
      for (const i of [0, 1, 1023, 1024, 1025, n - 2, n - 1].filter((i) => i < n)) {
        const path = inclusionPath(big, i, n)
        expect(path.map(hex), `leaf ${i} of ${n}`).toEqual(inclusionProof(nodePrimitives, big, i, 0, n).map(hex))
        expect(verifyInclusion(big.subarray(32 * i, 32 * i + 32), i, n, path, direct)).toBe(true)
      }
    }
    for (const [m, n] of [
      [1000, 3001],
      [1024, 2049],
      [1500, 2048],
      [2049, 3000],
    ]) {
      const proof = consistencyProof(big, m, n)
      expect(consistencyProblem(m, n, treeRoot(big, m), treeRoot(big, n), proof), `${m} to ${n}`).toBeNull()
    }
  })
})
