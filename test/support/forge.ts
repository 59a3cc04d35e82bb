/**
 * A hex digest made false in its first byte, whatever its true value: a test that writes
 * `ff` over the first byte passes by luck once in 256 runs, when the digest already began so.
 */
export function forgedHex(honest: string): string {
  const first = honest.slice(0, 2) === 'ff' ? '00' : 'ff'
  return `${first}${honest.slice(2)}`
}
