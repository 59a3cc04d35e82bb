/** Sales are keyed by one integer so that a unit has one row at most, and needs no second index. */
export const UNIT_KEY_EMISSION = 10_000_000_000
export const UNIT_KEY_BLOCK = 10_000_000

export function unitKey(emission: number, block: number, unit: number): number {
  return emission * UNIT_KEY_EMISSION + block * UNIT_KEY_BLOCK + unit
}

export function splitUnitKey(key: number): { emission: number; block: number; unit: number } {
  return {
    emission: Math.floor(key / UNIT_KEY_EMISSION),
    block: Math.floor(key / UNIT_KEY_BLOCK) % 1000,
    unit: key % UNIT_KEY_BLOCK,
  }
}
