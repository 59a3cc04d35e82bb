/**
 * The block commitment: an RFC 6962 (Certificate Transparency) Merkle tree whose leaves are
 * chunks of CHUNK_UNITS unit records, bound to the game definition and the block's identity.
 * Exact bytes: game-core/DERIVATION.md.
 */
import type { GameDefinition } from './rules'
import { type Primitives, concatBytes, u16be, u32be, utf8, toHex } from './primitives'
import { CHUNK_UNITS } from './block'
import type { CommitmentVersion } from './unit-commitment'

export function chunkCount(def: GameDefinition): number {
  return Math.ceil(def.blockSize / CHUNK_UNITS)
}

export function leafHash(prim: Primitives, chunkRecords: Uint8Array): Uint8Array {
  const msg = new Uint8Array(chunkRecords.length + 1)
  msg[0] = 0x00
  msg.set(chunkRecords, 1)
  return prim.sha256(msg)
}

function nodeHash(prim: Primitives, left: Uint8Array, right: Uint8Array): Uint8Array {
  const msg = new Uint8Array(65)
  msg[0] = 0x01
  msg.set(left, 1)
  msg.set(right, 33)
  return prim.sha256(msg)
}

function largestPowerOfTwoBelow(n: number): number {
  let k = 1
  while (k * 2 < n) k *= 2
  return k
}

const leafAt = (leaves: Uint8Array, i: number) => leaves.subarray(32 * i, 32 * i + 32)

/** MTH over leaf hashes packed 32 bytes each (RFC 6962 §2.1). */
export function merkleRoot(prim: Primitives, leaves: Uint8Array, from = 0, n = leaves.length / 32): Uint8Array {
  if (n < 1) throw new Error('a Merkle tree needs at least one leaf')
  if (n === 1) return leafAt(leaves, from)
  const k = largestPowerOfTwoBelow(n)
  return nodeHash(prim, merkleRoot(prim, leaves, from, k), merkleRoot(prim, leaves, from + k, n - k))
}

/**
 * Cuts a tree of n leaves into about `parts` ranges that are each a whole subtree of the RFC 6962
 * tree (splitting the largest first), so that threads can hash their range to a subtree root and
 * the root is then made from those alone (rootFromSubtrees).
 */
export function subtreeRanges(n: number, parts: number): { from: number; count: number }[] {
  const ranges = [{ from: 0, count: n }]
  while (ranges.length < parts) {
    let widest = 0
    ranges.forEach((r, i) => {
      if (r.count > ranges[widest].count) widest = i
    })
    const r = ranges[widest]
    if (r.count < 2) break
    const k = largestPowerOfTwoBelow(r.count)
    ranges.splice(widest, 1, { from: r.from, count: k }, { from: r.from + k, count: r.count - k })
  }
  return ranges
}

/** MTH of n leaves from the roots of subtrees that cover them (keyed `${from}:${count}`). */
export function rootFromSubtrees(
  prim: Primitives,
  subtrees: Map<string, Uint8Array>,
  from: number,
  n: number,
): Uint8Array {
  const known = subtrees.get(`${from}:${n}`)
  if (known) return known
  if (n <= 1) throw new Error(`leaf ${from} is covered by no subtree`)
  const k = largestPowerOfTwoBelow(n)
  return nodeHash(prim, rootFromSubtrees(prim, subtrees, from, k), rootFromSubtrees(prim, subtrees, from + k, n - k))
}

/** The audit path of leaf m (RFC 6962 §2.1.1), lowest sibling first. */
export function inclusionProof(
  prim: Primitives,
  leaves: Uint8Array,
  m: number,
  from = 0,
  n = leaves.length / 32,
): Uint8Array[] {
  if (n <= 1) return []
  const k = largestPowerOfTwoBelow(n)
  if (m < k) return [...inclusionProof(prim, leaves, m, from, k), merkleRoot(prim, leaves, from + k, n - k)]
  return [...inclusionProof(prim, leaves, m - k, from + k, n - k), merkleRoot(prim, leaves, from, k)]
}

/** The root that an audit path leads to from a leaf; compare it with the committed root. */
export function rootFromProof(
  prim: Primitives,
  leaf: Uint8Array,
  m: number,
  n: number,
  path: Uint8Array[],
  end = path.length,
): Uint8Array {
  if (!Number.isInteger(n) || n < 1) throw new Error(`a tree has at least one leaf, not ${n}`)
  if (!Number.isInteger(m) || m < 0 || m >= n) throw new Error(`leaf ${m} is outside a tree of ${n} leaves`)
  if (n === 1) {
    if (end !== 0) throw new Error('the audit path is longer than the tree is deep')
    return leaf
  }
  if (end === 0) throw new Error('the audit path is too short')
  const k = largestPowerOfTwoBelow(n)
  if (m < k) return nodeHash(prim, rootFromProof(prim, leaf, m, k, path, end - 1), path[end - 1])
  return nodeHash(prim, path[end - 1], rootFromProof(prim, leaf, m - k, n - k, path, end - 1))
}

/** Chunks per proof batch: an aligned run of 16 leaves is a whole subtree of the tree. */
export const PROOF_BATCH_CHUNKS = 16

/** The root of each aligned run of PROOF_BATCH_CHUNKS leaves (the last one may be shorter), back to back. */
export function batchRoots(prim: Primitives, leaves: Uint8Array): Uint8Array {
  const n = leaves.length / 32
  const batches = Math.ceil(n / PROOF_BATCH_CHUNKS)
  const out = new Uint8Array(32 * batches)
  for (let b = 0; b < batches; b++) {
    const from = b * PROOF_BATCH_CHUNKS
    out.set(merkleRoot(prim, leaves, from, Math.min(PROOF_BATCH_CHUNKS, n - from)), 32 * b)
  }
  return out
}

/**
 * The audit path of leaf m in a tree of n leaves (as inclusionProof) from the batch roots and the
 * leaves of leaf m's own batch only (`batchLeaves`, 32 bytes each from its first leaf).
 */
export function auditPathFromBatches(
  prim: Primitives,
  m: number,
  n: number,
  roots: Uint8Array,
  batchLeaves: Uint8Array,
): Uint8Array[] {
  const B = PROOF_BATCH_CHUNKS
  const own = Math.floor(m / B) * B
  if (roots.length !== 32 * Math.ceil(n / B))
    throw new Error(`a tree of ${n} leaves has ${Math.ceil(n / B)} batch roots, not ${roots.length / 32}`)
  const node = (from: number, count: number): Uint8Array => {
    if (from >= own && from + count <= own + B) return merkleRoot(prim, batchLeaves, from - own, count)
    if (from % B === 0 && count === Math.min(B, n - from)) return roots.subarray(32 * (from / B), 32 * (from / B) + 32)
    const k = largestPowerOfTwoBelow(count)
    return nodeHash(prim, node(from, k), node(from + k, count - k))
  }
  const path = (leaf: number, from: number, count: number): Uint8Array[] => {
    if (count <= 1) return []
    const k = largestPowerOfTwoBelow(count)
    if (leaf < k) return [...path(leaf, from, k), node(from + k, count - k)]
    return [...path(leaf - k, from + k, count - k), node(from, k)]
  }
  return path(m, 0, n)
}

/** JSON with keys sorted at every level and no white space. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined)
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`
  }
  return JSON.stringify(value)
}

export function definitionDigest(prim: Primitives, def: GameDefinition): Uint8Array {
  return prim.sha256(utf8(canonicalJson(def)))
}

/**
 * SHA-256 over the version's label, the block's identity, the definition digest and the Merkle
 * root. Versions 1 and 2 differ only in the label and in how leaves are made.
 */
export function blockCommitment(
  prim: Primitives,
  def: GameDefinition,
  ref: { emission: number; block: number },
  root: Uint8Array,
  version: CommitmentVersion = 1,
): string {
  return toHex(
    prim.sha256(
      concatBytes(
        utf8(`CARATS-BLOCK-COMMITMENT-v${version}`),
        u16be(ref.emission),
        u16be(ref.block),
        u32be(def.blockSize),
        u32be(CHUNK_UNITS),
        definitionDigest(prim, def),
        root,
      ),
    ),
  )
}
