/**
 * Commitment version 2: a chunk's leaf hashes the salted hashes of its units, not their records,
 * so that a proof for one unit shows that unit's record and salt and only hashes of the others.
 * Exact bytes: game-core/DERIVATION.md §7.
 *
 *   K_salts = HMAC(S, "CARATS/v2/salts" ‖ u16(e) ‖ u16(b))
 *   salt_u  = KS(K_salts, 2u, 32)
 *   h_u     = SHA256(0x02 ‖ salt_u ‖ record_u)
 *   leaf_i  = SHA256(0x00 ‖ h_{128i} ‖ … ‖ h_{128i+n-1})
 */
import type { Primitives } from './primitives'
import { concatBytes, u16be, utf8 } from './primitives'
import type { BlockRef } from './block'

export type CommitmentVersion = 1 | 2
export const COMMITMENT_VERSIONS: readonly CommitmentVersion[] = [1, 2]
/** The version every block generated from now on is committed under. */
export const LATEST_COMMITMENT_VERSION: CommitmentVersion = 2

export const SALT_BYTES = 32
export const UNIT_HASH_PREFIX = 0x02

export function isCommitmentVersion(v: unknown): v is CommitmentVersion {
  return v === 1 || v === 2
}

export function deriveSaltKey(prim: Primitives, ref: BlockRef): Uint8Array {
  if (!(ref.secret instanceof Uint8Array) || ref.secret.length !== 32) throw new Error('a block secret is 32 bytes')
  return prim.hmacSha256(ref.secret, concatBytes(utf8('CARATS/v2/salts'), u16be(ref.emission), u16be(ref.block)))
}

/** The salts of units first … first+count-1, 32 bytes each, back to back. */
export function unitSalts(prim: Primitives, saltKey: Uint8Array, first: number, count: number): Uint8Array {
  return prim.keystream(saltKey, first * (SALT_BYTES / 16), count * SALT_BYTES)
}

/** h_u = SHA256(0x02 ‖ salt ‖ record). */
export function unitHash(prim: Primitives, salt: Uint8Array, record: Uint8Array): Uint8Array {
  const msg = new Uint8Array(1 + SALT_BYTES + record.length)
  msg[0] = UNIT_HASH_PREFIX
  msg.set(salt, 1)
  msg.set(record, 1 + SALT_BYTES)
  return prim.sha256(msg)
}

/**
 * Hashes `count` units whose records are back to back in `records` and whose salts are in
 * `salts` (at `saltOffset`); writes each unit's 32-byte hash into `out` at `o`.
 */
export class UnitHasher {
  private readonly msg: Uint8Array

  constructor(
    private readonly prim: Primitives,
    private readonly recordBytes: number,
  ) {
    this.msg = new Uint8Array(1 + SALT_BYTES + recordBytes)
    this.msg[0] = UNIT_HASH_PREFIX
  }

  hashUnits(
    records: Uint8Array,
    count: number,
    salts: Uint8Array,
    saltOffset: number,
    out: Uint8Array,
    o: number,
  ): void {
    if (this.prim.sha256Many) {
      // all in one call: 0x02, the salt, the record, for each unit
      const rb = this.recordBytes
      out.set(this.prim.sha256Many(UNIT_HASH_PREFIX, salts.subarray(saltOffset), SALT_BYTES, records, rb, count), o)
      return
    }
    const rb = this.recordBytes
    const msg = this.msg
    for (let i = 0; i < count; i++) {
      msg.set(salts.subarray(saltOffset + i * SALT_BYTES, saltOffset + (i + 1) * SALT_BYTES), 1)
      msg.set(records.subarray(i * rb, (i + 1) * rb), 1 + SALT_BYTES)
      out.set(this.prim.sha256(msg), o + 32 * i)
    }
  }
}
