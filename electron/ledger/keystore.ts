/**
 * Block secrets are encrypted at rest (AES-256-GCM) under a master key kept in a file beside the
 * ledger (`<db file>.key`, mode 0600): the database file alone does not reveal any outcome.
 * The block's identity is the additional authenticated data, so a secret copied onto another
 * block does not decrypt. The same key, through keys derived from it, authenticates the audit
 * chain and its checkpoint.
 *
 * The ledger records its key's fingerprint. A key is made only for a ledger that never had one;
 * a missing, wrong, unsafe or damaged key file is never replaced: the key store then refuses
 * every use of the key, saying what to restore, and everything else keeps working.
 */
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto'
import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { AppError, because } from '../contract/errors'
import type { Db } from './db'
import { displayLocation, isPostgresUrl } from './location'
import { readMeta, writeMeta } from './meta'

export interface KeyStore {
  sealSecret(ref: { emission: number; block: number }, secret: Uint8Array): Buffer
  openSecret(ref: { emission: number; block: number }, sealed: Uint8Array): Uint8Array
  /** A key ceremony's share, sealed as a block's secret is, with its own additional data. */
  sealShare(ref: ShareRef, share: Uint8Array): Buffer
  openShare(ref: ShareRef, sealed: Uint8Array): Uint8Array
  /** A key of its own for one use (HMAC-SHA256 of the label under the master key). */
  derive(label: string): Buffer
  /** The key's fingerprint (hex), as the ledger records it; throws as the other methods do. */
  fingerprint(): string
  /** Writes the key to a new file (0600), for a backup of the ledger. */
  saveCopy(path: string): void
  /** Why the key cannot be used, or null when it can. */
  readonly problem: AppError | null
}

/** Whose share of an emission's key ceremony (the backend's, or the custodian's). */
export interface ShareRef {
  emission: number
  party: 'server' | 'custodian'
}

const VERSION = 1
const IV_BYTES = 12
const TAG_BYTES = 16

function aad(ref: { emission: number; block: number }): Buffer {
  return Buffer.from(`CARATS-BLOCK-SECRET/${ref.emission}/${ref.block}`)
}

const shareAad = (ref: ShareRef) => Buffer.from(`CARATS-CEREMONY-SHARE/${ref.emission}/${ref.party}`)

function seal(key: Buffer, additional: Buffer, secret: Uint8Array): Buffer {
  const iv = randomBytes(IV_BYTES)
  const cipher = createCipheriv('aes-256-gcm', key, iv)
  cipher.setAAD(additional)
  const body = Buffer.concat([cipher.update(secret), cipher.final()])
  return Buffer.concat([Buffer.of(VERSION), iv, cipher.getAuthTag(), body])
}

/** The sealed bytes opened, or why not: not in a known format, or altered (or sealed for elsewhere). */
function unseal(key: Buffer, additional: Buffer, sealed: Uint8Array): Uint8Array | 'format' | 'altered' {
  const buf = Buffer.from(sealed)
  if (buf.length < 1 + IV_BYTES + TAG_BYTES || buf[0] !== VERSION) return 'format'
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, buf.subarray(1, 1 + IV_BYTES))
    decipher.setAAD(additional)
    decipher.setAuthTag(buf.subarray(1 + IV_BYTES, 1 + IV_BYTES + TAG_BYTES))
    return new Uint8Array(Buffer.concat([decipher.update(buf.subarray(1 + IV_BYTES + TAG_BYTES)), decipher.final()]))
  } catch {
    return 'altered'
  }
}

const deriveKey = (key: Buffer, label: string) => createHmac('sha256', key).update(label).digest()

/** What the ledger records of its key: it names the key without revealing it. */
export function keyFingerprint(masterKey: Uint8Array): string {
  return deriveKey(Buffer.from(masterKey), 'CARATS-KEY-FINGERPRINT/1').toString('hex')
}

export function keyStoreFromKey(masterKey: Uint8Array): KeyStore {
  if (masterKey.length !== 32) throw new AppError('DATABASE', 'the ledger key must be 32 bytes')
  const key = Buffer.from(masterKey)
  const fingerprint = keyFingerprint(key)
  return {
    problem: null,
    fingerprint: () => fingerprint,
    derive: (label) => deriveKey(key, label),
    saveCopy: (path) => writeKeyFile(path, key),
    sealSecret: (ref, secret) => seal(key, aad(ref), secret),
    openSecret(ref, sealed) {
      const opened = unseal(key, aad(ref), sealed)
      if (opened === 'format')
        throw new AppError('DATABASE', `the secret of block ${ref.emission}/${ref.block} is not in a known format`)
      if (opened === 'altered') {
        throw new AppError(
          'DATABASE',
          `the sealed secret of block ${ref.emission}/${ref.block} does not open under this ledger's key: it was altered, or copied from another block`,
        )
      }
      return opened
    },
    sealShare: (ref, share) => seal(key, shareAad(ref), share),
    openShare(ref, sealed) {
      const opened = unseal(key, shareAad(ref), sealed)
      if (typeof opened === 'string') {
        throw new AppError(
          'DATABASE',
          `the ${ref.party} share of emission ${ref.emission}'s key ceremony does not open under this ledger's key: it was altered, or copied from elsewhere`,
        )
      }
      return opened
    },
  }
}

/** A key store that refuses every use of the key with the same error. */
export function refusingKeyStore(problem: AppError): KeyStore {
  const refuse = (): never => {
    throw problem
  }
  return {
    problem,
    fingerprint: refuse,
    derive: refuse,
    saveCopy: refuse,
    sealSecret: refuse,
    openSecret: refuse,
    sealShare: refuse,
    openShare: refuse,
  }
}

/**
 * The ledger's key file: the one given by CARATS_KEY_FILE (or --key-file, which sets it), else
 * `<ledger file>.key` beside a SQLite file. A team ledger on PostgreSQL has no file to sit beside:
 * its key file must be given.
 */
export function keyFilePath(dbPath: string): string {
  const given = process.env.CARATS_KEY_FILE
  if (given) return given
  if (isPostgresUrl(dbPath)) {
    throw new AppError(
      'KEY',
      `a team ledger on PostgreSQL (${displayLocation(dbPath)}) keeps its master key in a file of its own: ` +
        'give it with --key-file <file> or CARATS_KEY_FILE (the same file on every workstation; a new ledger makes it)',
      because('KEY_FILE_REQUIRED', {}),
    )
  }
  return `${dbPath}.key`
}

const short = (fp: string) => fp.slice(0, 16)

export const keyProblems = {
  missing: (path: string, fingerprint: string | null) =>
    new AppError(
      'KEY',
      `the ledger key file ${path} is missing, and this ledger's block secrets and audit log are sealed under ` +
        `${fingerprint ? `the key with fingerprint ${short(fingerprint)}` : 'a key'}: restore that file from the backup ` +
        `made with the ledger (carats backup writes it beside the copy as <copy>.key), mode 0600. No new key was made`,
      because('KEY_MISSING', { path, fingerprint: fingerprint ? short(fingerprint) : '' }),
    ),
  wrong: (path: string, fingerprint: string, expected: string | null) =>
    new AppError(
      'KEY',
      `wrong key: ${path} holds the key with fingerprint ${short(fingerprint)}, which ` +
        `${expected ? `is not this ledger's (${short(expected)})` : "does not open this ledger's block secrets"}: ` +
        'put back the key file backed up with this ledger',
      because('KEY_WRONG', { path, fingerprint: short(fingerprint), expected: expected ? short(expected) : '' }),
    ),
  unsafe: (path: string, mode: number) =>
    new AppError(
      'KEY',
      `the ledger key file ${path} can be read by other users (mode ${(mode & 0o777).toString(8).padStart(3, '0')}): run chmod 600 ${path}`,
      because('KEY_UNSAFE', { path }),
    ),
  damaged: (path: string) =>
    new AppError(
      'KEY',
      `the ledger key file ${path} is damaged: it must hold 64 hexadecimal digits; restore it from the backup`,
      because('KEY_DAMAGED', { path }),
    ),
}

/** The key in the file at `path`, or null when there is no file; throws a KEY error when unusable. */
export function readKeyFile(path: string): Buffer | null {
  const st = statSync(path, { throwIfNoEntry: false })
  if (!st) return null
  // not every file system keeps modes (Windows, some mounted drives): there the check cannot apply
  if (process.platform !== 'win32' && (st.mode & 0o077) !== 0) throw keyProblems.unsafe(path, st.mode)
  const text = readFileSync(path, 'utf8').trim()
  if (!/^[0-9a-f]{64}$/.test(text)) throw keyProblems.damaged(path)
  return Buffer.from(text, 'hex')
}

/** Writes a new key file (0600); never over an existing one. */
export function writeKeyFile(path: string, key: Uint8Array): void {
  try {
    writeFileSync(path, Buffer.from(key).toString('hex') + '\n', { mode: 0o600, flag: 'wx' })
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code
    throw new AppError(
      'KEY',
      code === 'EEXIST'
        ? `${path} already exists: it is not overwritten`
        : `cannot write the key file ${path}: ${(e as Error).message}`,
    )
  }
  try {
    chmodSync(path, 0o600)
  } catch {
    // not every file system keeps modes; the key is still written
  }
}

function firstSealedBlock(db: Db): { emission: number; block: number; secret: Buffer } | undefined {
  return db
    .prepare('SELECT emission, block, secret FROM blocks WHERE secret IS NOT NULL ORDER BY emission, block LIMIT 1')
    .get() as { emission: number; block: number; secret: Buffer } | undefined
}

function opens(store: KeyStore, sealed: { emission: number; block: number; secret: Buffer }): boolean {
  try {
    store.openSecret(sealed, sealed.secret)
    return true
  } catch {
    return false
  }
}

export interface LedgerKeyOptions {
  /** The key file (default `<ledger>.key`). */
  keyFile?: string
  /** A further connection (a worker's): checks the key but records nothing. */
  secondary?: boolean
}

/**
 * The ledger's key: the key file checked against the fingerprint the ledger records. A ledger that
 * never had a key (new, or older than fingerprints with no sealed block) gets one; an older one
 * with sealed blocks has its fingerprint recorded once its key is shown to open them.
 */
export function openLedgerKey(db: Db, dbPath: string, opts: LedgerKeyOptions = {}): KeyStore {
  const path = opts.keyFile ?? keyFilePath(dbPath)
  try {
    return keyStoreFromKey(checkedKey(db, path, opts.secondary ?? false))
  } catch (e) {
    if (e instanceof AppError && e.code === 'KEY') return refusingKeyStore(e)
    throw e
  }
}

/** A new key in a new file; another process that made it first wins, and its key is read. */
function newKeyFile(path: string): Buffer {
  const key = randomBytes(32)
  try {
    writeKeyFile(path, key)
    return key
  } catch (e) {
    const theirs = readKeyFile(path)
    if (theirs) return theirs
    throw e
  }
}

function checkedKey(db: Db, path: string, secondary: boolean): Buffer {
  const recorded = readMeta(db, 'key_fingerprint')
  const sealed = firstSealedBlock(db)
  let key = readKeyFile(path)
  if (!key) {
    if (recorded || sealed || secondary) throw keyProblems.missing(path, recorded)
    key = newKeyFile(path)
  }
  const fingerprint = keyFingerprint(key)
  if (recorded && recorded !== fingerprint) throw keyProblems.wrong(path, fingerprint, recorded)
  if (!recorded && sealed && !opens(keyStoreFromKey(key), sealed)) throw keyProblems.wrong(path, fingerprint, null)
  if (!recorded && !secondary) writeMeta(db, 'key_fingerprint', fingerprint)
  return key
}
