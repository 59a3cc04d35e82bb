/**
 * The key pair a ledger signs its vault's checkpoints with: Ed25519, its seed derived from the
 * ledger's key (so nothing more to keep), its name the vault's origin. Whoever holds the ledger's
 * key can sign: a witness's cosignature (witness.ts) is what an insider with the key cannot make.
 */
import type { KeyStore } from '../../ledger/keystore'
import { originOf } from './format'
import { ed25519KeyFromSeed, signNote, verifierKey } from './note'

export const VAULT_SIGNING_LABEL = 'CARATS-VAULT-SIGNING/1'

export interface VaultSigner {
  origin: string
  /** The signed-note verifier key (name+id+key) that checks its checkpoints. */
  verifierKey: string
  /** The note signed: the body, a blank line, the signature line. */
  sign(body: string): string
}

export function vaultSigner(keys: KeyStore, ledgerId: string): VaultSigner {
  const origin = originOf(ledgerId)
  const { privateKey, publicKey } = ed25519KeyFromSeed(keys.derive(VAULT_SIGNING_LABEL))
  return {
    origin,
    verifierKey: verifierKey(origin, publicKey),
    sign: (body) => signNote(body, origin, privateKey, publicKey),
  }
}
