/**
 * The key ceremony's rules on the emission screen (game-core/DERIVATION.md §1.1, commit-first):
 * who may open it, who commits to the second share and reveals it, when generation is offered,
 * and the custodian's share as drawn in this window or read from dice, kept in the tab until it
 * is revealed.
 */
import type { ChannelName, EmissionSummary, KeyCeremony, UserInfo } from '../../../../electron/contract'
import { diceRolls, MIN_DICE_ROLLS, SHARE_BYTES, type DiceProblem } from '../../../../game-core/seeding'
import { concatBytes, toHex, utf8 } from '../../../../game-core/primitives'

export { MIN_DICE_ROLLS }

/** The same person, as the backend compares names (case ignored; the backend also folds look-alikes). */
const samePerson = (a: string | null, b: string) => a !== null && a.toLowerCase() === b.toLowerCase()

/**
 * What the signed-in user sees of a ceremony under way: they may commit to the second share; they
 * opened it (so may not); they committed and now reveal; another person's reveal is awaited; the
 * ceremony was begun the old way and waits to be abandoned; or nothing to do.
 */
export type CustodianStance =
  'may-commit' | 'is-starter' | 'not-a-custodian' | 'must-reveal' | 'awaiting-reveal' | 'old-protocol' | 'closed'

/** `may`: whether the signed-in role may call a channel (the contract's access lists). */
export function custodianStance(
  c: KeyCeremony | null,
  user: UserInfo | null,
  may: (channel: ChannelName) => boolean,
): CustodianStance {
  if (!c || c.state === 'complete' || !user) return 'closed'
  if (c.state === 'awaiting-custodian') return 'old-protocol'
  if (c.state === 'awaiting-reveal') return samePerson(c.committedBy, user.name) ? 'must-reveal' : 'awaiting-reveal'
  if (!may('ceremony:commit')) return 'not-a-custodian'
  return samePerson(c.startedBy, user.name) ? 'is-starter' : 'may-commit'
}

/**
 * The custodian's share between their commitment and its reveal: kept in this tab's
 * sessionStorage (a reload keeps it, closing the tab forgets it), under the emission and the
 * user, with the commitment it answers; dice are kept as typed, so that the same rolls are sent.
 */
export interface KeptShare {
  commitment: string
  share?: string
  dice?: string
}

const keptKey = (emission: number, user: string) => `carats.ceremony.share.${emission}.${user.toLowerCase()}`

export function keepShare(store: Storage, emission: number, user: string, kept: KeptShare): void {
  store.setItem(keptKey(emission, user), JSON.stringify(kept))
}

/** The share kept for this commitment (null: none, or one kept for another commitment). */
export function keptShare(store: Storage, emission: number, user: string, commitment: string | null): KeptShare | null {
  try {
    const kept = JSON.parse(store.getItem(keptKey(emission, user)) ?? 'null') as KeptShare | null
    return kept && commitment !== null && kept.commitment === commitment ? kept : null
  } catch {
    return null
  }
}

export function forgetShare(store: Storage, emission: number, user: string): void {
  store.removeItem(keptKey(emission, user))
}

/**
 * Whether the emission's blocks may be generated now: a real emission only from a complete
 * ceremony; a demonstration one directly too (under single control).
 */
export function mayGenerate(e: EmissionSummary, c: KeyCeremony | null): boolean {
  return e.demo || c?.state === 'complete'
}

/** Typed dice rolls as the field shows them: how many rolls, and what is wrong (null: nothing). */
export function diceState(text: string): { count: number; problem: DiceProblem | null } {
  const count = (text.match(/[1-6]/g) ?? []).length
  const checked = diceRolls(text)
  return { count, problem: 'problem' in checked ? checked : null }
}

/** A problem of typed dice rolls as an i18n key and its parameters (the backend's own reasons). */
export function diceProblemMessage(p: DiceProblem): { key: string; params: Record<string, unknown> } {
  return p.problem === 'not-a-roll'
    ? { key: 'reasons.DICE_NOT_A_ROLL', params: { char: p.char } }
    : { key: 'reasons.DICE_TOO_FEW', params: { count: p.count, min: MIN_DICE_ROLLS } }
}

/** A share of 32 bytes drawn in this window. */
export function drawShare(): Uint8Array {
  return crypto.getRandomValues(new Uint8Array(SHARE_BYTES))
}

/** SHA-256 of a share in lowercase hex: what the certificate will print as the custodian's hash. */
export async function shareDigest(share: Uint8Array): Promise<string> {
  return toHex(await sha256(share))
}

/** WebCrypto's SHA-256 (it takes a copy on a plain ArrayBuffer). */
async function sha256(bytes: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest('SHA-256', new Uint8Array(bytes)))
}

/**
 * The share the backend makes from dice rolls (game-core/seeding.ts shareFromDice: SHA-256 of
 * "CARATS/v1/dice" and the digits), computed here too, so that the custodian sees its hash before
 * sending the rolls.
 */
export async function diceShare(rolls: string): Promise<Uint8Array> {
  return sha256(concatBytes(utf8('CARATS/v1/dice'), utf8(rolls)))
}

export { toHex }
