/**
 * The careful import's checks across lines, once every line has been read on its own: one line
 * per unit, and for each emission an unbroken run of units from its next unsold one (SPEC §4:
 * units sell in index order within a block, blocks in order).
 */
import type { GoodLines } from './lines'
import { problem, type Problem } from './problems'
import { nextPosition, positionOf, serialAt, soldOutAt, type EmissionInfo } from './rules'

export type { EmissionInfo } from './rules'
/** The lines to write for one emission: kept[from … to). */
export type Run = { emission: number; from: number; to: number }
type Bad = (line: number, p: Problem) => void

/**
 * In unit order: the first line on each unit claims it (a second is refused), a claim refused
 * for its unit's state is said, and the good lines are kept in runs per emission. `placed` is
 * the first line on each unit, bad or not (its place in `good`): the order is judged over these.
 */
export function claimUnits(good: GoodLines, bad: Bad): { runs: Run[]; kept: number[]; placed: number[] } {
  const order = good.byKey()
  const runs: { emission: number; from: number; to: number }[] = []
  const kept: number[] = []
  /** The first line on each unit, bad or not (its place in `good`): the order is judged over these. */
  const placed: number[] = []
  let lastKey = -1
  let claimedBy = 0
  for (const g of order) {
    const n = good.line[g]
    if (good.key[g] === lastKey) {
      bad(
        n,
        problem(
          'UNIT_TWICE',
          { serial: good.serial[g], first: claimedBy },
          `unit ${good.serial[g]} is also sold at line ${claimedBy}`,
        ),
      )
      continue
    }
    lastKey = good.key[g]
    claimedBy = n
    placed.push(g)
    const refusal = good.refusal[g]
    if (refusal !== null) bad(n, refusal)
    if (good.ok[g] === 0) continue
    const emission = good.emission[g]
    const run = runs[runs.length - 1]
    if (run && run.emission === emission) run.to++
    else runs.push({ emission, from: kept.length, to: kept.length + 1 })
    kept.push(g)
  }
  return { runs, kept, placed }
}

/**
 * Over every line that holds a unit (in unit order, so each emission's lines follow one another):
 * a unit that is not its emission's next is out of order, unless the `unplaced` lines (bad lines
 * whose unit cannot be read) may be the ones that fill the gap.
 */
export function checkOrder(
  good: GoodLines,
  placed: readonly number[],
  unplaced: number,
  emissionOf: (n: number) => EmissionInfo | null,
  bad: Bad,
): void {
  let spare = unplaced
  let expected = 0
  for (let k = 0; k < placed.length; k++) {
    const g = placed[k]
    const emission = good.emission[g]
    const e = emissionOf(emission)!
    const size = e.def.blockSize
    if (k === 0 || good.emission[placed[k - 1]] !== emission) expected = nextPosition(e)
    const at = positionOf(size, good.block[g], good.unit[g])
    if (at !== expected) {
      // a gap that the lines whose unit cannot be read may fill is theirs to explain
      const gap = at - expected
      if (gap > 0 && gap <= spare) spare -= gap
      else
        bad(
          good.line[g],
          outOfOrder(good.serial[g], soldOutAt(e, expected) ? null : serialAt(emission, expected, size)),
        )
    }
    expected = at + 1
  }
}

/** A unit out of order: `next`, the unit expected there (null: none, the emission is sold out). */
function outOfOrder(serial: string, next: string | null): Problem {
  const text = `unit ${serial} is out of order: units sell in index order within a block, blocks in order, and the next unit to sell here is ${next === null ? 'none: the emission is sold out' : next}, which the file does not carry`
  return next === null
    ? problem('OUT_OF_ORDER_SOLD_OUT', { serial }, text)
    : problem('OUT_OF_ORDER', { serial, next }, text)
}
