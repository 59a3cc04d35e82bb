/**
 * The key ceremony's known-answer vectors (DERIVATION.md §1.1, §9): two sample shares, their
 * hashes, the secrets they give for three blocks (one with numbers above 255, so that the
 * big-endian u16 shows), and a share read from dice as a custodian types them.
 */
import { createHash } from 'node:crypto'
import { toHex } from '../game-core/primitives'
import { blockSecretFromShares, diceRolls, shareFromDice, shareHash } from '../game-core/seeding'
import { nodePrimitives as prim } from '../electron/crypto/node-primitives'

const sample = (label: string) => new Uint8Array(createHash('sha256').update(`carats-vectors/${label}`).digest())

/** 100 rolls as a custodian might type them: groups of five, a line break after fifty. */
const TYPED_ROLLS =
  '52316 41625 33461 25164 61234 15536 24416 63125 31452 62614\n' +
  '14253 36612 45131 26345 52661 13424 64213 35126 21564 43152\n'

export function ceremonyVectors() {
  const A = sample('server-share')
  const C = sample('custodian-share')
  const blocks = [
    { emission: 7, block: 3 },
    { emission: 7, block: 4 },
    { emission: 258, block: 513 },
  ]
  const checked = diceRolls(TYPED_ROLLS)
  if ('problem' in checked) throw new Error('the sample rolls are refused')
  const D = shareFromDice(prim, TYPED_ROLLS)
  return {
    note: 'two-person seeding (§1.1): S = HMAC(A || C, ascii("CARATS/v1/secret") || u16(e) || u16(b)); serverHash = SHA256(A), custodianHash = SHA256(C); a dice share is SHA256(ascii("CARATS/v1/dice") || ascii(rolls)), the rolls without separators',
    serverShare: toHex(A),
    serverHash: shareHash(prim, A),
    custodianShare: toHex(C),
    custodianHash: shareHash(prim, C),
    secrets: blocks.map((r) => ({ ...r, secret: toHex(blockSecretFromShares(prim, A, C, r.emission, r.block)) })),
    dice: {
      typed: TYPED_ROLLS,
      rolls: checked.rolls,
      share: toHex(D),
      hash: shareHash(prim, D),
      secrets: [{ emission: 7, block: 3, secret: toHex(blockSecretFromShares(prim, A, D, 7, 3)) }],
    },
  }
}
