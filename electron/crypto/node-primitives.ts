import { createCipheriv, createHmac, hash, randomBytes, type Cipher } from 'node:crypto'
import type { Primitives } from '../../game-core/primitives'
import { sha256Many } from './sha256-many'

/** What the keystream encrypts: zeros, never written, grown to the longest call (a whole batch's stream). */
let zeros = new Uint8Array(1 << 16)

/**
 * The cipher of the last keystream call, kept to continue it: whole-block work asks for one
 * long stream in consecutive pieces, and setting up a cipher costs about as much as 16 kB of
 * keystream. A call continues it only for the same key (compared with a private copy) and the
 * block that follows the last call's bytes; any other call starts a new cipher.
 */
let last: { key: Buffer; nextBlock: number; cipher: Cipher } | null = null

function sameKey(a: Buffer, b: Uint8Array): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

/** game-core's primitives on node:crypto (OpenSSL: AES-NI and SHA extensions where present). */
export const nodePrimitives: Primitives = {
  // The one-shot crypto.hash (Node 20.12+): no Hash object per call (62,625 leaves a block).
  sha256: (data) => hash('sha256', data, 'buffer'),
  // Many messages of one length in one call: WebAssembly, four at a time (a block's unit hashes).
  sha256Many,
  hmacSha256: (key, data) => createHmac('sha256', key).update(data).digest(),
  keystream(key, firstBlock, length) {
    let state = last
    if (!state || state.nextBlock !== firstBlock || !sameKey(state.key, key)) {
      const iv = Buffer.alloc(16)
      iv.writeUInt32BE(Math.floor(firstBlock / 4294967296), 8)
      iv.writeUInt32BE(firstBlock >>> 0, 12)
      state = { key: Buffer.from(key), nextBlock: firstBlock, cipher: createCipheriv('aes-256-ctr', key, iv) }
    }
    if (length > zeros.length) zeros = new Uint8Array(length)
    const out = state.cipher.update(zeros.subarray(0, length))
    // CTR continues mid-block after a length that is not whole blocks: such a cipher is not kept.
    if (length % 16 === 0) {
      state.nextBlock = firstBlock + length / 16
      last = state
    } else {
      last = null
    }
    return out
  },
}

/** A new block secret from the operating system's cryptographic random source. */
export function newBlockSecret(): Uint8Array {
  return new Uint8Array(randomBytes(32))
}
