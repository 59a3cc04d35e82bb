/**
 * The vault's transparency log tree: the RFC 6962 / RFC 9162 §2.1 Merkle tree over byte-string
 * leaves (leaf hash SHA-256(0x00 ‖ line), node hash SHA-256(0x01 ‖ left ‖ right)).
 *
 * - A Frontier (a "compact range" of leaves 0..size-1) keeps the roots of the perfect subtrees
 *   that cover the leaves, largest (leftmost) first: one per set bit of `size`. Appending a leaf
 *   costs one node hash amortised, and the tree head comes from the frontier alone.
 * - Proofs are computed from all the leaf hashes (a packed Buffer, 32 bytes a leaf, or an array
 *   of 32-byte hashes): inclusion (RFC 9162 §2.1.3, through game-core's audit path code) and
 *   consistency (§2.1.4.1 SUBPROOF), and verified as §2.1.3.2 and §2.1.4.2 say.
 *
 * Sizes and indices are JavaScript numbers: whole, and at most Number.MAX_SAFE_INTEGER.
 */
import { createHash, hash } from 'node:crypto'
import { inclusionProof, merkleRoot, rootFromProof } from '../../../game-core/commitment'
import { nodePrimitives } from '../../crypto/node-primitives'

export const HASH_BYTES = 32

/** The root of the empty tree: SHA-256 of the empty string (RFC 6962 §2.1). */
export const EMPTY_ROOT: Buffer = createHash('sha256').digest()

/** Leaf hashes: packed 32 bytes each, or one 32-byte hash per leaf. */
export type Leaves = Uint8Array | readonly Uint8Array[]
/** A 32-byte hash; a list of them (an audit path, a consistency proof). */
export type Hash = Uint8Array
export type Proof = readonly Uint8Array[]

/**
 * The roots of the perfect subtrees covering leaves 0..size-1, largest first. Treat the hashes
 * as read-only: appendLeaf replaces entries of the array, never the bytes of a hash.
 */
export interface Frontier {
  size: number
  hashes: Buffer[]
}

/** A Frontier as JSON: the hashes in base64, in the same order. */
export interface FrontierJson {
  size: number
  hashes: string[]
}

/** SHA-256(0x00 ‖ line), the line as UTF-8 when it is a string. */
export function leafHashOf(line: Uint8Array | string): Buffer {
  if (typeof line === 'string') return fromDigest(hash('sha256', '\u0000' + line, 'binary'))
  return fromDigest(createHash('sha256').update(LEAF_PREFIX).update(line).digest('binary'))
}

const LEAF_PREFIX = Uint8Array.of(0x00)

/**
 * A digest taken as a 'binary' (latin1) string and copied into a pooled Buffer: about twice as
 * fast as a digest Buffer, which node:crypto allocates apart (8 million node hashes: seconds saved).
 */
function fromDigest(binary: string): Buffer {
  return Buffer.from(binary, 'binary')
}

/** One message buffer for every node hash: appendLeaf allocates only the hashes it keeps. */
const nodeMessage = Buffer.alloc(1 + 2 * HASH_BYTES)
nodeMessage[0] = 0x01

/** SHA-256(0x01 ‖ left ‖ right). */
export function nodeHash(left: Uint8Array, right: Uint8Array): Buffer {
  nodeMessage.set(left, 1)
  nodeMessage.set(right, 1 + HASH_BYTES)
  return fromDigest(hash('sha256', nodeMessage, 'binary'))
}

function assertHash(h: Uint8Array, what: string): void {
  if (!(h instanceof Uint8Array) || h.length !== HASH_BYTES)
    throw new Error(`${what} must be ${HASH_BYTES} bytes, not ${h instanceof Uint8Array ? h.length : typeof h}`)
}

function isTreeSize(n: unknown): n is number {
  return typeof n === 'number' && Number.isSafeInteger(n) && n >= 0
}

function isPowerOfTwo(n: number): boolean {
  while (n > 1 && n % 2 === 0) n /= 2
  return n === 1
}

/** The number of set bits of a tree size: how many hashes its frontier holds. */
export function frontierLength(size: number): number {
  let bits = 0
  for (let n = size; n > 0; n = Math.floor(n / 2)) bits += n % 2
  return bits
}

export function emptyFrontier(): Frontier {
  return { size: 0, hashes: [] }
}

/**
 * Appends one leaf hash to the frontier, in place (the frontier is returned for chaining).
 * The leaf hash is copied when kept, so the caller may reuse its buffer.
 */
export function appendLeaf(f: Frontier, leafHash: Hash): Frontier {
  assertHash(leafHash, 'a leaf hash')
  if (f.size >= Number.MAX_SAFE_INTEGER) throw new Error('the log is full: its size would not be a safe integer')
  let node: Buffer | null = null
  // Each trailing 1 bit of the old size is a subtree of the new leaf's height: merge it.
  for (let n = f.size; n % 2 === 1; n = (n - 1) / 2) node = nodeHash(f.hashes.pop()!, node ?? leafHash)
  f.hashes.push(node ?? Buffer.from(leafHash))
  f.size += 1
  return f
}

/** The tree head (RFC 6962 MTH) of the frontier's leaves; EMPTY_ROOT for none. */
export function frontierRoot(f: Frontier): Buffer {
  const { hashes } = f
  if (hashes.length === 0) return Buffer.from(EMPTY_ROOT)
  let root = hashes[hashes.length - 1]
  for (let i = hashes.length - 2; i >= 0; i--) root = nodeHash(hashes[i], root)
  return root === hashes[hashes.length - 1] ? Buffer.from(root) : root
}

export function cloneFrontier(f: Frontier): Frontier {
  return { size: f.size, hashes: f.hashes.slice() }
}

export function frontierToJson(f: Frontier): FrontierJson {
  return { size: f.size, hashes: f.hashes.map((h) => h.toString('base64')) }
}

/** Standard base64 (RFC 4648 §4) of exactly `bytes` bytes, in its one canonical spelling. */
export function decodeBase64Hash(text: unknown, what: string, bytes = HASH_BYTES): Buffer {
  if (typeof text !== 'string') throw new Error(`${what} must be a base64 string`)
  const decoded = Buffer.from(text, 'base64')
  if (decoded.toString('base64') !== text) throw new Error(`${what} is not canonical standard base64: "${text}"`)
  if (decoded.length !== bytes) throw new Error(`${what} must decode to ${bytes} bytes, not ${decoded.length}`)
  return decoded
}

/** A frontier from its JSON form; throws on anything malformed. */
export function frontierFromJson(json: unknown): Frontier {
  if (json === null || typeof json !== 'object' || Array.isArray(json))
    throw new Error('malformed frontier: not an object')
  const { size, hashes } = json as Record<string, unknown>
  if (!isTreeSize(size)) throw new Error(`malformed frontier: size ${String(size)} is not a whole number ≥ 0`)
  if (!Array.isArray(hashes)) throw new Error('malformed frontier: hashes is not an array')
  const expected = frontierLength(size)
  if (hashes.length !== expected)
    throw new Error(`malformed frontier: a tree of ${size} leaves has ${expected} subtree hashes, not ${hashes.length}`)
  return { size, hashes: hashes.map((h, i) => decodeBase64Hash(h, `malformed frontier: hash ${i}`)) }
}

/** Leaves packed 32 bytes each (a packed Buffer is used as it is, not copied). */
function packLeaves(leaves: Leaves): Uint8Array {
  if (leaves instanceof Uint8Array) return leaves
  leaves.forEach((h, i) => assertHash(h, `leaf hash ${i}`))
  return Buffer.concat(leaves)
}

function leafCount(leaves: Leaves): number {
  if (!(leaves instanceof Uint8Array)) return leaves.length
  if (leaves.length % HASH_BYTES !== 0) throw new Error(`packed leaf hashes must be a multiple of ${HASH_BYTES} bytes`)
  return leaves.length / HASH_BYTES
}

function assertTreeSize(size: number, leaves: Leaves): void {
  if (!isTreeSize(size)) throw new Error(`a tree size is a whole number ≥ 0, not ${size}`)
  if (size > leafCount(leaves))
    throw new Error(`a tree of ${size} leaves needs ${size} leaf hashes, not ${leafCount(leaves)}`)
}

/**
 * Leaves per chunk for roots and audit paths of large trees. Every split of a range wider than a
 * power-of-two chunk falls on a chunk boundary, so the tree over the chunks' roots (the last chunk
 * may be partial) is the top of the leaves' tree: game-core's code works on the chunk roots, and
 * the chunk roots come from frontiers (about 4 times faster than game-core's recursion).
 */
const CHUNK_LEAVES = 1024

function appendRange(f: Frontier, packed: Uint8Array, from: number, count: number): Frontier {
  for (let i = from; i < from + count; i++) appendLeaf(f, packed.subarray(HASH_BYTES * i, HASH_BYTES * (i + 1)))
  return f
}

/** MTH(D[from:from+count]) of packed leaves (count ≥ 1). */
function rangeRoot(packed: Uint8Array, from: number, count: number): Buffer {
  return frontierRoot(appendRange(emptyFrontier(), packed, from, count))
}

/** The roots of the chunks of CHUNK_LEAVES leaves covering the first `size` leaves, packed. */
function chunkRoots(packed: Uint8Array, size: number): Buffer {
  const chunks = Math.ceil(size / CHUNK_LEAVES)
  const roots = Buffer.alloc(HASH_BYTES * chunks)
  for (let c = 0; c < chunks; c++) {
    const from = c * CHUNK_LEAVES
    roots.set(rangeRoot(packed, from, Math.min(CHUNK_LEAVES, size - from)), HASH_BYTES * c)
  }
  return roots
}

/** The tree head of the first `size` leaves (all by default); EMPTY_ROOT for none. */
export function treeRoot(leaves: Leaves, size = leafCount(leaves)): Buffer {
  assertTreeSize(size, leaves)
  if (size === 0) return Buffer.from(EMPTY_ROOT)
  const packed = packLeaves(leaves)
  if (size <= CHUNK_LEAVES) return Buffer.from(merkleRoot(nodePrimitives, packed, 0, size))
  return Buffer.from(merkleRoot(nodePrimitives, chunkRoots(packed, size)))
}

/** The frontier of the first `size` leaves (all by default). */
export function frontierOf(leaves: Leaves, size = leafCount(leaves)): Frontier {
  assertTreeSize(size, leaves)
  return appendRange(emptyFrontier(), packLeaves(leaves), 0, size)
}

/** The audit path of leaf `index` in the tree of the first `size` leaves (RFC 9162 §2.1.3.1), lowest first. */
export function inclusionPath(leaves: Leaves, index: number, size: number): Buffer[] {
  assertTreeSize(size, leaves)
  if (!Number.isSafeInteger(index) || index < 0 || index >= size)
    throw new Error(`leaf ${index} is outside a tree of ${size} leaves`)
  const packed = packLeaves(leaves)
  if (size <= CHUNK_LEAVES) return inclusionProof(nodePrimitives, packed, index, 0, size).map((h) => Buffer.from(h))
  const chunk = Math.floor(index / CHUNK_LEAVES)
  const from = chunk * CHUNK_LEAVES
  const inChunk = inclusionProof(nodePrimitives, packed, index - from, from, Math.min(CHUNK_LEAVES, size - from))
  const above = inclusionProof(nodePrimitives, chunkRoots(packed, size), chunk)
  return [...inChunk, ...above].map((h) => Buffer.from(h))
}

/** Whether `path` proves leaf `index` of a tree of `size` leaves has `leafHash`, under `root`. */
export function verifyInclusion(leafHash: Hash, index: number, size: number, path: Proof, root: Hash): boolean {
  return inclusionProblem(leafHash, index, size, path, root) === null
}

/** Why the audit path does not prove the leaf (a sentence for auditors), or null when it does. */
export function inclusionProblem(leafHash: Hash, index: number, size: number, path: Proof, root: Hash): string | null {
  try {
    assertHash(leafHash, 'the leaf hash')
    assertHash(root, 'the root')
    if (!Array.isArray(path)) return 'the audit path is not a list of hashes'
    path.forEach((h, i) => assertHash(h, `audit path hash ${i}`))
    const computed = rootFromProof(nodePrimitives, leafHash, index, size, [...path])
    return Buffer.from(computed).equals(root) ? null : `the audit path of leaf ${index} leads to another root`
  } catch (e) {
    return (e as Error).message
  }
}

function largestPowerOfTwoBelow(n: number): number {
  let k = 1
  while (k * 2 < n) k *= 2
  return k
}

/**
 * The consistency proof from the tree of the first m leaves to the tree of the first n
 * (RFC 9162 §2.1.4.1, PROOF(m, D[n]) = SUBPROOF(m, D[n], true)), for 0 < m ≤ n.
 */
export function consistencyProof(leaves: Leaves, m: number, n: number): Buffer[] {
  assertTreeSize(n, leaves)
  if (!Number.isSafeInteger(m) || m < 1 || m > n)
    throw new Error(`a consistency proof goes from a size m with 0 < m ≤ n = ${n}, not from ${m}`)
  const packed = packLeaves(leaves)
  const proof: Buffer[] = []
  // SUBPROOF(m, D[from:from+count], whole): the recursion's depth is log2(n).
  const subproof = (m: number, from: number, count: number, whole: boolean): void => {
    if (m === count) {
      if (!whole) proof.push(rangeRoot(packed, from, count))
      return
    }
    const k = largestPowerOfTwoBelow(count)
    if (m <= k) {
      subproof(m, from, k, whole)
      proof.push(rangeRoot(packed, from + k, count - k))
    } else {
      subproof(m - k, from + k, count - k, false)
      proof.push(rangeRoot(packed, from, k))
    }
  }
  subproof(m, 0, n, true)
  return proof
}

/** How many hashes the consistency proof from size m to size n holds (0 < m ≤ n). */
export function consistencyProofLength(m: number, n: number): number {
  let length = 0
  let whole = true
  while (m !== n) {
    const k = largestPowerOfTwoBelow(n)
    if (m <= k) n = k
    else {
      m -= k
      n -= k
      whole = false
    }
    length++
  }
  return whole ? length : length + 1
}

/** Whether `proof` shows the tree of size n with `newRoot` extends the tree of size m with `oldRoot`. */
export function verifyConsistency(m: number, n: number, oldRoot: Hash, newRoot: Hash, proof: Proof): boolean {
  return consistencyProblem(m, n, oldRoot, newRoot, proof) === null
}

/** Why the consistency proof fails (a sentence for auditors), or null when it holds. */
export function consistencyProblem(m: number, n: number, oldRoot: Hash, newRoot: Hash, proof: Proof): string | null {
  try {
    assertHash(oldRoot, 'the old root')
    assertHash(newRoot, 'the new root')
    if (!Array.isArray(proof)) return 'the consistency proof is not a list of hashes'
    proof.forEach((h, i) => assertHash(h, `consistency proof hash ${i}`))
  } catch (e) {
    return (e as Error).message
  }
  if (!isTreeSize(m) || !isTreeSize(n)) return `tree sizes are whole numbers ≥ 0, not ${m} and ${n}`
  if (m === 0) return 'there is no consistency proof from the empty tree (every tree extends it)'
  if (m > n) return `a log does not shrink: size ${m} cannot be followed by size ${n}`
  const expected = m === n ? 0 : consistencyProofLength(m, n)
  if (proof.length !== expected)
    return `a consistency proof from ${m} to ${n} leaves has ${expected} hashes, not ${proof.length}`
  if (m === n) return Buffer.from(oldRoot).equals(newRoot) ? null : `two different roots for the same size ${m}`
  return walkConsistency(m, n, oldRoot, newRoot, proof)
}

/** RFC 9162 §2.1.4.2, steps 2 to 7, for 0 < m < n and a non-empty proof. */
function walkConsistency(m: number, n: number, oldRoot: Hash, newRoot: Hash, given: Proof): string | null {
  const path = isPowerOfTwo(m) ? [oldRoot, ...given] : [...given]
  let fn = m - 1
  let sn = n - 1
  while (fn % 2 === 1) {
    fn = (fn - 1) / 2
    sn = Math.floor(sn / 2)
  }
  let fr: Uint8Array = path[0]
  let sr: Uint8Array = path[0]
  for (const c of path.slice(1)) {
    if (sn === 0) return 'the consistency proof is longer than the trees are deep'
    if (fn % 2 === 1 || fn === sn) {
      fr = nodeHash(c, fr)
      sr = nodeHash(c, sr)
      while (fn % 2 === 0 && fn !== 0) {
        fn /= 2
        sn = Math.floor(sn / 2)
      }
    } else {
      sr = nodeHash(sr, c)
    }
    fn = Math.floor(fn / 2)
    sn = Math.floor(sn / 2)
  }
  if (sn !== 0) return 'the consistency proof is shorter than the trees are deep'
  if (!Buffer.from(fr).equals(oldRoot)) return `the consistency proof does not lead to the old root (size ${m})`
  if (!Buffer.from(sr).equals(newRoot)) return `the consistency proof does not lead to the new root (size ${n})`
  return null
}
