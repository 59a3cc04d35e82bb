/**
 * Block secrets are encrypted at rest (AES-256-GCM) under a master key kept in a file beside the
 * ledger (`<db file>.key`, mode 0600): the database file alone does not reveal any outcome.
 * The block's identity is the additional authenticated data, so a secret copied onto another
 * block does not decrypt.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto'
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs'
import { AppError } from '../contract/errors'

export interface KeyStore {
  sealSecret(ref: { emission: number; block: number }, secret: Uint8Array): Buffer
  openSecret(ref: { emission: number; block: number }, sealed: Uint8Array): Uint8Array
}

const VERSION = 1
const IV_BYTES = 12
const TAG_BYTES = 16

function aad(ref: { emission: number; block: number }): Buffer {
  return Buffer.from(`CARATS-BLOCK-SECRET/${ref.emission}/${ref.block}`)
}

export function keyStoreFromKey(masterKey: Uint8Array): KeyStore {
  if (masterKey.length !== 32) throw new AppError('DATABASE', 'the ledger key must be 32 bytes')
  const key = Buffer.from(masterKey)
  return {
    sealSecret(ref, secret) {
      const iv = randomBytes(IV_BYTES)
      const cipher = createCipheriv('aes-256-gcm', key, iv)
      cipher.setAAD(aad(ref))
      const body = Buffer.concat([cipher.update(secret), cipher.final()])
      return Buffer.concat([Buffer.of(VERSION), iv, cipher.getAuthTag(), body])
    },
    openSecret(ref, sealed) {
      const buf = Buffer.from(sealed)
      if (buf.length < 1 + IV_BYTES + TAG_BYTES || buf[0] !== VERSION) {
        throw new AppError('DATABASE', `the secret of block ${ref.emission}/${ref.block} is not in a known format`)
      }
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, buf.subarray(1, 1 + IV_BYTES))
        decipher.setAAD(aad(ref))
        decipher.setAuthTag(buf.subarray(1 + IV_BYTES, 1 + IV_BYTES + TAG_BYTES))
        return new Uint8Array(Buffer.concat([decipher.update(buf.subarray(1 + IV_BYTES + TAG_BYTES)), decipher.final()]))
      } catch {
        throw new AppError('DATABASE', `the secret of block ${ref.emission}/${ref.block} cannot be decrypted: wrong ledger key file, or the secret was altered`)
      }
    },
  }
}

export function keyFilePath(dbPath: string): string {
  return `${dbPath}.key`
}

/** The key file beside the ledger, created (0600) on first use. */
export function openKeyStore(dbPath: string): KeyStore {
  const path = keyFilePath(dbPath)
  if (!existsSync(path)) {
    // 'wx': never overwrite a key that another process just wrote
    try {
      writeFileSync(path, randomBytes(32).toString('hex') + '\n', { mode: 0o600, flag: 'wx' })
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw new AppError('DATABASE', `cannot create the ledger key file ${path}: ${(e as Error).message}`)
    }
    try {
      chmodSync(path, 0o600)
    } catch {
      // not every file system keeps modes (e.g. some mounted drives); the key is still written
    }
  }
  const text = readFileSync(path, 'utf8').trim()
  if (!/^[0-9a-f]{64}$/.test(text)) throw new AppError('DATABASE', `the ledger key file ${path} is damaged: it must hold 64 hexadecimal digits`)
  return keyStoreFromKey(Buffer.from(text, 'hex'))
}
