/**
 * A key ceremony run the way two people run it (DERIVATION.md §1.1), for the tests, fixtures and
 * benchmarks that generate a real emission without the screens: one person opens it, another
 * commits to 32 random bytes, then reveals them (CeremonyService.contribute). A real (non-demo)
 * emission is generated only after one.
 */
import type { KeyCeremony } from '../../electron/contract/types'
import type { CeremonyService } from '../../electron/services/emissions'
import type { Actor } from '../../electron/services/common'

/** Who opens the ceremony and who commits to and reveals the second share, unless told otherwise. */
export const CEREMONY_STARTER: Actor = { name: 'otto', role: 'operator' }
export const CEREMONY_CUSTODIAN: Actor = { name: 'aude', role: 'auditor' }

/** 32 random bytes in hex, as the custodian's window draws them (crypto.getRandomValues). */
export function randomShareHex(): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('hex')
}

/** Starts the emission's ceremony as `starter` and completes it with `custodian`'s random share. */
export function completeCeremony(
  ceremony: CeremonyService,
  emission: number,
  who: { starter?: Actor; custodian?: Actor } = {},
): KeyCeremony {
  const starter = who.starter ?? CEREMONY_STARTER
  const custodian =
    who.custodian ?? (starter.name.toLowerCase() === CEREMONY_CUSTODIAN.name ? CEREMONY_STARTER : CEREMONY_CUSTODIAN)
  ceremony.start(starter, emission)
  return ceremony.contribute(custodian, emission, { share: randomShareHex() })
}
