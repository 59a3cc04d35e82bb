/**
 * The WebAssembly SHA-256 of many messages (scripts/sha256-wasm.mjs) against node:crypto, message
 * by message, over the lengths where its padding changes shape; and the module in the source tree
 * is the one the script writes.
 */
import { createHash, randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { sha256Many } from './sha256-many'
import { moduleSource, TARGET } from '../../scripts/sha256-wasm.mjs'

function expected(tag: number, a: Uint8Array, la: number, b: Uint8Array, lb: number, count: number): string {
  let hex = ''
  for (let i = 0; i < count; i++) {
    const h = createHash('sha256')
    if (tag >= 0) h.update(Uint8Array.of(tag))
    h.update(a.subarray(i * la, (i + 1) * la)).update(b.subarray(i * lb, (i + 1) * lb))
    hex += h.digest('hex')
  }
  return hex
}

describe('sha256Many', () => {
  it('hashes as node:crypto does, for every length around the padding boundaries and any count', () => {
    const lengths = [0, 1, 31, 54, 55, 56, 63, 64, 65, 96, 97, 118, 119, 120, 128, 200, 1000]
    for (const la of lengths)
      for (const count of [1, 2, 3, 4, 5, 8, 9, 130]) {
        const a = randomBytes(la * count)
        expect(Buffer.from(sha256Many(-1, a, la, a, 0, count)).toString('hex'), `${la} × ${count}`).toBe(
          expected(-1, a, la, a, 0, count),
        )
      }
  })

  it('hashes a tag byte and two fields laid apart (a unit: 0x02 ‖ salt ‖ record)', () => {
    for (const [tag, la, lb, count] of [
      [2, 32, 64, 128],
      [0, 32, 0, 7],
      [255, 0, 31, 6],
      [2, 32, 86, 13],
    ]) {
      const a = randomBytes(la * count + 5)
      const b = randomBytes(lb * count)
      expect(Buffer.from(sha256Many(tag, a, la, b, lb, count)).toString('hex')).toBe(expected(tag, a, la, b, lb, count))
    }
  })

  it('keeps its answers apart from later calls, and grows for a large call', () => {
    const a = randomBytes(97 * 40_000)
    const big = sha256Many(2, a, 97, a, 0, 40_000)
    const small = sha256Many(2, a, 97, a, 0, 1)
    expect(Buffer.from(big.subarray(0, 32))).toEqual(Buffer.from(small))
    expect(Buffer.from(big.subarray(32 * 39_999)).toString('hex')).toBe(
      expected(2, a.subarray(97 * 39_999), 97, a, 0, 1),
    )
  })

  it('refuses a count its fields do not hold, and lengths that are not whole', () => {
    expect(() => sha256Many(2, new Uint8Array(95), 32, new Uint8Array(128), 64, 3)).toThrow(/3 messages need/)
    expect(() => sha256Many(256, new Uint8Array(4), 1, new Uint8Array(4), 1, 1)).toThrow(/tag 256/)
    expect(() => sha256Many(2, new Uint8Array(4), 1.5, new Uint8Array(4), 1, 1)).toThrow(/aBytes 1.5/)
    expect(sha256Many(2, new Uint8Array(0), 32, new Uint8Array(0), 64, 0)).toHaveLength(0)
  })

  it('runs the module scripts/sha256-wasm.mjs writes (run it after changing the script)', async () => {
    expect(readFileSync(TARGET, 'utf8')).toBe(await moduleSource())
  })
})
