import { createCipheriv, createHash, createHmac, randomBytes } from 'node:crypto'
import type { Primitives } from '../../game-core/primitives'

const ZEROS = new Uint8Array(1 << 16)

/** game-core's primitives on node:crypto (OpenSSL: AES-NI and SHA extensions where present). */
export const nodePrimitives: Primitives = {
  sha256: (data) => createHash('sha256').update(data).digest(),
  hmacSha256: (key, data) => createHmac('sha256', key).update(data).digest(),
  keystream(key, firstBlock, length) {
    const iv = Buffer.alloc(16)
    iv.writeUInt32BE(Math.floor(firstBlock / 4294967296), 8)
    iv.writeUInt32BE(firstBlock >>> 0, 12)
    const cipher = createCipheriv('aes-256-ctr', key, iv)
    return cipher.update(length <= ZEROS.length ? ZEROS.subarray(0, length) : new Uint8Array(length))
  },
}

/** A new block secret from the operating system's cryptographic random source. */
export function newBlockSecret(): Uint8Array {
  return new Uint8Array(randomBytes(32))
}
