/** Types of the outsiders' bundle check (carats-verify-bundle.mjs), for the project's tests only. */
import type { BundleBlockResult, BundleResult } from './carats-verify.mjs'
export class UnreadableBundle extends Error {}
export function verifyBundle(
  dir: string,
  opts?: {
    onBlock?: (b: BundleBlockResult) => void
    threads?: number
    progress?: (label: string) => (done: number, total: number) => void
  },
): Promise<BundleResult>
export function bundleCommand(dir: string, print?: (line: string) => void, opts?: { threads?: number }): Promise<number>
export function secretFromShares(
  serverShare: Uint8Array,
  custodianShare: Uint8Array,
  emission: number,
  block: number,
): Uint8Array
