#!/usr/bin/env node
/**
 * Writes the WebAssembly SHA-256 that hashes many messages of one length at once, four side by
 * side in the lanes of 128-bit SIMD vectors (FIPS 180-4, nothing else): commitment version 2
 * hashes every unit of a block (8,016,000 messages of 97 bytes), and node:crypto's per-call cost
 * (about 2 µs) weighs far more than the hashing itself (docs/benchmarks.md).
 *
 *   node scripts/sha256-wasm.mjs          writes electron/crypto/sha256-many-wasm.ts
 *   node scripts/sha256-wasm.mjs --wat    prints the module's text
 *
 * The module exports `memory` and `hash(tag, x, lx, y, ly, count, slots, out)`: message `i` is
 * the byte `tag` (none when `tag` < 0), then `lx` bytes at `x + i·lx`, then `ly` bytes at
 * `y + i·ly` (a unit's 0x02 ‖ salt ‖ record, without laying them out first); the `count`
 * hashes go to `out`, 32 bytes each, which must have room for `count` rounded up to 4.
 * `slots` is scratch room of 4 × 64 × ⌈(length + 9) / 64⌉ bytes. test/integration/sha256-wasm.test.ts checks the file written
 * is this script's output, and the hashes against node:crypto.
 */
import { writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import wabtInit from 'wabt'

const K = [
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
  0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
  0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
  0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
  0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
  0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
  0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
  0xc67178f2,
]
const IV = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]
const i32 = (n) => `(i32.const ${n | 0})`
const splat = (n) => `(v128.const i32x4 ${n | 0} ${n | 0} ${n | 0} ${n | 0})`
const add = (...xs) => xs.reduce((a, b) => `(i32x4.add ${a} ${b})`)
const xor = (...xs) => xs.reduce((a, b) => `(v128.xor ${a} ${b})`)
const rotr = (x, n) => `(v128.or (i32x4.shr_u ${x} ${i32(n)}) (i32x4.shl ${x} ${i32(32 - n)}))`
const big0 = (x) => xor(rotr(x, 2), rotr(x, 13), rotr(x, 22))
const big1 = (x) => xor(rotr(x, 6), rotr(x, 11), rotr(x, 25))
const small0 = (x) => xor(rotr(x, 7), rotr(x, 18), `(i32x4.shr_u ${x} ${i32(3)})`)
const small1 = (x) => xor(rotr(x, 17), rotr(x, 19), `(i32x4.shr_u ${x} ${i32(10)})`)
/** A round constant four times over, as the data segment's escaped little-endian bytes. */
const kBytes = (k) => {
  const word = [0, 8, 16, 24].map((s) => '\\' + ((k >>> s) & 255).toString(16).padStart(2, '0')).join('')
  return word.repeat(4)
}
/** Where the caller's room starts: past the round constants. */
export const ROOM = 1024
const get = (name) => `(local.get $${name})`

/** Bytes of a 32-byte shuffle taking 32-bit word `w` of each input's lanes, byte-swapped. */
function swappedWords(picks) {
  return picks.flatMap(([vec, word]) => [3, 2, 1, 0].map((b) => vec * 16 + word * 4 + b)).join(' ')
}

const LOW = [
  [0, 0],
  [0, 1],
  [1, 0],
  [1, 1],
]
const HIGH = [
  [0, 2],
  [0, 3],
  [1, 2],
  [1, 3],
]

/**
 * A 4 × 4 transpose of 32-bit words, byte-swapped: `v(i)` gives the four vectors; returns the
 * lines that set $t0 … $t3, and the four transposed vectors' expressions, in order.
 */
function transpose(v) {
  const lines = [
    `(local.set $t0 (i8x16.shuffle ${plain([0, 0], [1, 0], [0, 1], [1, 1])} ${v(0)} ${v(1)}))`,
    `(local.set $t1 (i8x16.shuffle ${plain([0, 0], [1, 0], [0, 1], [1, 1])} ${v(2)} ${v(3)}))`,
    `(local.set $t2 (i8x16.shuffle ${plain([0, 2], [1, 2], [0, 3], [1, 3])} ${v(0)} ${v(1)}))`,
    `(local.set $t3 (i8x16.shuffle ${plain([0, 2], [1, 2], [0, 3], [1, 3])} ${v(2)} ${v(3)}))`,
  ]
  const pair = (a, b, picks) => `(i8x16.shuffle ${swappedWords(picks)} ${get(a)} ${get(b)})`
  const out = [pair('t0', 't1', LOW), pair('t0', 't1', HIGH), pair('t2', 't3', LOW), pair('t2', 't3', HIGH)]
  return { lines, out }
}

/** W[4q … 4q+3] of the four messages: their 16 bytes at `offset` in each slot, transposed, big-endian. */
function loadQuad(q) {
  const { lines, out } = transpose((lane) => `(v128.load offset=${16 * q} (local.get $p${lane}))`)
  return [...lines, ...out.map((x, i) => `(local.set $w${4 * q + i} ${x})`)]
}

function plain(...picks) {
  return picks.flatMap(([vec, word]) => [0, 1, 2, 3].map((b) => vec * 16 + word * 4 + b)).join(' ')
}

/** The 64 rounds on one block already in $w0 … $w15, the state in $h0 … $h7 updated. */
function compress() {
  const lines = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'].map((v, i) => `(local.set $${v} (local.get $h${i}))`)
  let [a, b, c, d, e, f, g, h] = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h']
  for (let i = 0; i < 64; i++) {
    const w = `w${i % 16}`
    if (i >= 16) {
      const grown = add(
        small1(get(`w${(i - 2) % 16}`)),
        get(`w${(i - 7) % 16}`),
        small0(get(`w${(i - 15) % 16}`)),
        get(w),
      )
      lines.push(`(local.set $${w} ${grown})`)
    }
    const ch = `(v128.bitselect ${get(f)} ${get(g)} ${get(e)})`
    lines.push(`(local.set $t0 ${add(get(h), big1(get(e)), ch, `(v128.load offset=${16 * i} ${i32(0)})`, get(w))})`)
    const maj = `(v128.bitselect ${get(c)} ${get(a)} (v128.xor ${get(a)} ${get(b)}))`
    lines.push(`(local.set $t1 ${add(big0(get(a)), maj)})`)
    // h takes the new a, d the new e: the names turn instead of the values moving
    lines.push(`(local.set $${d} ${add(get(d), get('t0'))})`)
    lines.push(`(local.set $${h} ${add(get('t0'), get('t1'))})`)
    ;[a, b, c, d, e, f, g, h] = [h, a, b, c, d, e, f, g]
  }
  ;[a, b, c, d, e, f, g, h].forEach((v, i) => lines.push(`(local.set $h${i} ${add(get(`h${i}`), get(v))})`))
  return lines
}

/** The state's words 4q … 4q+3 of the four lanes, transposed back and byte-swapped, to `out`. */
function storeQuad(q) {
  const { lines, out } = transpose((i) => get(`h${4 * q + i}`))
  return [...lines, ...out.map((x, lane) => `(v128.store offset=${32 * lane + 16 * q} (local.get $o) ${x})`)]
}

export function wat() {
  const v128 = [
    ...['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 't0', 't1', 't2', 't3'],
    ...Array.from({ length: 8 }, (_, i) => `h${i}`),
    ...Array.from({ length: 16 }, (_, i) => `w${i}`),
  ]
  const ints = ['length', 'blocks', 'size', 'bits', 'group', 'lane', 'from', 'blk', 'o', 'p0', 'p1', 'p2', 'p3']
  const body = [
    // the padding of every slot: 0x80 after the message, zeros, its length in bits at the end
    `(local.set $length (i32.add (i32.add (local.get $lx) (local.get $ly)) (i32.ge_s (local.get $tag) ${i32(0)})))`,
    `(local.set $blocks (i32.shr_u (i32.add (local.get $length) ${i32(72)}) ${i32(6)}))`,
    `(local.set $size (i32.shl (local.get $blocks) ${i32(6)}))`,
    `(local.set $bits (i32.shl (local.get $length) ${i32(3)}))`,
    `(memory.fill (local.get $slots) ${i32(0)} (i32.shl (local.get $size) ${i32(2)}))`,
    `(local.set $lane ${i32(0)})`,
    `(loop $pad`,
    `  (local.set $p0 (i32.add (local.get $slots) (i32.mul (local.get $lane) (local.get $size))))`,
    `  (i32.store8 (i32.add (local.get $p0) (local.get $length)) ${i32(0x80)})`,
    ...[0, 1, 2, 3].map(
      (k) =>
        `  (i32.store8 (i32.sub (i32.add (local.get $p0) (local.get $size)) ${i32(4 - k)}) (i32.shr_u (local.get $bits) ${i32(24 - 8 * k)}))`,
    ),
    `  (br_if $pad (i32.lt_u (local.tee $lane (i32.add (local.get $lane) ${i32(1)})) ${i32(4)})))`,
    `(local.set $group ${i32(0)})`,
    `(block $done (loop $groups`,
    `  (br_if $done (i32.ge_u (local.get $group) (local.get $count)))`,
    // each lane's message into its slot; lanes past the last message take the last one again
    `  (local.set $lane ${i32(0)})`,
    `  (loop $copy`,
    `    (local.set $from (i32.add (local.get $group) (local.get $lane)))`,
    `    (if (i32.ge_u (local.get $from) (local.get $count)) (then (local.set $from (i32.sub (local.get $count) ${i32(1)}))))`,
    `    (local.set $o (i32.add (local.get $slots) (i32.mul (local.get $lane) (local.get $size))))`,
    `    (if (i32.ge_s (local.get $tag) ${i32(0)}) (then`,
    `      (i32.store8 (local.get $o) (local.get $tag)) (local.set $o (i32.add (local.get $o) ${i32(1)}))))`,
    `    (memory.copy (local.get $o) (i32.add (local.get $x) (i32.mul (local.get $from) (local.get $lx))) (local.get $lx))`,
    `    (memory.copy (i32.add (local.get $o) (local.get $lx))`,
    `      (i32.add (local.get $y) (i32.mul (local.get $from) (local.get $ly))) (local.get $ly))`,
    `    (br_if $copy (i32.lt_u (local.tee $lane (i32.add (local.get $lane) ${i32(1)})) ${i32(4)})))`,
    ...IV.map((x, i) => `  (local.set $h${i} ${splat(x)})`),
    `  (local.set $blk ${i32(0)})`,
    `  (loop $blocks`,
    ...[0, 1, 2, 3].map(
      (l) =>
        `    (local.set $p${l} (i32.add (i32.add (local.get $slots) (i32.mul ${i32(l)} (local.get $size))) (i32.shl (local.get $blk) ${i32(6)})))`,
    ),
    ...[0, 1, 2, 3].flatMap(loadQuad).map((l) => `    ${l}`),
    ...compress().map((l) => `    ${l}`),
    `    (br_if $blocks (i32.lt_u (local.tee $blk (i32.add (local.get $blk) ${i32(1)})) (local.get $blocks))))`,
    `  (local.set $o (i32.add (local.get $out) (i32.shl (local.get $group) ${i32(5)})))`,
    ...[0, 1].flatMap(storeQuad).map((l) => `  ${l}`),
    `  (local.set $group (i32.add (local.get $group) ${i32(4)}))`,
    `  (br $groups)))`,
  ]
  return [
    '(module',
    '  (memory (export "memory") 1)',
    // the round constants, each four times over, at 0 (the caller's room starts at ROOM)
    `  (data (i32.const 0) "${K.map(kBytes).join('')}")`,
    '  (func (export "hash") (param $tag i32) (param $x i32) (param $lx i32) (param $y i32) (param $ly i32)',
    '    (param $count i32) (param $slots i32) (param $out i32)',
    ...v128.map((n) => `    (local $${n} v128)`),
    ...ints.map((n) => `    (local $${n} i32)`),
    ...body.map((l) => `    ${l}`),
    '  )',
    ')',
  ].join('\n')
}

export async function wasmBytes() {
  const wabt = await wabtInit()
  const mod = wabt.parseWat('sha256-many.wat', wat(), { simd: true, bulk_memory: true })
  const { buffer } = mod.toBinary({})
  mod.destroy()
  return Buffer.from(buffer)
}

export async function moduleSource() {
  const b64 = (await wasmBytes()).toString('base64')
  const lines = b64.match(/.{1,100}/g).map((l) => `  '${l}',`)
  return [
    '// Written by scripts/sha256-wasm.mjs (node scripts/sha256-wasm.mjs): do not edit.',
    '/** SHA-256 of many messages of one length, four at a time in SIMD lanes (WebAssembly, base64). */',
    'export const SHA256_MANY_WASM = [',
    ...lines,
    "].join('')",
    '',
  ].join('\n')
}

export const TARGET = fileURLToPath(new URL('../electron/crypto/sha256-many-wasm.ts', import.meta.url))

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv.includes('--wat')) process.stdout.write(wat() + '\n')
  else writeFileSync(TARGET, await moduleSource())
}
