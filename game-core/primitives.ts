/**
 * The cryptographic primitives game-core needs, passed in by the caller so that game-core stays
 * free of any runtime. The Node implementation is electron/crypto/node-primitives.ts.
 */
export interface Primitives {
  sha256(data: Uint8Array): Uint8Array
  hmacSha256(key: Uint8Array, data: Uint8Array): Uint8Array
  /**
   * AES-256-CTR keystream: `length` bytes starting at 16-byte block number `firstBlock`
   * (the counter block is the block number as a 128-bit big-endian integer).
   */
  keystream(key: Uint8Array, firstBlock: number, length: number): Uint8Array
  /**
   * Optional: the SHA-256 of `count` messages made alike, message `i` being the byte `tag`, then
   * bytes `i·aBytes …` of `a` (`aBytes` of them), then bytes `i·bBytes …` of `b`; the 32-byte
   * hashes back to back. The same as `sha256` on each message, in one call: a block hashes
   * 8,016,000 units (0x02 ‖ salt ‖ record, commitment version 2), and a call per unit costs
   * more than its hash.
   */
  sha256Many?(tag: number, a: Uint8Array, aBytes: number, b: Uint8Array, bBytes: number, count: number): Uint8Array
}

export function concatBytes(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((a, p) => a + p.length, 0))
  let o = 0
  for (const p of parts) {
    out.set(p, o)
    o += p.length
  }
  return out
}

/** UTF-8 bytes of a string (game-core has no TextEncoder). */
export function utf8(text: string): Uint8Array {
  const out: number[] = []
  for (const ch of text) {
    const c = ch.codePointAt(0)!
    if (c < 0x80) out.push(c)
    else if (c < 0x800) out.push(0xc0 | (c >> 6), 0x80 | (c & 63))
    else if (c < 0x10000) out.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63))
    else out.push(0xf0 | (c >> 18), 0x80 | ((c >> 12) & 63), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63))
  }
  return Uint8Array.from(out)
}

export function toHex(bytes: Uint8Array): string {
  let s = ''
  for (let i = 0; i < bytes.length; i++) s += bytes[i].toString(16).padStart(2, '0')
  return s
}

export function fromHex(hex: string): Uint8Array {
  if (!/^([0-9a-fA-F]{2})*$/.test(hex)) throw new Error('not a hexadecimal string of whole bytes')
  const out = new Uint8Array(hex.length / 2)
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16)
  return out
}

export function u16be(n: number): Uint8Array {
  return Uint8Array.of((n >>> 8) & 255, n & 255)
}

export function u32be(n: number): Uint8Array {
  return Uint8Array.of((n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255)
}
