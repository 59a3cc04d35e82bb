/**
 * Two-person seeding (DERIVATION.md §1.1): a block's secret made from two shares of 32 bytes, the
 * backend's (drawn and hashed first) and a custodian's (drawn in their own window, or read from
 * dice), so that no one person chooses the outcomes. Everything after the secret is unchanged.
 */
import { concatBytes, toHex, utf8, type Primitives } from './primitives'

export const SHARE_BYTES = 32
/** log2(6^100) = 258.5 bits: 100 rolls of a fair die carry more than a share's 256 bits. */
export const MIN_DICE_ROLLS = 100

const u16 = (x: number) => Uint8Array.of((x >> 8) & 255, x & 255)

/** S = HMAC(A || C, ascii("CARATS/v1/secret") || u16(e) || u16(b)). */
export function blockSecretFromShares(
  p: Primitives,
  serverShare: Uint8Array,
  custodianShare: Uint8Array,
  emission: number,
  block: number,
): Uint8Array {
  checkShare(serverShare, 'the backend’s share')
  checkShare(custodianShare, 'the custodian’s share')
  return p.hmacSha256(
    concatBytes(serverShare, custodianShare),
    concatBytes(utf8('CARATS/v1/secret'), u16(emission), u16(block)),
  )
}

/** SHA256(share) in lowercase hex: what each party is shown and the certificate prints. */
export const shareHash = (p: Primitives, share: Uint8Array): string => toHex(p.sha256(share))

/** Why typed dice rolls are refused: a character that is not a roll, or too few rolls. */
export type DiceProblem = { problem: 'not-a-roll'; char: string } | { problem: 'too-few'; count: number }

/**
 * The rolls of a die (digits 1 to 6; spaces, commas, semicolons and line breaks between them are
 * ignored), at least MIN_DICE_ROLLS of them: the digits alone, or why they are refused.
 */
export function diceRolls(text: string): { rolls: string } | DiceProblem {
  const rolls = text.replace(/[\s,;]+/g, '')
  const bad = rolls.search(/[^1-6]/)
  if (bad >= 0) return { problem: 'not-a-roll', char: [...rolls.slice(bad)][0] }
  if (rolls.length < MIN_DICE_ROLLS) return { problem: 'too-few', count: rolls.length }
  return { rolls }
}

/** What is wrong with typed dice rolls, in English. */
export function diceProblemText(p: DiceProblem): string {
  return p.problem === 'not-a-roll'
    ? `“${p.char}” is not the roll of a die: type digits 1 to 6 only`
    : `${p.count} rolls typed: at least ${MIN_DICE_ROLLS} are needed for a share of 32 bytes`
}

/** C = SHA256(ascii("CARATS/v1/dice") || ascii(rolls)), the rolls as digits without separators. */
export function shareFromDice(p: Primitives, rolls: string): Uint8Array {
  const checked = diceRolls(rolls)
  if ('problem' in checked) throw new Error(diceProblemText(checked))
  return p.sha256(concatBytes(utf8('CARATS/v1/dice'), utf8(checked.rolls)))
}

function checkShare(share: Uint8Array, what: string): void {
  if (share.length !== SHARE_BYTES) throw new Error(`${what} is ${share.length} bytes; a share is ${SHARE_BYTES} bytes`)
}
