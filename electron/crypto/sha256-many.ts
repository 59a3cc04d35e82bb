/**
 * SHA-256 of many messages made alike in one call, on the WebAssembly module that
 * scripts/sha256-wasm.mjs writes (four messages side by side in SIMD lanes): several times
 * faster than node:crypto's one call per message for a block's 97-byte unit hashes
 * (docs/benchmarks.md). One instance per thread, made on first use; its memory grows to the
 * largest call.
 */
import { SHA256_MANY_WASM } from './sha256-many-wasm'

/** The part of the WebAssembly API used here (the Node types this project builds with do not describe it). */
declare const WebAssembly: {
  Module: new (bytes: Uint8Array) => object
  Instance: new (module: object) => { exports: unknown }
}

interface Kernel {
  memory: { buffer: ArrayBuffer; grow(pages: number): number }
  hash(tag: number, a: number, la: number, b: number, lb: number, count: number, slots: number, out: number): void
}

const PAGE = 65_536
/** Where the callers' room starts in the module's memory, past its round constants. */
const ROOM = 1024
let kernel: Kernel | null = null

function load(): Kernel {
  if (!kernel) {
    const module = new WebAssembly.Module(Buffer.from(SHA256_MANY_WASM, 'base64'))
    kernel = new WebAssembly.Instance(module).exports as Kernel
  }
  return kernel
}

function wholeNumber(name: string, n: number, max = 2 ** 31 - 1): void {
  if (!Number.isInteger(n) || n < 0 || n > max) throw new RangeError(`sha256Many: ${name} ${n} is not a whole number`)
}

/**
 * The hashes of `count` messages, message `i` being the byte `tag` (none when `tag` is -1),
 * `aBytes` bytes of `a` from `i·aBytes`, then `bBytes` bytes of `b` from `i·bBytes`.
 */
export function sha256Many(
  tag: number,
  a: Uint8Array,
  aBytes: number,
  b: Uint8Array,
  bBytes: number,
  count: number,
): Uint8Array {
  if (tag !== -1) wholeNumber('tag', tag, 255)
  wholeNumber('aBytes', aBytes)
  wholeNumber('bBytes', bBytes)
  wholeNumber('count', count)
  if (a.length < aBytes * count || b.length < bBytes * count)
    throw new RangeError(`sha256Many: ${count} messages need ${aBytes * count} and ${bBytes * count} bytes`)
  if (count === 0) return new Uint8Array(0)
  const k = load()
  const length = (tag === -1 ? 0 : 1) + aBytes + bBytes
  const slots = ROOM
  const out = slots + 4 * 64 * Math.ceil((length + 9) / 64)
  const aAt = out + 32 * (count + 3)
  const bAt = aAt + aBytes * count
  const needed = bAt + bBytes * count
  const have = k.memory.buffer.byteLength
  if (needed > have) k.memory.grow(Math.ceil((needed - have) / PAGE))
  const memory = new Uint8Array(k.memory.buffer)
  memory.set(a.subarray(0, aBytes * count), aAt)
  memory.set(b.subarray(0, bBytes * count), bAt)
  k.hash(tag, aAt, aBytes, bAt, bBytes, count, slots, out)
  return memory.slice(out, out + 32 * count)
}
