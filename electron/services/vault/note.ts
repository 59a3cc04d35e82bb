/**
 * The vault's signed statements: C2SP signed notes (c2sp.org/signed-note) with Ed25519 keys,
 * the tree heads they carry (c2sp.org/tlog-checkpoint) and witnesses' timestamped Ed25519
 * cosignatures (c2sp.org/tlog-cosignature, cosignature/v1), on node:crypto alone.
 *
 * A note is a text ending in a newline, a blank line, then lines "— <key name> <base64(key ID ‖
 * signature)>". Key IDs are SHA-256(name ‖ 0x0A ‖ type ‖ public key)[:4], type 0x01 for a note
 * signature and 0x04 for a cosignature. Errors are sentences meant for auditors.
 */
import { createHash, createPrivateKey, createPublicKey, randomBytes, sign, verify, type KeyObject } from 'node:crypto'
import { HASH_BYTES, decodeBase64Hash } from './tlog'

/** Signature type bytes (c2sp.org/signed-note, "Signature types"). */
export const SIG_ED25519 = 0x01
export const SIG_COSIGNATURE_V1 = 0x04

/** More signature lines than this and a note is refused (the spec asks verifiers for a limit of at least 16). */
export const MAX_SIGNATURES = 100

const EM_DASH_SPACE = '\u2014 '
const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex')
const SPKI_ED25519_PREFIX = Buffer.from('302a300506032b6570032100', 'hex')

export interface Ed25519Key {
  privateKey: KeyObject
  /** The raw 32-byte public key (RFC 8032). */
  publicKey: Buffer
}

export interface VerifierKey {
  name: string
  keyId: Buffer
  type: number
  publicKey: Buffer
}

export interface NoteSignature {
  name: string
  keyId: Buffer
  /** The signature bytes after the key ID. */
  sig: Buffer
}

export interface Checkpoint {
  origin: string
  size: number
  rootHash: Buffer
  extensions: string[]
}

export type CosignatureCheck = { ok: true; time: number } | { ok: false; reason: string }

export function newEd25519Seed(): Buffer {
  return randomBytes(32)
}

/** The Ed25519 key pair of a 32-byte seed (RFC 8032 private key). */
export function ed25519KeyFromSeed(seed: Uint8Array): Ed25519Key {
  if (!(seed instanceof Uint8Array) || seed.length !== 32) throw new Error('an Ed25519 seed is 32 bytes')
  const privateKey = createPrivateKey({
    key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]),
    format: 'der',
    type: 'pkcs8',
  })
  return { privateKey, publicKey: rawPublicKey(createPublicKey(privateKey)) }
}

function rawPublicKey(key: KeyObject): Buffer {
  return Buffer.from(key.export({ format: 'der', type: 'spki' }).subarray(-32))
}

function publicKeyObject(raw: Uint8Array): KeyObject {
  if (raw.length !== 32) throw new Error(`an Ed25519 public key is 32 bytes, not ${raw.length}`)
  return createPublicKey({ key: Buffer.concat([SPKI_ED25519_PREFIX, raw]), format: 'der', type: 'spki' })
}

/** Non-empty, well-formed, with no Unicode space and no plus (c2sp.org/signed-note, "Format"). */
export function isValidKeyName(name: string): boolean {
  return typeof name === 'string' && name !== '' && isWellFormed(name) && !/[\s\u0085+]/.test(name)
}

function assertKeyName(name: string): void {
  if (!isValidKeyName(name))
    throw new Error(`invalid key name ${JSON.stringify(name)}: it must be non-empty, without spaces or "+"`)
}

/** SHA-256(name ‖ 0x0A ‖ type ‖ public key)[:4]. */
export function keyId(name: string, publicKey: Uint8Array, type: number): Buffer {
  assertKeyName(name)
  if (!Number.isInteger(type) || type < 0 || type > 255) throw new Error(`a signature type is one byte, not ${type}`)
  const digest = createHash('sha256').update(name, 'utf8').update(Uint8Array.of(0x0a, type)).update(publicKey).digest()
  return digest.subarray(0, 4)
}

/** The verifier key "<name>+<hex key ID>+<base64(type ‖ public key)>". */
export function verifierKey(name: string, publicKey: Uint8Array, type = SIG_ED25519): string {
  if (publicKey.length !== 32) throw new Error(`an Ed25519 public key is 32 bytes, not ${publicKey.length}`)
  const material = Buffer.concat([Uint8Array.of(type), publicKey]).toString('base64')
  return `${name}+${keyId(name, publicKey, type).toString('hex')}+${material}`
}

/** A verifier key string, checked: known Ed25519 type, 32-byte key, and the key ID it states. */
export function parseVerifierKey(vkey: string): VerifierKey {
  const [name, idHex, material] = splitVerifierKey(vkey)
  assertKeyName(name)
  if (!/^[0-9a-fA-F]{8}$/.test(idHex)) throw new Error(`verifier key: the key ID must be 8 hex digits, not "${idHex}"`)
  const bytes = decodeBase64Hash(material, 'verifier key: the key material', 33)
  const type = bytes[0]
  if (type !== SIG_ED25519 && type !== SIG_COSIGNATURE_V1)
    throw new Error(`verifier key: signature type 0x${type.toString(16).padStart(2, '0')} is not supported`)
  const publicKey = bytes.subarray(1)
  const id = keyId(name, publicKey, type)
  if (id.toString('hex') !== idHex.toLowerCase())
    throw new Error(`verifier key: the key ID ${idHex} is not the one of this name and key (${id.toString('hex')})`)
  return { name, keyId: id, type, publicKey }
}

function splitVerifierKey(vkey: string): [string, string, string] {
  if (typeof vkey !== 'string') throw new Error('a verifier key is a string')
  const first = vkey.indexOf('+')
  const second = vkey.indexOf('+', first + 1)
  if (first < 0 || second < 0) throw new Error('a verifier key reads <name>+<key ID>+<key>')
  return [vkey.slice(0, first), vkey.slice(first + 1, second), vkey.slice(second + 1)]
}

/** No lone UTF-16 surrogate: the text has a UTF-8 encoding. */
function isWellFormed(text: string): boolean {
  return !/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(text)
}

/** A note's characters: well-formed, no ASCII control character but newline. */
function checkNoteCharacters(text: string, what: string): void {
  if (!isWellFormed(text)) throw new Error(`${what} is not valid UTF-8 (a lone surrogate)`)
  const control = /[\u0000-\u0009\u000b-\u001f]/.exec(text)
  if (control)
    throw new Error(
      `${what} contains the control character U+${control[0].charCodeAt(0).toString(16).padStart(4, '0')}`,
    )
}

function checkBody(body: string): void {
  if (typeof body !== 'string' || body === '') throw new Error('a note text must not be empty')
  if (!body.endsWith('\n')) throw new Error('a note text must end with a newline')
  checkNoteCharacters(body, 'the note text')
}

/** The checkpoint note text: origin, decimal size, base64 root hash, extension lines, each ending "\n". */
export function checkpointBody(c: {
  origin: string
  size: number
  rootHash: Uint8Array
  extensions?: string[]
}): string {
  const extensions = c.extensions ?? []
  if (!Number.isSafeInteger(c.size) || c.size < 0) throw new Error(`a tree size is a whole number ≥ 0, not ${c.size}`)
  if (!(c.rootHash instanceof Uint8Array) || c.rootHash.length !== HASH_BYTES)
    throw new Error(`a checkpoint's root hash is ${HASH_BYTES} bytes`)
  for (const [what, line] of [['origin', c.origin], ...extensions.map((e) => ['extension line', e])]) {
    if (typeof line !== 'string' || line === '') throw new Error(`a checkpoint's ${what} must not be empty`)
    if (line.includes('\n')) throw new Error(`a checkpoint's ${what} is one line`)
  }
  const body = [c.origin, String(c.size), Buffer.from(c.rootHash).toString('base64'), ...extensions].join('\n') + '\n'
  checkBody(body)
  return body
}

/** A checkpoint note text, strictly: three or more non-empty lines, decimal size, 32-byte base64 root. */
export function parseCheckpoint(body: string): Checkpoint {
  checkBody(body)
  const lines = body.slice(0, -1).split('\n')
  if (lines.length < 3) throw new Error(`a checkpoint has at least 3 lines, not ${lines.length}`)
  const empty = lines.indexOf('')
  if (empty >= 0) throw new Error(`checkpoint line ${empty + 1} is empty`)
  const [origin, sizeText, rootText, ...extensions] = lines
  if (!/^(0|[1-9][0-9]*)$/.test(sizeText))
    throw new Error(`the checkpoint's tree size "${sizeText}" is not a decimal number without leading zeros`)
  const size = Number(sizeText)
  if (!Number.isSafeInteger(size)) throw new Error(`the checkpoint's tree size ${sizeText} is too large`)
  const rootHash = decodeBase64Hash(rootText, "the checkpoint's root hash")
  return { origin, size, rootHash, extensions }
}

function signatureLine(name: string, id: Uint8Array, sig: Uint8Array): string {
  return `${EM_DASH_SPACE}${name} ${Buffer.concat([id, sig]).toString('base64')}\n`
}

function assertKeyPair(privateKey: KeyObject, publicKey: Uint8Array): void {
  if (privateKey.asymmetricKeyType !== 'ed25519') throw new Error('the private key is not an Ed25519 key')
  if (!rawPublicKey(createPublicKey(privateKey)).equals(publicKey))
    throw new Error('the public key given is not the one of the private key')
}

/** The signed note: the text, a blank line and the Ed25519 signature line of key `name`. */
export function signNote(body: string, name: string, privateKey: KeyObject, publicKey: Uint8Array): string {
  checkBody(body)
  assertKeyName(name)
  assertKeyPair(privateKey, publicKey)
  const sig = sign(null, Buffer.from(body, 'utf8'), privateKey)
  return `${body}\n${signatureLine(name, keyId(name, publicKey, SIG_ED25519), sig)}`
}

/** A signed note's text and signature lines (none verified), refusing any malformed note. */
export function parseNote(note: string | Uint8Array): { body: string; signatures: NoteSignature[] } {
  const text = typeof note === 'string' ? note : decodeUtf8(note)
  checkNoteCharacters(text, 'the note')
  const split = text.lastIndexOf('\n\n')
  if (split < 0) throw new Error('malformed note: no blank line before the signatures')
  const body = text.slice(0, split + 1)
  const block = text.slice(split + 2)
  if (block === '') throw new Error('malformed note: no signature after the blank line')
  if (!block.endsWith('\n')) throw new Error('malformed note: the last signature line does not end with a newline')
  const lines = block.slice(0, -1).split('\n')
  if (lines.length > MAX_SIGNATURES) throw new Error(`malformed note: more than ${MAX_SIGNATURES} signatures`)
  return { body, signatures: lines.map((line, i) => parseSignatureLine(line, i + 1)) }
}

function decodeUtf8(bytes: Uint8Array): string {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes)
  } catch {
    throw new Error('malformed note: not valid UTF-8')
  }
}

function parseSignatureLine(line: string, n: number): NoteSignature {
  if (!line.startsWith(EM_DASH_SPACE)) throw new Error(`malformed note: signature line ${n} does not begin with "— "`)
  const rest = line.slice(EM_DASH_SPACE.length)
  const space = rest.indexOf(' ')
  const name = space < 0 ? rest : rest.slice(0, space)
  if (!isValidKeyName(name)) throw new Error(`malformed note: signature line ${n} has an invalid key name`)
  const encoded = space < 0 ? '' : rest.slice(space + 1)
  const raw = Buffer.from(encoded, 'base64')
  if (encoded === '' || raw.toString('base64') !== encoded)
    throw new Error(`malformed note: the signature of line ${n} is not canonical standard base64`)
  if (raw.length < 5) throw new Error(`malformed note: the signature of line ${n} is too short`)
  return { name, keyId: raw.subarray(0, 4), sig: raw.subarray(4) }
}

function ed25519Verifies(publicKey: Uint8Array, message: Uint8Array, sig: Uint8Array): boolean {
  try {
    return sig.length === 64 && verify(null, message, publicKeyObject(publicKey), sig)
  } catch {
    return false
  }
}

/**
 * Whether the note carries a valid signature by the verifier key (a string or parsed): type 0x01
 * as a note signature, type 0x04 as a cosignature/v1. Any invalid line of that key refuses it.
 */
export function verifyNote(note: string, key: string | VerifierKey): boolean {
  return noteProblem(note, key) === null
}

/** Why the note is not signed by the key (a sentence for auditors), or null when it is. */
export function noteProblem(note: string, key: string | VerifierKey): string | null {
  try {
    const vkey = typeof key === 'string' ? parseVerifierKey(key) : key
    if (vkey.type === SIG_COSIGNATURE_V1) {
      const check = verifyCosignature(note, vkey.name, vkey.publicKey)
      return check.ok ? null : check.reason
    }
    const { body, signatures } = parseNote(note)
    const mine = signatures.filter((s) => s.name === vkey.name && s.keyId.equals(vkey.keyId))
    if (mine.length === 0) return `the note has no signature by ${vkey.name}+${vkey.keyId.toString('hex')}`
    const message = Buffer.from(body, 'utf8')
    if (mine.some((s) => !ed25519Verifies(vkey.publicKey, message, s.sig)))
      return `the signature by ${vkey.name}+${vkey.keyId.toString('hex')} is invalid`
    return null
  } catch (e) {
    return (e as Error).message
  }
}

/** The cosignature/v1 signed message: header, time line, then the checkpoint text. */
function cosignedMessage(body: string, time: number): Buffer {
  return Buffer.from(`cosignature/v1\ntime ${time}\n${body}`, 'utf8')
}

/**
 * A witness's cosignature/v1 line for the checkpoint of a signed note, at `timeSeconds` (POSIX):
 * append it to the note (which ends with a newline) to add the cosignature.
 */
export function cosign(
  noteText: string,
  witnessName: string,
  privateKey: KeyObject,
  publicKey: Uint8Array,
  timeSeconds: number,
): string {
  const { body } = parseNote(noteText)
  parseCheckpoint(body)
  assertKeyName(witnessName)
  assertKeyPair(privateKey, publicKey)
  if (!Number.isSafeInteger(timeSeconds) || timeSeconds < 0)
    throw new Error(`a cosignature time is whole seconds ≥ 0, not ${timeSeconds}`)
  const timestamp = Buffer.alloc(8)
  timestamp.writeBigUInt64BE(BigInt(timeSeconds))
  const sig = sign(null, cosignedMessage(body, timeSeconds), privateKey)
  return signatureLine(witnessName, keyId(witnessName, publicKey, SIG_COSIGNATURE_V1), Buffer.concat([timestamp, sig]))
}

/** Whether the note carries a valid cosignature/v1 by the witness, and its time (the first, if several). */
export function verifyCosignature(noteText: string, witnessName: string, publicKey: Uint8Array): CosignatureCheck {
  try {
    const id = keyId(witnessName, publicKey, SIG_COSIGNATURE_V1)
    const { body, signatures } = parseNote(noteText)
    parseCheckpoint(body)
    const mine = signatures.filter((s) => s.name === witnessName && s.keyId.equals(id))
    if (mine.length === 0) return { ok: false, reason: `no cosignature by ${witnessName}+${id.toString('hex')}` }
    const times = mine.map((s) => cosignatureTime(s, body, publicKey))
    const bad = times.find((t) => typeof t === 'string')
    return bad !== undefined ? { ok: false, reason: bad } : { ok: true, time: times[0] as number }
  } catch (e) {
    return { ok: false, reason: (e as Error).message }
  }
}

/** The time of a valid cosignature line, or why it is not valid. */
function cosignatureTime(s: NoteSignature, body: string, publicKey: Uint8Array): number | string {
  if (s.sig.length !== 8 + 64) return `the cosignature by ${s.name} is ${s.sig.length} bytes, not 8 + 64`
  const stamp = s.sig.readBigUInt64BE(0)
  if (stamp > BigInt(Number.MAX_SAFE_INTEGER)) return `the cosignature by ${s.name} has an impossible time ${stamp}`
  const time = Number(stamp)
  if (!ed25519Verifies(publicKey, cosignedMessage(body, time), s.sig.subarray(8)))
    return `the cosignature by ${s.name} is invalid`
  return time
}
