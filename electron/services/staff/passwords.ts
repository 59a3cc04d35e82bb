/**
 * Staff passwords: scrypt hashes with a random 16-byte salt, the password NFC-normalised first.
 *
 * The hash a sign-in or a password change waits for runs on libuv's thread pool (the async
 * crypto.scrypt), never on the event loop: a few people guessing passwords in parallel must not
 * hold up every other call (about 0.15 s of the loop per guess with scryptSync). The synchronous
 * form is kept for the steps that the command line and the ledger fixtures call synchronously
 * (the first administrator, an administrator creating an account or setting a password), which
 * no one can call without an administrator's session, except the first set-up, once.
 */
import { randomBytes, scrypt, scryptSync, timingSafeEqual, type ScryptOptions } from 'node:crypto'

const KEY_LENGTH = 64
const OPTIONS: ScryptOptions = { N: 16384, r: 8, p: 1 }

/** The longest password the contract takes, at sign-in as when it is set. */
export const PASSWORD_MAX_LENGTH = 256

export const newSalt = (): Buffer => randomBytes(16)

export function hashPassword(password: string, salt: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, KEY_LENGTH, OPTIONS, (err, key) => (err ? reject(err) : resolve(key)))
  })
}

export function hashPasswordSync(password: string, salt: Buffer): Buffer {
  return scryptSync(password.normalize('NFC'), salt, KEY_LENGTH, OPTIONS)
}

/** Whether `password` hashes to `expected` under `salt`, compared in constant time. */
export async function passwordMatches(password: string, salt: Buffer, expected: Buffer): Promise<boolean> {
  const given = await hashPassword(password, salt)
  return given.length === expected.length && timingSafeEqual(given, expected)
}
