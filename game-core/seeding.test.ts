/** Two-person seeding (DERIVATION.md §1.1): the exact bytes of the secret and of a dice share, and what is refused. */
import { createHash, createHmac } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { nodePrimitives as p } from '../electron/crypto/node-primitives'
import { blockSecretFromShares, diceRolls, MIN_DICE_ROLLS, shareFromDice, shareHash } from './seeding'

const A = new Uint8Array(32).fill(0xa1)
const C = new Uint8Array(32).fill(0xc3)
const rolls = (n: number) => Array.from({ length: n }, (_, i) => String((i % 6) + 1)).join('')

describe('the secret from two shares', () => {
  it('is HMAC(A || C, ascii("CARATS/v1/secret") || u16(e) || u16(b)), the numbers big-endian', () => {
    const want = createHmac('sha256', Buffer.concat([A, C]))
      .update(Buffer.concat([Buffer.from('CARATS/v1/secret', 'ascii'), Buffer.of(0x01, 0x02, 0x03, 0x04)]))
      .digest()
    expect(Buffer.from(blockSecretFromShares(p, A, C, 0x0102, 0x0304))).toEqual(want)
  })

  it('differs from block to block, from emission to emission, and when the shares swap places', () => {
    const s = (a: Uint8Array, c: Uint8Array, e: number, b: number) =>
      Buffer.from(blockSecretFromShares(p, a, c, e, b)).toString('hex')
    const all = [s(A, C, 1, 1), s(A, C, 1, 2), s(A, C, 2, 1), s(C, A, 1, 1)]
    expect(new Set(all).size).toBe(4)
  })

  it.each([
    ['a backend share of 31 bytes', new Uint8Array(31), C, /backend’s share is 31 bytes; a share is 32 bytes/],
    ['a custodian share of 33 bytes', A, new Uint8Array(33), /custodian’s share is 33 bytes; a share is 32 bytes/],
    ['an empty custodian share', A, new Uint8Array(0), /custodian’s share is 0 bytes/],
  ])('refuses %s', (_what, a, c, message) => {
    expect(() => blockSecretFromShares(p, a, c, 1, 1)).toThrow(message)
  })

  it('hashes a share as SHA256 of its 32 raw bytes, in lowercase hex', () => {
    expect(shareHash(p, A)).toBe(createHash('sha256').update(A).digest('hex'))
  })
})

describe('a share from dice', () => {
  it('is SHA256(ascii("CARATS/v1/dice") || the rolls as digits), separators left out', () => {
    const digits = rolls(100)
    const want = createHash('sha256')
      .update('CARATS/v1/dice' + digits, 'ascii')
      .digest()
    expect(Buffer.from(shareFromDice(p, digits))).toEqual(want)
    const typed = digits.replace(/(.{5})/g, '$1 ').replace(/(.{30})/g, '$1,\n') + ' ;'
    expect(Buffer.from(shareFromDice(p, typed))).toEqual(want)
    expect(diceRolls(typed)).toEqual({ rolls: digits })
  })

  it(`takes ${MIN_DICE_ROLLS} rolls, and refuses fewer`, () => {
    expect(MIN_DICE_ROLLS).toBe(100)
    expect(diceRolls(rolls(99))).toEqual({ problem: 'too-few', count: 99 })
    expect(() => shareFromDice(p, rolls(99))).toThrow('99 rolls typed: at least 100 are needed for a share of 32 bytes')
    expect(() => shareFromDice(p, '')).toThrow('0 rolls typed')
  })

  it.each([
    ['a 7', `${rolls(50)}7${rolls(50)}`, '7'],
    ['a 0', `0${rolls(100)}`, '0'],
    ['a letter', `${rolls(100)}x`, 'x'],
    ['a dash', `${rolls(50)}-${rolls(50)}`, '-'],
  ])('refuses %s, naming it', (_what, text, char) => {
    expect(diceRolls(text)).toEqual({ problem: 'not-a-roll', char })
    expect(() => shareFromDice(p, text)).toThrow(`“${char}” is not the roll of a die: type digits 1 to 6 only`)
  })
})
