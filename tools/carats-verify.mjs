#!/usr/bin/env node
/**
 * The Carats verifier for outsiders: one file, no dependency but Node's own modules (node:crypto;
 * worker threads to re-derive a block on every core), written from game-core/DERIVATION.md alone
 * (it imports nothing of the project). Node 18.14 or later.
 *
 *   node carats-verify.mjs proof <proof.json>
 *       checks a unit's proof (DERIVATION.md §8) and prints the commitment it leads to:
 *       compare it with the block's commitment on the emission's certificate.
 *   node carats-verify.mjs block --definition <rules.json> --secret <64 hex> --emission E --block B
 *                                [--commitment-version 1|2] [--commitment <64 hex>] [--threads N]
 *       re-derives every unit of the block from its secret (§2–§5), checks each against its
 *       evaluation and the prize table, and computes the commitment (§6, §7). <rules.json> is
 *       the output of `carats rules --json` (its canonicalDefinition) or a canonical definition.
 *       Every core is used (--threads N for fewer); a progress line goes to standard error.
 *   node carats-verify.mjs bundle <dir> [--threads N]
 *       checks a publication bundle (`carats emission publish`, §11) completely: the definition's
 *       bytes and digest, each share against its hash and each two-person block's secret against
 *       the shares, every block re-derived and its commitment, every sold unit's serial and prize,
 *       and each sales file's SHA-256 (helpers in carats-verify-bundle.mjs, beside this file).
 *       Exit 0: it holds; 1: something does not; 2: the input cannot be read.
 *   node carats-verify.mjs vectors <derivation.json> [--whole]
 *       recomputes the known-answer vectors (game-core/vectors/) and says which differ; with
 *       --whole, also the main block's 8,016,000 units, Merkle roots and commitments.
 */
import * as nodeCrypto from 'node:crypto'
import { createCipheriv, createHash, createHmac } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads'
import { bundleCommand } from './carats-verify-bundle.mjs'

// ---------------------------------------------------------------------------------------------
// bytes (§0)
const sha256 = (...parts) => {
  const h = createHash('sha256')
  for (const p of parts) h.update(p)
  return new Uint8Array(h.digest())
}
const hmac = (key, data) => new Uint8Array(createHmac('sha256', key).update(data).digest())
const ascii = (s) => new Uint8Array(Buffer.from(s, 'utf8'))
const u16 = (n) => Uint8Array.of(n >>> 8, n & 255)
const u32 = (n) => Uint8Array.of(n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255)
const cat = (...parts) => new Uint8Array(Buffer.concat(parts))
export const hex = (b) => Buffer.from(b).toString('hex')
export const unhex = (h) => {
  if (typeof h !== 'string' || !/^([0-9a-f]{2})*$/.test(h))
    throw new Error(`not lowercase hexadecimal: ${String(h).slice(0, 20)}`)
  return new Uint8Array(Buffer.from(h, 'hex'))
}

/** A keystream KS(K, c, ·) read on from block c: AES-256-CTR of zeros, 128-bit big-endian counter. */
export class Keystream {
  constructor(key, firstBlock = 0) {
    const iv = Buffer.alloc(16)
    iv.writeUInt32BE(Math.floor(firstBlock / 2 ** 32), 8)
    iv.writeUInt32BE(firstBlock >>> 0, 12)
    this.cipher = createCipheriv('aes-256-ctr', key, iv)
  }
  take(n) {
    return new Uint8Array(this.cipher.update(Buffer.alloc(n)))
  }
}
export const KS = (key, c, n) => new Keystream(key, c).take(n)

// ---------------------------------------------------------------------------------------------
// definition (§1, §6)
/** Canonical JSON: keys sorted by UTF-16 code unit at every level, no white space, JSON.stringify's numbers and strings. */
export function canonical(v) {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`
  if (v !== null && typeof v === 'object') {
    const keys = Object.keys(v)
      .filter((k) => v[k] !== undefined)
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`).join(',')}}`
  }
  return JSON.stringify(v)
}
/** The definition from `carats rules --json` output, a proof's definition string, or a plain definition. */
export function readDefinition(json) {
  const text = typeof json === 'string' ? json : JSON.stringify(json)
  const value = JSON.parse(text)
  const canonicalText = typeof value.canonicalDefinition === 'string' ? value.canonicalDefinition : canonical(value)
  return { def: JSON.parse(canonicalText), text: canonicalText, digest: sha256(ascii(canonicalText)) }
}

// ---------------------------------------------------------------------------------------------
// keys (§2)
export function keys(secret, e, b) {
  if (secret.length !== 32) throw new Error('a block secret is 32 bytes')
  const ctx = cat(u16(e), u16(b))
  return {
    tiers: hmac(secret, cat(ascii('CARATS/v1/tiers'), ctx)),
    units: hmac(secret, cat(ascii('CARATS/v1/units'), ctx)),
    extra: hmac(secret, cat(ascii('CARATS/v1/units-extra'), ctx)),
    salts: hmac(secret, cat(ascii('CARATS/v2/salts'), ctx)),
  }
}

// ---------------------------------------------------------------------------------------------
// tier table (§3)
export function tierTable(def, key) {
  const N = def.blockSize
  const T = new Uint8Array(N).fill(255)
  let at = 0
  def.tiers.forEach((t, i) => {
    T.fill(i, at, at + t.count)
    at += t.count
  })
  const ks = new Keystream(key, 0)
  let buf = ks.take(65536)
  let p = 0
  const word = () => {
    if (p === buf.length) {
      buf = ks.take(65536)
      p = 0
    }
    const r = ((buf[p] << 24) | (buf[p + 1] << 16) | (buf[p + 2] << 8) | buf[p + 3]) >>> 0
    p += 4
    return r
  }
  for (let i = N - 1; i >= 1; i--) {
    const B = i + 1
    const threshold = 2 ** 32 % B
    let j
    for (;;) {
      const r = word()
      const low = Math.imul(r, B) >>> 0 // m mod 2^32, exact
      if (low < threshold) continue
      // ⌊r·B / 2^32⌋ exactly, from r's 16-bit halves (r·B may exceed 2^53)
      j = Math.floor(((r >>> 16) * B + Math.floor(((r & 0xffff) * B) / 65536)) / 65536)
      break
    }
    const t = T[i]
    T[i] = T[j]
    T[j] = t
  }
  return T
}

// ---------------------------------------------------------------------------------------------
// one unit (§4, §5)
/** The unit's words: its slice D_u of 8·16 bytes, then the extra slices r = 0, 1, … */
class Words {
  constructor(slice, extraKey, unit, sliceBlocks) {
    this.buf = slice
    this.p = 0
    this.extraKey = extraKey
    this.unit = unit
    this.sliceBlocks = sliceBlocks
    this.extraSlices = 0
  }
  next() {
    if (this.p >= this.buf.length) {
      const r = this.extraSlices++
      this.buf = KS(this.extraKey, this.unit * 65536 + this.sliceBlocks * r, 16 * this.sliceBlocks)
      this.p = 0
    }
    const w = (this.buf[this.p] << 8) | this.buf[this.p + 1]
    this.p += 2
    return w
  }
  uniform(n) {
    for (;;) {
      const m = this.next() * n
      if (m % 65536 < 65536 % n) continue
      return Math.floor(m / 65536)
    }
  }
  /** weighted(options) of §4, the options given by their weights and the weights' total. */
  weighted(weights, total) {
    const x = this.uniform(total)
    let acc = 0
    for (let i = 0; i < weights.length; i++) {
      acc += weights[i]
      if (x < acc) return i
    }
    throw new Error('unreachable')
  }
}

export const sliceBlocks = (def) =>
  Math.ceil((2 * (def.winningCells + 2 * def.yoursCells + Math.min(def.winningCells, def.yoursCells) + 1)) / 16)
export const recordSize = (def) => 10 + def.winningCells + 2 * def.yoursCells

const sum = (xs) => xs.reduce((a, x) => a + x, 0)
const plans = new WeakMap()
/** What a definition fixes for every unit, worked out once: its compositions, decoy weights, amounts. */
function planOf(def) {
  let plan = plans.get(def)
  if (!plan) {
    const decoys = def.decoyWeights.filter((d) => d.weight > 0)
    const compositions = def.tiers.map((t) => {
      const rule = def.compositions.find((c) => c.amountCents === t.amountCents)
      const weights = rule.options.map((o) => o.weight)
      return { parts: rule.options.map((o) => o.partsCents), weights, total: sum(weights) }
    })
    const decoyWeights = decoys.map((d) => d.weight)
    plan = {
      compositions,
      decoyAmounts: decoys.map((d) => d.amountCents),
      decoyWeights,
      decoyTotal: sum(decoyWeights),
      amountIndex: new Map(def.printableAmountsCents.map((a, i) => [a, i])),
      // listed[n] for every number n of the list (numbers are bytes in a record)
      listed: Array.from({ length: 256 }, (_, n) => def.numbers.includes(n)),
    }
    plans.set(def, plan)
  }
  return plan
}

/** n as 4 bytes, big-endian, at `at` (in place: a DataView per record costs more than the unit). */
const putU32 = (bytes, at, n) => {
  for (let i = 0; i < 4; i++) bytes[at + i] = n >>> (24 - 8 * i)
}

const swap = (a, i, j) => {
  const t = a[i]
  a[i] = a[j]
  a[j] = t
}

/** The unit's content and record from its slice; `extraSlices` says how many extra slices it took. */
export function makeUnit(def, k, tier, unit, slice) {
  const W = def.winningCells,
    Y = def.yoursCells
  const plan = planOf(def)
  const words = new Words(slice, k.extra, unit, sliceBlocks(def))
  const pool = def.numbers.slice()
  for (let j = 0; j < W; j++) swap(pool, j, j + words.uniform(pool.length - j))
  let parts = []
  if (tier !== 255) {
    const c = plan.compositions[tier]
    parts = c.parts[c.parts.length > 1 ? words.weighted(c.weights, c.total) : 0]
  }
  const km = parts.length
  for (let j = 0; j < Y - km; j++) {
    const a = W + j
    swap(pool, a, a + words.uniform(pool.length - a))
  }
  const c = pool.slice(0, W)
  for (let j = 0; j < km; j++) swap(c, j, j + words.uniform(W - j))
  const cells = []
  for (let i = 0; i < Y; i++) cells.push(i)
  const numbers = new Array(Y),
    amounts = new Array(Y)
  for (let j = 0; j < km; j++) {
    swap(cells, j, j + words.uniform(Y - j))
    numbers[cells[j]] = c[j]
    amounts[cells[j]] = parts[j]
  }
  for (let j = 0; j < Y - km; j++) {
    numbers[cells[km + j]] = pool[W + j]
    amounts[cells[km + j]] = plan.decoyAmounts[words.weighted(plan.decoyWeights, plan.decoyTotal)]
  }
  const prize = tier === 255 ? 0 : def.tiers[tier].amountCents
  const winning = pool.slice(0, W)
  // the record (§5): unit, prize, winning numbers, numbers, amounts' indexes, tier, matches
  const record = new Uint8Array(recordSize(def))
  putU32(record, 0, unit)
  putU32(record, 4, prize)
  record.set(winning, 8)
  record.set(numbers, 8 + W)
  for (let i = 0; i < Y; i++) record[8 + W + Y + i] = plan.amountIndex.get(amounts[i])
  record[8 + W + 2 * Y] = tier
  record[9 + W + 2 * Y] = km
  return {
    unit,
    tier,
    prizeCents: prize,
    winning,
    numbers,
    amountsCents: amounts,
    matches: km,
    record,
    extraSlices: words.extraSlices,
  }
}

/** True when a value comes twice in xs. */
function repeats(xs) {
  for (let i = 1; i < xs.length; i++) for (let j = 0; j < i; j++) if (xs[i] === xs[j]) return true
  return false
}

/** What the content pays, found without the derivation: gems whose number is a winning number. */
export function evaluate(def, content) {
  const problems = []
  const plan = planOf(def)
  const { winning, numbers, amountsCents } = content
  if (repeats(winning) || repeats(numbers)) problems.push('a number repeats in a zone')
  let listed = true
  for (const n of winning) listed &&= plan.listed[n] === true
  for (const n of numbers) listed &&= plan.listed[n] === true
  if (!listed) problems.push('a number is not in the list')
  let printable = true
  for (const a of amountsCents) printable &&= def.printableAmountsCents.includes(a)
  if (!printable) problems.push('an amount is not printable')
  let prize = 0
  for (let i = 0; i < numbers.length; i++) if (winning.includes(numbers[i])) prize += amountsCents[i]
  return { prizeCents: prize, problems }
}

export function decodeRecord(def, rec) {
  const W = def.winningCells,
    Y = def.yoursCells
  const v = new DataView(rec.buffer, rec.byteOffset, rec.byteLength)
  const amountOf = (i) => def.printableAmountsCents[i]
  return {
    unit: v.getUint32(0),
    prizeCents: v.getUint32(4),
    winning: [...rec.subarray(8, 8 + W)],
    numbers: [...rec.subarray(8 + W, 8 + W + Y)],
    amountsCents: [...rec.subarray(8 + W + Y, 8 + W + 2 * Y)].map(amountOf),
    tier: rec[8 + W + 2 * Y],
    matches: rec[9 + W + 2 * Y],
  }
}

// ---------------------------------------------------------------------------------------------
// commitment (§6, §7)
const largestPowerBelow = (n) => {
  let k = 1
  while (k * 2 < n) k *= 2
  return k
}
export function mth(leaves, from = 0, n = leaves.length) {
  if (n === 1) return leaves[from]
  const k = largestPowerBelow(n)
  return sha256(Uint8Array.of(1), mth(leaves, from, k), mth(leaves, from + k, n - k))
}
export function rootFromPath(leaf, m, n, path) {
  // RFC 6962 §2.1.1: the path lists siblings lowest first; walk the tree from the top
  const walk = (m, n, end) => {
    if (n === 1) {
      if (end !== 0) throw new Error('the path is longer than the tree is deep')
      return leaf
    }
    if (end === 0) throw new Error('the path is too short')
    const k = largestPowerBelow(n)
    return m < k
      ? sha256(Uint8Array.of(1), walk(m, k, end - 1), path[end - 1])
      : sha256(Uint8Array.of(1), path[end - 1], walk(m - k, n - k, end - 1))
  }
  return walk(m, n, path.length)
}
/** SHA-256 of one byte array: crypto.hash where Node has it (20.12+: no Hash object per call). */
const sha256Of =
  typeof nodeCrypto.hash === 'function'
    ? (bytes) => new Uint8Array(nodeCrypto.hash('sha256', bytes, 'buffer'))
    : (bytes) => sha256(bytes)
let unitMessage = new Uint8Array(0)
/** h_u = SHA256(0x02 ‖ salt ‖ record) (§7), the message laid out in one reused array. */
export function unitHash(salt, record) {
  const length = 1 + salt.length + record.length
  if (unitMessage.length !== length) unitMessage = new Uint8Array(length)
  unitMessage[0] = 2
  unitMessage.set(salt, 1)
  unitMessage.set(record, 1 + salt.length)
  return sha256Of(unitMessage)
}
export function commitment(version, e, b, def, digest, root) {
  return hex(
    sha256(ascii(`CARATS-BLOCK-COMMITMENT-v${version}`), u16(e), u16(b), u32(def.blockSize), u32(128), digest, root),
  )
}

/** A unit's problem, in words, or null: its evaluation must give its tier's amount (§4). */
function unitProblem(def, u) {
  const ev = evaluate(def, u)
  if (ev.problems.length === 0 && ev.prizeCents === u.prizeCents) return null
  return `unit ${u.unit}: shows ${ev.prizeCents} cents, its outcome is ${u.prizeCents} (${ev.problems.join('; ')})`
}

/**
 * Chunks `from` … `to`-1 of a block (128 units each, §6): every unit derived and evaluated, the
 * tiers counted, each chunk's leaf (§6 or §7). `onProgress(units)` is told of the units done.
 */
export function checkChunks(def, k, T, version, from, to, onProgress = () => {}) {
  const sb = 16 * sliceBlocks(def)
  const unitStream = new Keystream(k.units, 128 * from * (sb / 16))
  const saltStream = new Keystream(k.salts, 2 * 128 * from)
  const leaves = new Uint8Array(32 * (to - from))
  const counts = new Array(def.tiers.length + 1).fill(0)
  const problems = []
  for (let c = from; c < to; c++) {
    const first = 128 * c
    const n = Math.min(128, def.blockSize - first)
    const stream = unitStream.take(n * sb)
    const salts = saltStream.take(32 * n)
    const body = []
    for (let i = 0; i < n; i++) {
      const u = makeUnit(def, k, T[first + i], first + i, stream.subarray(i * sb, (i + 1) * sb))
      const problem = unitProblem(def, u)
      if (problem) problems.push(problem)
      counts[u.tier === 255 ? def.tiers.length : u.tier]++
      body.push(version === 1 ? u.record : unitHash(salts.subarray(32 * i, 32 * i + 32), u.record))
    }
    leaves.set(sha256(Uint8Array.of(0), ...body), 32 * (c - from))
    if ((c - from) % 64 === 63 || c === to - 1) onProgress(Math.min(128 * (c + 1), def.blockSize) - 128 * from)
  }
  return { leaves, counts, problems }
}

const chunksOf = (def) => Math.ceil(def.blockSize / 128)

/** The verdict from the chunks' results, in chunk order: the tiers against the table, the commitment. */
function verdict(def, digest, e, b, version, tiers, parts) {
  const counts = new Array(def.tiers.length + 1).fill(0)
  const problems = []
  const leaves = []
  for (const part of parts) {
    part.counts.forEach((n, i) => (counts[i] += n))
    problems.push(...part.problems)
    for (let at = 0; at < part.leaves.length; at += 32) leaves.push(part.leaves.subarray(at, at + 32))
  }
  def.tiers.forEach((t, i) => {
    if (counts[i] !== t.count)
      problems.push(`tier ${t.amountCents} cents: ${counts[i]} units, the table says ${t.count}`)
  })
  const root = mth(leaves)
  return {
    sound: problems.length === 0,
    problems,
    units: def.blockSize,
    merkleRoot: hex(root),
    commitment: commitment(version, e, b, def, digest, root),
    leaves,
    tiers,
  }
}

/** Every unit of a block re-derived and checked, and its commitment, on this thread. */
export function verifyBlock(def, digest, secret, e, b, version) {
  const k = keys(secret, e, b)
  const T = tierTable(def, k.tiers)
  return verdict(def, digest, e, b, version, T, [checkChunks(def, k, T, version, 0, chunksOf(def))])
}

/**
 * The same on `threads` worker threads (all the cores by default), each checking a run of
 * chunks; the tier table is built first, once, in memory they share. `onProgress(done, total)`
 * is told of the units checked.
 */
export async function verifyBlockThreaded(def, digest, secret, e, b, version, { threads, onProgress } = {}) {
  const k = keys(secret, e, b)
  const tiers = tierTable(def, k.tiers)
  const T = new Uint8Array(new SharedArrayBuffer(def.blockSize))
  T.set(tiers)
  const total = chunksOf(def)
  const n = Math.max(1, Math.min(threads ?? availableParallelism(), total))
  const done = new Array(n).fill(0)
  onProgress?.(0, def.blockSize)
  const parts = await Promise.all(
    Array.from({ length: n }, (_, w) => {
      const from = Math.floor((total * w) / n)
      const to = Math.floor((total * (w + 1)) / n)
      const worker = new Worker(new URL(import.meta.url), {
        workerData: { caratsChunks: { def, secret, e, b, version, T, from, to } },
      })
      return new Promise((resolve, reject) => {
        worker.on('message', (m) => {
          if (m.result) return resolve(m.result)
          done[w] = m.units
          onProgress?.(
            done.reduce((a, x) => a + x, 0),
            def.blockSize,
          )
        })
        worker.on('error', reject)
        worker.on('exit', (code) => reject(new Error(`a verifying thread stopped (exit ${code})`)))
      })
    }),
  )
  return verdict(def, digest, e, b, version, T, parts)
}

/** A worker thread of verifyBlockThreaded: its run of chunks, its progress on the way. */
function chunksThread({ def, secret, e, b, version, T, from, to }) {
  const r = checkChunks(def, keys(secret, e, b), T, version, from, to, (units) => parentPort.postMessage({ units }))
  parentPort.postMessage({ result: r }, [r.leaves.buffer])
}

// ---------------------------------------------------------------------------------------------
// unit proofs (§8)
const same = (a, b) => Array.isArray(b) && a.length === b.length && a.every((x, i) => x === b[i])

export function serialOf(e, b, u) {
  const DAMM = [
    '0317598642',
    '7092154863',
    '4206871359',
    '1750983426',
    '6123045978',
    '3674209581',
    '5869720134',
    '8945362017',
    '9438617205',
    '2581436790',
  ]
  const body = String(e).padStart(4, '0') + String(b).padStart(3, '0') + String(u).padStart(7, '0')
  let d = 0
  for (const ch of body) d = Number(DAMM[d][Number(ch)])
  return `${body.slice(0, 4)}-${body.slice(4, 7)}-${body.slice(7)}-${d}`
}

export function verifyProof(proof) {
  const problems = []
  try {
    if (proof.format !== 'carats-unit-proof' || proof.formatVersion !== 1)
      throw new Error('not a carats-unit-proof of format 1')
    if (proof.commitmentVersion !== 2)
      throw new Error(`commitment version ${proof.commitmentVersion} has no unit proofs`)
    const { def, digest } = { def: JSON.parse(proof.definition), digest: sha256(ascii(proof.definition)) }
    if (hex(digest) !== proof.definitionDigest)
      problems.push('the definition does not hash to the digest the proof states')
    const { emission: e, block: b, unit: u } = proof
    if (!Number.isInteger(u) || u < 0 || u >= def.blockSize)
      throw new Error(`unit ${u} is not in a block of ${def.blockSize}`)
    if (serialOf(e, b, u) !== proof.serial)
      problems.push(`the serial of ${e}/${b}/${u} is ${serialOf(e, b, u)}, not ${proof.serial}`)
    const record = unhex(proof.record)
    if (record.length !== recordSize(def)) throw new Error(`a record is ${recordSize(def)} bytes`)
    const r = decodeRecord(def, record)
    if (r.unit !== u) problems.push(`the record is unit ${r.unit}'s`)
    const c = proof.content
    const tier = r.tier === 255 ? null : r.tier
    if (
      c.prizeCents !== r.prizeCents ||
      c.tier !== tier ||
      !same(r.winning, c.winning) ||
      !same(r.numbers, c.numbers) ||
      !same(r.amountsCents, c.amountsCents)
    )
      problems.push('the content shown differs from the record')
    const ev = evaluate(def, r)
    if (ev.problems.length) problems.push(`the content breaks the rules: ${ev.problems.join('; ')}`)
    if (ev.prizeCents !== r.prizeCents)
      problems.push(`the content pays ${ev.prizeCents} cents, the record says ${r.prizeCents}`)
    if ((r.tier === 255 ? 0 : def.tiers[r.tier]?.amountCents) !== r.prizeCents)
      problems.push("the record's prize is not its tier's")
    const chunk = Math.floor(u / 128)
    const n = Math.min(128, def.blockSize - 128 * chunk)
    // the fields this check derives must still say the truth: a proof with a false one is refused
    if (proof.chunk.index !== chunk)
      problems.push(`chunk.index is ${proof.chunk.index}: unit ${u} is in chunk ${chunk}`)
    if (proof.chunk.firstUnit !== 128 * chunk)
      problems.push(`chunk.firstUnit is ${proof.chunk.firstUnit}: chunk ${chunk} starts at unit ${128 * chunk}`)
    if (proof.leafCount !== Math.ceil(def.blockSize / 128))
      problems.push(
        `leafCount is ${proof.leafCount}: a block of this game has ${Math.ceil(def.blockSize / 128)} leaves`,
      )
    const hashes = proof.chunk.unitHashes.map(unhex)
    if (hashes.length !== n || hashes.some((h) => h.length !== 32))
      throw new Error(`chunk ${chunk} has ${n} unit hashes of 32 bytes`)
    if (hex(hashes[u - 128 * chunk]) !== hex(unitHash(unhex(proof.salt), record)))
      problems.push("the unit's salted hash is not at its place in the chunk")
    const root = rootFromPath(
      sha256(Uint8Array.of(0), ...hashes),
      chunk,
      Math.ceil(def.blockSize / 128),
      proof.path.map(unhex),
    )
    if (hex(root) !== proof.merkleRoot) problems.push('the path does not lead to the stated Merkle root')
    const value = commitment(2, e, b, def, digest, root)
    if (value !== proof.commitment) problems.push(`the proof leads to commitment ${value}, not the one it states`)
    return { valid: problems.length === 0, problems, serial: proof.serial, commitment: value }
  } catch (err) {
    return { valid: false, problems: [...problems, err.message], serial: proof?.serial, commitment: null }
  }
}

// ---------------------------------------------------------------------------------------------
// known-answer vectors (game-core/vectors/derivation.json)
export function checkVectors(v, { wholeBlocks = false } = {}) {
  const diffs = []
  const expect = (what, got, want) => {
    if (JSON.stringify(got) !== JSON.stringify(want))
      diffs.push(`${what}: got ${JSON.stringify(got)}, the vectors say ${JSON.stringify(want)}`)
  }
  const main = v.block
  const { def, digest } = readDefinition(main.canonicalDefinition)
  expect('definition digest', hex(digest), main.definitionDigest)
  const secret = unhex(main.secret)
  const k = keys(secret, main.emission, main.block)
  for (const name of ['tiers', 'units', 'extra', 'salts']) {
    expect(`key ${name}`, hex(k[name]), main.keys[name])
    expect(`keystream ${name}`, hex(KS(k[name], 0, 64)), main.keystreams[name])
  }
  const T = tierTable(def, k.tiers)
  expect('first tier entries', [...T.subarray(0, main.tierTable.first.length)], main.tierTable.first)
  expect('last tier entries', [...T.subarray(def.blockSize - main.tierTable.last.length)], main.tierTable.last)
  const sb = 16 * sliceBlocks(def)
  for (const want of main.units) {
    const u = makeUnit(def, k, T[want.unit], want.unit, KS(k.units, want.unit * (sb / 16), sb))
    expect(`unit ${want.unit}`, { ...u, record: hex(u.record) }, want)
    expect(`salt of unit ${want.unit}`, hex(KS(k.salts, 2 * want.unit, 32)), main.v2.salts[want.unit])
    expect(
      `unit hash of unit ${want.unit}`,
      hex(unitHash(KS(k.salts, 2 * want.unit, 32), u.record)),
      main.v2.unitHashes[want.unit],
    )
  }
  const firstLeaves = { 1: [], 2: [] }
  deriveBlockPart(def, secret, main.emission, main.block, T, main.v1.leaves.length, (units, salts) => {
    firstLeaves[1].push(hex(sha256(Uint8Array.of(0), ...units.map((x) => x.record))))
    firstLeaves[2].push(
      hex(sha256(Uint8Array.of(0), ...units.map((x, i) => unitHash(salts.subarray(32 * i, 32 * i + 32), x.record)))),
    )
  })
  expect('first v1 leaves', firstLeaves[1], main.v1.leaves)
  expect('first v2 leaves', firstLeaves[2], main.v2.leaves)
  const x = v.extraKeystream
  const xd = readDefinition(x.canonicalDefinition)
  const xk = keys(unhex(x.secret), x.emission, x.block)
  const xt = tierTable(xd.def, xk.tiers)
  const xsb = 16 * sliceBlocks(xd.def)
  const xu = makeUnit(xd.def, xk, xt[x.unit.unit], x.unit.unit, KS(xk.units, x.unit.unit * (xsb / 16), xsb))
  expect('the unit that takes the extra keystream', { ...xu, record: hex(xu.record) }, x.unit)
  // whole blocks: the small one always, the 8,016,000 units of the main block on request (a minute or more)
  for (const [name, blk] of [
    ['small block', v.smallBlock],
    ...(wholeBlocks ? [['block', { ...main, v1: main.v1, v2: main.v2 }]] : []),
  ]) {
    const d = readDefinition(blk.canonicalDefinition)
    for (const version of [1, 2]) {
      const r = verifyBlock(d.def, d.digest, unhex(blk.secret), blk.emission, blk.block, version)
      expect(`${name} v${version} soundness`, r.problems, [])
      expect(`${name} v${version} root`, r.merkleRoot, blk[`v${version}`].merkleRoot)
      expect(`${name} v${version} commitment`, r.commitment, blk[`v${version}`].commitment)
    }
  }
  return diffs
}

function deriveBlockPart(def, secret, e, b, T, chunks, onChunk) {
  const k = keys(secret, e, b)
  const sb = 16 * sliceBlocks(def)
  for (let c = 0; c < chunks; c++) {
    const stream = KS(k.units, 128 * c * (sb / 16), 128 * sb)
    const salts = KS(k.salts, 2 * 128 * c, 32 * 128)
    const units = Array.from({ length: 128 }, (_, i) =>
      makeUnit(def, k, T[128 * c + i], 128 * c + i, stream.subarray(i * sb, (i + 1) * sb)),
    )
    onChunk(units, salts)
  }
}

// ---------------------------------------------------------------------------------------------
// command line
/** --threads N: a whole number from 1, or undefined (every core). */
function threadsFlag(text) {
  if (text === undefined) return undefined
  if (!/^[1-9]\d{0,3}$/.test(text))
    throw new Error(`--threads takes a whole number from 1, not ${JSON.stringify(text)}`)
  return Number(text)
}

function flags(args) {
  const out = {}
  for (let i = 0; i < args.length; i += 2) {
    if (!args[i].startsWith('--') || args[i + 1] === undefined) throw new Error(`expected --name value, got ${args[i]}`)
    out[args[i].slice(2)] = args[i + 1]
  }
  return out
}

/**
 * A progress line on standard error: rewritten in place on a terminal, else a line each 10 %.
 * `done` and `total` in units; `label` says what is checked.
 */
export function progressLine(label, stream = process.stderr) {
  let shown = -1
  return (done, total) => {
    const pct = Math.floor((100 * done) / total)
    if (stream.isTTY) {
      if (pct !== shown) stream.write(`\r${label}: ${pct} % (${done} / ${total} units)${done === total ? '\n' : ''}`)
    } else if (Math.floor(pct / 10) !== Math.floor(shown / 10)) stream.write(`${label}: ${pct} %\n`)
    shown = pct
  }
}

async function main(argv) {
  const [what, ...rest] = argv
  if (what === 'proof' && rest[0]) {
    const r = verifyProof(JSON.parse(readFileSync(rest[0], 'utf8')))
    if (r.valid)
      console.log(
        `${r.serial}: the proof holds. Commitment:\n${r.commitment}\nCompare it with the block's commitment on the emission's certificate.`,
      )
    else console.log(`${r.serial ?? rest[0]}: the proof FAILS: ${r.problems.join('; ')}`)
    return r.valid ? 0 : 1
  }
  if (what === 'block') {
    const f = flags(rest)
    const { def, digest } = readDefinition(readFileSync(f.definition, 'utf8'))
    const version = Number(f['commitment-version'] ?? 2)
    const t0 = Date.now()
    const [e, b] = [Number(f.emission), Number(f.block)]
    const threads = threadsFlag(f.threads)
    const onProgress = progressLine(`block ${e}/${b}`)
    const r = await verifyBlockThreaded(def, digest, unhex(f.secret), e, b, version, { threads, onProgress })
    const matches = f.commitment ? r.commitment === f.commitment.toLowerCase() : null
    console.log(
      `${r.units} units in ${((Date.now() - t0) / 1000).toFixed(1)} s; ${r.sound ? 'every unit sound, the prize table exact' : `UNSOUND: ${r.problems.slice(0, 5).join('; ')}`}`,
    )
    console.log(
      `commitment (version ${version}): ${r.commitment}${matches === null ? '' : matches ? ' (matches)' : ` DOES NOT MATCH ${f.commitment}`}`,
    )
    return r.sound && matches !== false ? 0 : 1
  }
  if (what === 'bundle' && rest[0]) {
    const threads = rest[1] === '--threads' ? threadsFlag(String(rest[2])) : undefined
    return bundleCommand(rest[0], console.log, { threads })
  }
  if (what === 'vectors' && rest[0]) {
    const diffs = checkVectors(JSON.parse(readFileSync(rest[0], 'utf8')), { wholeBlocks: rest[1] === '--whole' })
    console.log(diffs.length ? diffs.join('\n') : 'every vector reproduced')
    return diffs.length ? 1 : 0
  }
  console.error(
    'usage: carats-verify.mjs proof <file> | block --definition <file> --secret <hex> --emission E --block B [--commitment-version 1|2] [--commitment <hex>] [--threads N] | vectors <file> | bundle <dir> [--threads N]',
  )
  return 2
}

if (!isMainThread && workerData?.caratsChunks) chunksThread(workerData.caratsChunks)
else if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href)
  process.exitCode = await main(process.argv.slice(2))
