/**
 * The key ceremony's rules on the emission screen (game-core/DERIVATION.md §1.1): who may open
 * it, who may contribute the second share, when generation is offered, and the custodian's share
 * as drawn in this window or read from dice.
 */
import type { ChannelName, EmissionSummary, KeyCeremony, UserInfo } from '../../../../electron/contract'
import { diceRolls, MIN_DICE_ROLLS, SHARE_BYTES, type DiceProblem } from '../../../../game-core/seeding'
import { concatBytes, toHex, utf8 } from '../../../../game-core/primitives'

export { MIN_DICE_ROLLS }

/** The same person, as the backend compares names (case ignored). */
const samePerson = (a: string, b: string) => a.toLowerCase() === b.toLowerCase()

/** What the signed-in user sees of an open ceremony's second share. */
export type CustodianStance = 'may-contribute' | 'is-starter' | 'not-a-custodian' | 'closed'

/** `may`: whether the signed-in role may call a channel (the contract's access lists). */
export function custodianStance(c: KeyCeremony | null, user: UserInfo | null, may: (channel: ChannelName) => boolean): CustodianStance {
  if (!c || c.state !== 'awaiting-custodian' || !user) return 'closed'
  if (!may('ceremony:contribute')) return 'not-a-custodian'
  return samePerson(c.startedBy, user.name) ? 'is-starter' : 'may-contribute'
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
