/**
 * A witness: an auditor's key and the last vault checkpoint it cosigned, kept in the auditor's own
 * folder, out of the ledger's owner's reach. `cosign` signs the vault's latest checkpoint only if
 * its signature holds under the key the witness first saw, its tree matches the vault's events,
 * and it extends the one cosigned before (an RFC 9162 consistency proof from the old root to the
 * new); a vault rolled back or rewritten since is refused, and named.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { AppError } from '../../contract/errors'
import { appendCosignature } from './cosigned'
import { CHECKPOINT_FILE } from './format'
import { readDescription } from './folder'
import { forEachLine } from './lines'
import { readStart } from './start'
import {
  cosign,
  ed25519KeyFromSeed,
  newEd25519Seed,
  parseCheckpoint,
  parseNote,
  SIG_COSIGNATURE_V1,
  verifierKey,
  verifyNote,
} from './note'
import { consistencyProof, leafHashOf, treeRoot, verifyConsistency } from './tlog'

const KEY_FILE = 'witness.key'
const STATE_FILE = 'witness.json'

interface WitnessState {
  name: string
  /** The vault it witnesses: its origin and the key its checkpoints are signed with (first seen). */
  vault: { origin: string; key: string } | null
  last: { size: number; root: string; at: string } | null
}

export interface CosignResult {
  witness: string
  size: number
  previous: number | null
  /** The checkpoint's note with the cosignature line. */
  note: string
  /** The vault's verifier key: compare it with the one the ledger's administrator gave. */
  vaultKey: string
}

function fail(message: string): never {
  throw new AppError('CONFLICT', message)
}

function saveState(dir: string, s: WitnessState): void {
  const tmp = join(dir, `${STATE_FILE}.tmp`)
  writeFileSync(tmp, JSON.stringify(s, null, 2) + '\n')
  renameSync(tmp, join(dir, STATE_FILE))
}

function keyOf(dir: string, name: string) {
  const seed = Buffer.from(readFileSync(join(dir, KEY_FILE), 'utf8').trim(), 'base64')
  const k = ed25519KeyFromSeed(seed)
  return { ...k, verifier: verifierKey(name, k.publicKey, SIG_COSIGNATURE_V1) }
}

/** A new witness in an empty folder: its key (0600) and its state; the verifier key to give the ledger's people. */
export function witnessInit(dir: string, name: string): { name: string; key: string } {
  if (existsSync(join(dir, KEY_FILE))) fail(`${dir} holds a witness already: its key is never replaced`)
  mkdirSync(dir, { recursive: true })
  const seed = newEd25519Seed()
  const key = verifierKey(name, ed25519KeyFromSeed(seed).publicKey, SIG_COSIGNATURE_V1)
  writeFileSync(join(dir, KEY_FILE), seed.toString('base64') + '\n', { mode: 0o600 })
  chmodSync(join(dir, KEY_FILE), 0o600)
  saveState(dir, { name, vault: null, last: null })
  return { name, key }
}

/** The leaf hashes of the vault's first `n` events, packed 32 bytes each. */
function leavesOf(folder: string, n: number): Buffer {
  const start = readStart(folder).size
  if (start > 0)
    fail(`this vault's files begin at event ${start} (an export, or purged): a witness cosigns the whole vault`)
  const packed = Buffer.alloc(32 * n)
  let i = 0
  forEachLine(folder, (line) => {
    if (i === n) return false
    leafHashOf(line).copy(packed, 32 * i++)
  })
  if (i < n) fail(`the vault's checkpoint signs ${n} events but its files hold ${i}: events were cut`)
  return packed
}

export function witnessCosign(dir: string, vaultFolder: string, now: Date): CosignResult {
  const state = JSON.parse(readFileSync(join(dir, STATE_FILE), 'utf8')) as WitnessState
  const d = readDescription(vaultFolder)
  if (state.vault && (state.vault.origin !== d.origin || state.vault.key !== d.key))
    fail(
      `this witness cosigns the vault ${state.vault.origin} under key ${state.vault.key}; ${vaultFolder} is ${d.origin} under ${d.key}`,
    )
  const note = readFileSync(join(vaultFolder, CHECKPOINT_FILE), 'utf8')
  if (!verifyNote(note, d.key)) fail(`the vault's checkpoint is not signed by its key ${d.key}`)
  const cp = parseCheckpoint(parseNote(note).body)
  const last = state.last
  if (last && cp.size < last.size)
    fail(
      `the vault's checkpoint signs ${cp.size} events; this witness cosigned ${last.size} on ${last.at}: the vault was rolled back`,
    )
  const leaves = leavesOf(vaultFolder, cp.size)
  if (!treeRoot(leaves, cp.size).equals(cp.rootHash))
    fail(`the vault's checkpoint of ${cp.size} events does not match its events: an event was altered`)
  if (last && last.size > 0) {
    const proof = consistencyProof(leaves, last.size, cp.size)
    if (!verifyConsistency(last.size, cp.size, Buffer.from(last.root, 'base64'), cp.rootHash, proof))
      fail(
        `the vault's log of ${cp.size} events does not extend the ${last.size} this witness cosigned on ${last.at}: it was rewritten`,
      )
  }
  const k = keyOf(dir, state.name)
  const cosigned = note + cosign(note, state.name, k.privateKey, k.publicKey, Math.floor(now.getTime() / 1000))
  appendCosignature(vaultFolder, { witness: state.name, key: k.verifier, note: cosigned })
  saveState(dir, {
    name: state.name,
    vault: { origin: d.origin, key: d.key },
    last: { size: cp.size, root: cp.rootHash.toString('base64'), at: now.toISOString() },
  })
  return { witness: state.name, size: cp.size, previous: last?.size ?? null, note: cosigned, vaultKey: d.key }
}
