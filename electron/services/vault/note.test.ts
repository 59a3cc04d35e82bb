/**
 * Signed notes, checkpoints and cosignatures (note.ts) against the published vectors: RFC 8032's
 * first Ed25519 test, the signed-note spec's verifier key and note (c2sp.org/signed-note), the
 * keys and notes of golang.org/x/mod/sumdb/note's tests, the checkpoint and cosignature examples
 * of c2sp.org/tlog-checkpoint and tlog-cosignature; then round trips and refusals.
 */
import { sign } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import {
  MAX_SIGNATURES,
  SIG_COSIGNATURE_V1,
  checkpointBody,
  cosign,
  ed25519KeyFromSeed,
  keyId,
  newEd25519Seed,
  noteProblem,
  parseCheckpoint,
  parseNote,
  parseVerifierKey,
  signNote,
  verifierKey,
  verifyCosignature,
  verifyNote,
} from './note'

const b64 = (s: string) => Buffer.from(s, 'base64')
const utf8 = (s: string) => new TextEncoder().encode(s)

// golang.org/x/mod/sumdb/note tests: the signer key is "PRIVATE+KEY+<name>+<id>+base64(0x01 ‖ seed)".
const PETER_SEED = b64('AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz').subarray(1)
const PETER_VKEY = 'PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW'
const ENOCH_VKEY = 'EnochRoot+af0cfe78+ATtqJ7zOtqQtYqOo0CpvDXNlMhV3HeJDpjrASKGLWdop'
const GO_TEXT = "If you think cryptography is the answer to your problem,\nthen you don't know what your problem is.\n"
const PETER_SIG =
  '— PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n'
const ENOCH_SIG =
  '— EnochRoot rwz+eBzmZa0SO3NbfRGzPCpDckykFXSdeX+MNtCOXm2/5n2tiOHp+vAF1aGrQ5ovTG01oOTGwnWLox33WWd1RvMc+QQ=\n'

// c2sp.org/signed-note, "Verifier keys" example.
const SPEC_VKEY = 'example.com/foo+530d903a+AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k'
const SPEC_NOTE =
  'This is an example message.\n\n— example.com/foo Uw2QOkn8srV1yJGh2VYRlL1Tnagv1YEq6TfXppzi2ONncAlTgK7Ztg1ERYNZXsYjOBH3mFXmRKuwHjG1Yu72IneyaQM=\n'

// c2sp.org/tlog-checkpoint and tlog-cosignature examples (no keys are published for them).
const SPEC_CHECKPOINT = 'example.com/behind-the-sofa\n20852163\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n'
const SPEC_COSIGNED =
  SPEC_CHECKPOINT +
  '\n— example.com/behind-the-sofa Az3grlgtzPICa5OS8npVmf1Myq/5IZniMp+ZJurmRDeOoRDe4URYN7u5/Zhcyv2q1gGzGku9nTo+zyWE+xeMcTOAYQ8=\n' +
  '— witness.example.com/w1 jWbPPwAAAABkGFDLEZMHwSRaJNiIDoe9DYn/zXcrtPHeolMI5OWXEhZCB9dlrDJsX3b2oyin1nPZqhf5nNo0xUe+mbIUBkBIfZ+qnA==\n'

const log = ed25519KeyFromSeed(Buffer.alloc(32, 1))
const witness = ed25519KeyFromSeed(Buffer.alloc(32, 2))
const root = Buffer.alloc(32, 0xab)
const checkpoint = checkpointBody({ origin: 'vault.example/log', size: 1234, rootHash: root })
const signedCheckpoint = signNote(checkpoint, 'vault.example/log', log.privateKey, log.publicKey)

describe('Ed25519 keys and key IDs', () => {
  it('derives RFC 8032 test 1 from its seed', () => {
    const key = ed25519KeyFromSeed(
      Buffer.from('9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60', 'hex'),
    )
    expect(key.publicKey.toString('hex')).toBe('d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a')
    expect(sign(null, Buffer.alloc(0), key.privateKey).toString('hex')).toBe(
      'e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e06522490155' +
        '5fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b',
    )
  })

  it("gives the Go note package's verifier key for its signer key", () => {
    const peter = ed25519KeyFromSeed(PETER_SEED)
    expect(keyId('PeterNeumann', peter.publicKey, 1).toString('hex')).toBe('c74f20a3')
    expect(verifierKey('PeterNeumann', peter.publicKey)).toBe(PETER_VKEY)
    expect(parseVerifierKey(PETER_VKEY).publicKey.equals(peter.publicKey)).toBe(true)
  })

  it("parses the spec's verifier key", () => {
    const vkey = parseVerifierKey(SPEC_VKEY)
    expect(vkey.name).toBe('example.com/foo')
    expect(vkey.type).toBe(1)
    expect(vkey.keyId.toString('hex')).toBe('530d903a')
    expect(verifierKey(vkey.name, vkey.publicKey)).toBe(SPEC_VKEY)
  })

  it('refuses every truncation and every one-character change of a verifier key (as the Go tests do)', () => {
    for (let i = 0; i <= PETER_VKEY.length; i++)
      for (let j = i + 1; j <= PETER_VKEY.length; j++)
        if (i !== 0 || j !== PETER_VKEY.length) expect(() => parseVerifierKey(PETER_VKEY.slice(i, j))).toThrow()
    for (let i = 0; i < PETER_VKEY.length; i++) {
      const changed =
        PETER_VKEY.slice(0, i) + String.fromCharCode(PETER_VKEY.charCodeAt(i) + 1) + PETER_VKEY.slice(i + 1)
      expect(() => parseVerifierKey(changed), changed).toThrow()
    }
    expect(() => parseVerifierKey('PeterNeumann+173116ae+ZRpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW')).toThrow(
      /type 0x65 is not supported/,
    )
    expect(() => parseVerifierKey('PeterNeumann+c74f20a4+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW')).toThrow(
      /key ID c74f20a4 is not the one/,
    )
  })

  it('makes random seeds and refuses a seed of the wrong length', () => {
    const seed = newEd25519Seed()
    expect(seed).toHaveLength(32)
    expect(newEd25519Seed().equals(seed)).toBe(false)
    expect(() => ed25519KeyFromSeed(Buffer.alloc(31))).toThrow(/32 bytes/)
  })
})

describe('signed notes', () => {
  it("reproduces the Go note package's signature (Ed25519 is deterministic)", () => {
    const peter = ed25519KeyFromSeed(PETER_SEED)
    expect(signNote(GO_TEXT, 'PeterNeumann', peter.privateKey, peter.publicKey)).toBe(`${GO_TEXT}\n${PETER_SIG}`)
  })

  it('verifies the notes of the Go tests and of the spec, one key at a time', () => {
    const both = `${GO_TEXT}\n${PETER_SIG}${ENOCH_SIG}`
    expect(verifyNote(both, PETER_VKEY)).toBe(true)
    expect(verifyNote(both, ENOCH_VKEY)).toBe(true)
    expect(verifyNote(`${GO_TEXT}\n${ENOCH_SIG}`, PETER_VKEY)).toBe(false)
    expect(verifyNote(SPEC_NOTE, SPEC_VKEY)).toBe(true)
    expect(verifyNote(SPEC_NOTE, PETER_VKEY)).toBe(false)
    expect(parseNote(both).body).toBe(GO_TEXT)
  })

  it("parses the signed-note spec's example, whose text has an empty line", () => {
    const example =
      'Ognuno sta solo sul cuor della terra\ntrafitto da un raggio di sole:\n\ned è subito sera.\n\n' +
      '— quasimodo.example/salvatore NnugSzTjtVAewIS+Z/iJhUPeFDkO/5QQ2i5ddnGITLlC+EhfLW9oJKONrMouFSQU0xMcXxj99ihAQwaqP3ZekRwNtIc=\n'
    const { body, signatures } = parseNote(example)
    expect(body).toBe('Ognuno sta solo sul cuor della terra\ntrafitto da un raggio di sole:\n\ned è subito sera.\n')
    expect(signatures).toHaveLength(1)
    expect(signatures[0].name).toBe('quasimodo.example/salvatore')
    expect(signatures[0].sig).toHaveLength(64)
  })

  it('refuses the malformed notes of the Go tests, and others', () => {
    const bad: (string | Uint8Array)[] = [
      GO_TEXT,
      `${GO_TEXT}\n`,
      `${GO_TEXT}\n${PETER_SIG.slice(0, -1)}`,
      `\x01${GO_TEXT}\n${PETER_SIG}`,
      Uint8Array.from([0xff, ...utf8(`${GO_TEXT}\n${PETER_SIG}`)]),
      `${GO_TEXT}\n— Bad Name x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=`,
      `${GO_TEXT}\n${PETER_SIG}Unexpected line.\n`,
      `${GO_TEXT}\n${PETER_SIG.replace('PeterNeumann', 'Peter+Neumann')}`,
      `${GO_TEXT}\n${PETER_SIG.replace('—', '-')}`,
      `${GO_TEXT}\n${PETER_SIG.replace('=\n', '\n')}`,
      `${GO_TEXT}\n— PeterNeumann AAAAAA==\n`,
      `${GO_TEXT}\n— PeterNeumann\n`,
      `${GO_TEXT}\n${PETER_SIG.repeat(MAX_SIGNATURES + 1)}`,
      `\ud800${GO_TEXT}\n${PETER_SIG}`,
    ]
    for (const note of bad) expect(() => parseNote(note), String(note)).toThrow(/malformed note|control|UTF-8/)
    expect(parseNote(`${GO_TEXT}\n${PETER_SIG.repeat(MAX_SIGNATURES)}`).signatures).toHaveLength(MAX_SIGNATURES)
    expect(parseNote(utf8(`${GO_TEXT}\n${PETER_SIG}`)).body).toBe(GO_TEXT)
  })

  it('round-trips, and refuses the note once any character of the text has changed', () => {
    const body = 'vault.example/log\n42\nq83vEjRWeJq83vEjRWeJq83vEjRWeJq83vEjRWeJq80=\nnote: é ✓\n'
    const note = signNote(body, 'vault.example/log', log.privateKey, log.publicKey)
    const vkey = verifierKey('vault.example/log', log.publicKey)
    expect(verifyNote(note, vkey)).toBe(true)
    for (let i = 0; i < body.length; i++) {
      const c = body.charCodeAt(i)
      const changed = body.slice(0, i) + String.fromCharCode(c === 0x41 ? 0x42 : 0x41) + body.slice(i + 1)
      expect(verifyNote(changed + note.slice(body.length), vkey), `character ${i}`).toBe(false)
    }
  })

  it('refuses a note signed by another key, even under the same name, or with a signature forged for the key ID', () => {
    const note = signNote(checkpoint, 'vault.example/log', witness.privateKey, witness.publicKey)
    const vkey = verifierKey('vault.example/log', log.publicKey)
    expect(noteProblem(note, vkey)).toMatch(/no signature by vault\.example\/log\+/)
    const forged = `${checkpoint}\n— vault.example/log ${Buffer.concat([
      keyId('vault.example/log', log.publicKey, 1),
      sign(null, Buffer.from(checkpoint), witness.privateKey),
    ]).toString('base64')}\n`
    expect(noteProblem(forged, vkey)).toMatch(/is invalid/)
    // one bad line of the key refuses the note, even beside a good one
    expect(verifyNote(signedCheckpoint + forged.slice(forged.indexOf('—')), vkey)).toBe(false)
    expect(verifyNote(signedCheckpoint, vkey)).toBe(true)
  })

  it('refuses to sign a bad text, with a bad name, or with a public key of another private key', () => {
    const sign =
      (body: string, name = 'n', pub = log.publicKey) =>
      () =>
        signNote(body, name, log.privateKey, pub)
    expect(sign('')).toThrow(/must not be empty/)
    expect(sign('no newline')).toThrow(/end with a newline/)
    expect(sign('tab\there\n')).toThrow(/control character U\+0009/)
    expect(sign('ok\n', 'a b')).toThrow(/invalid key name/)
    expect(sign('ok\n', 'a+b')).toThrow(/invalid key name/)
    expect(sign('ok\n', 'n', witness.publicKey)).toThrow(/not the one of the private key/)
  })
})

describe('checkpoints', () => {
  it("parses the spec's checkpoint", () => {
    const c = parseCheckpoint(SPEC_CHECKPOINT)
    expect(c.origin).toBe('example.com/behind-the-sofa')
    expect(c.size).toBe(20852163)
    expect(c.rootHash.toString('base64')).toBe('CsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=')
    expect(c.extensions).toEqual([])
  })

  it('writes the body line by line and reads it back, extensions included', () => {
    const body = checkpointBody({ origin: 'o.example/x', size: 0, rootHash: root, extensions: ['a b', 'c'] })
    expect(body).toBe(`o.example/x\n0\n${root.toString('base64')}\na b\nc\n`)
    const back = parseCheckpoint(body)
    expect([back.origin, back.size, back.rootHash.equals(root), back.extensions]).toEqual([
      'o.example/x',
      0,
      true,
      ['a b', 'c'],
    ])
  })

  it('refuses malformed checkpoints and bad fields', () => {
    const r = root.toString('base64')
    const bad: [string, RegExp][] = [
      [`o\n1\n${r}`, /end with a newline/],
      [`o\n1\n`, /at least 3 lines/],
      [`o\n01\n${r}\n`, /leading zeros/],
      [`o\n-1\n${r}\n`, /not a decimal/],
      [`o\n1.0\n${r}\n`, /not a decimal/],
      [`o\n 1\n${r}\n`, /not a decimal/],
      [`o\n9007199254740992\n${r}\n`, /too large/],
      [`o\n1\n${r.slice(0, -1)}\n`, /not canonical/],
      [`o\n1\n${Buffer.alloc(31).toString('base64')}\n`, /32 bytes/],
      [`o\n1\n${r}\n\next\n`, /line 4 is empty/],
      [`\n1\n${r}\n`, /line 1 is empty/],
    ]
    for (const [body, message] of bad) expect(() => parseCheckpoint(body), body).toThrow(message)
    expect(() => checkpointBody({ origin: '', size: 1, rootHash: root })).toThrow(/origin must not be empty/)
    expect(() => checkpointBody({ origin: 'a\nb', size: 1, rootHash: root })).toThrow(/one line/)
    expect(() => checkpointBody({ origin: 'o', size: -1, rootHash: root })).toThrow(/whole number/)
    expect(() => checkpointBody({ origin: 'o', size: 1, rootHash: root.subarray(1) })).toThrow(/32 bytes/)
    expect(() => checkpointBody({ origin: 'o', size: 1, rootHash: root, extensions: [''] })).toThrow(/extension line/)
  })
})

describe('cosignatures (cosignature/v1)', () => {
  const witnessName = 'witness.example/w1'

  it("frames the spec's example cosignature: key ID, 8-byte big-endian time, 64-byte signature", () => {
    const { body, signatures } = parseNote(SPEC_COSIGNED)
    expect(body).toBe(SPEC_CHECKPOINT)
    const [, cosig] = signatures
    expect(cosig.name).toBe('witness.example.com/w1')
    expect(cosig.keyId.toString('hex')).toBe('8d66cf3f')
    expect(cosig.sig).toHaveLength(72)
    expect(Number(cosig.sig.readBigUInt64BE(0))).toBe(1679315147)
  })

  it('round-trips: the line appended to the note verifies, with its time', () => {
    const line = cosign(signedCheckpoint, witnessName, witness.privateKey, witness.publicKey, 1_700_000_000)
    expect(line).toMatch(/^— witness\.example\/w1 [A-Za-z0-9+/]{102}==\n$/)
    const raw = b64(line.split(' ')[2])
    expect(raw.subarray(0, 4).equals(keyId(witnessName, witness.publicKey, SIG_COSIGNATURE_V1))).toBe(true)
    expect(Number(raw.readBigUInt64BE(4))).toBe(1_700_000_000)
    const cosigned = signedCheckpoint + line
    expect(verifyCosignature(cosigned, witnessName, witness.publicKey)).toEqual({ ok: true, time: 1_700_000_000 })
    expect(verifyNote(cosigned, verifierKey(witnessName, witness.publicKey, SIG_COSIGNATURE_V1))).toBe(true)
    expect(verifyNote(cosigned, verifierKey('vault.example/log', log.publicKey))).toBe(true)
    // the same key as a plain note signer (type 0x01) has another key ID: the cosignature is not its signature
    expect(verifyNote(cosigned, verifierKey(witnessName, witness.publicKey))).toBe(false)
  })

  it('refuses a cosignature over a changed checkpoint, a changed time, by another key, or absent', () => {
    const line = cosign(signedCheckpoint, witnessName, witness.privateKey, witness.publicKey, 1_700_000_000)
    const cosigned = signedCheckpoint + line
    const otherBody = cosigned.replace('\n1234\n', '\n1235\n')
    expect(verifyCosignature(otherBody, witnessName, witness.publicKey)).toEqual({
      ok: false,
      reason: `the cosignature by ${witnessName} is invalid`,
    })
    const raw = b64(line.split(' ')[2])
    raw[11] ^= 1
    const otherTime = `${signedCheckpoint}— ${witnessName} ${raw.toString('base64')}\n`
    expect(verifyCosignature(otherTime, witnessName, witness.publicKey).ok).toBe(false)
    expect(verifyCosignature(cosigned, witnessName, log.publicKey)).toMatchObject({
      ok: false,
      reason: /no cosignature/,
    })
    expect(verifyCosignature(signedCheckpoint, witnessName, witness.publicKey).ok).toBe(false)
    expect(verifyCosignature('not a note', witnessName, witness.publicKey)).toMatchObject({ reason: /malformed note/ })
  })

  it('refuses to cosign what is not a signed checkpoint, or at a bad time', () => {
    const cosignIt =
      (note: string, time = 1) =>
      () =>
        cosign(note, witnessName, witness.privateKey, witness.publicKey, time)
    expect(cosignIt(checkpoint)).toThrow(/malformed note/)
    expect(cosignIt(signNote('just text\n', 'n', log.privateKey, log.publicKey))).toThrow(/at least 3 lines/)
    expect(cosignIt(signedCheckpoint, -1)).toThrow(/whole seconds/)
    expect(cosignIt(signedCheckpoint, 1.5)).toThrow(/whole seconds/)
  })
})
