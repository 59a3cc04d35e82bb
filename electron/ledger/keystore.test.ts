import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openKeyStore, keyFilePath } from './keystore'

let dir: string
beforeEach(() => { dir = mkdtempSync(join(tmpdir(), 'keys-')) })
afterEach(() => rmSync(dir, { recursive: true, force: true }))

describe('key store', () => {
  it('creates a 0600 key file and seals secrets bound to their block', () => {
    const db = join(dir, 'a.db')
    const keys = openKeyStore(db)
    expect(statSync(keyFilePath(db)).mode & 0o777).toBe(0o600)
    const secret = new Uint8Array(32).fill(7)
    const sealed = keys.sealSecret({ emission: 1, block: 2 }, secret)
    expect(Buffer.from(sealed).includes(Buffer.from(secret))).toBe(false)
    expect(openKeyStore(db).openSecret({ emission: 1, block: 2 }, sealed)).toEqual(secret)
    expect(() => keys.openSecret({ emission: 1, block: 3 }, sealed)).toThrow(/cannot be decrypted/)
    sealed[sealed.length - 1] ^= 1
    expect(() => keys.openSecret({ emission: 1, block: 2 }, sealed)).toThrow(/cannot be decrypted/)
  })

  it('refuses a damaged key file', () => {
    const db = join(dir, 'a.db')
    writeFileSync(keyFilePath(db), 'not a key')
    expect(() => openKeyStore(db)).toThrow(/damaged/)
  })
})
