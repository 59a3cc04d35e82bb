/**
 * The game definition as data, its validator and the figures derived from it.
 * Every total, ratio and count shown anywhere is computed from the rows here, never typed in.
 */

export interface PrizeTier {
  /** The unit's single, indivisible prize, in euro cents. */
  amountCents: number
  /** How many units of a block carry this prize. */
  count: number
  /** The row total as printed in the regulation, if any: checked against amount × count. */
  printedTotalCents?: number
}

export interface WeightedComposition {
  /** The amounts shown under the matching numbers; they add up to the prize. */
  partsCents: readonly number[]
  weight: number
}

export interface CompositionRule {
  amountCents: number
  options: readonly WeightedComposition[]
}

export interface DecoyWeight {
  amountCents: number
  weight: number
}

export interface GameDefinition {
  id: string
  name: string
  unitPriceCents: number
  blockSize: number
  /** The only numbers that may appear, in the order used by ticket synthesis. */
  numbers: readonly number[]
  winningCells: number
  yoursCells: number
  /** The prize table of one block, largest prize first. */
  tiers: readonly PrizeTier[]
  /** Amounts that may be printed under "your numbers", ascending; a unit record stores their index. */
  printableAmountsCents: readonly number[]
  compositions: readonly CompositionRule[]
  decoyWeights: readonly DecoyWeight[]
  /** Figures printed in the regulation, if any: checked against the computed ones. */
  printed?: { prizesPerBlock?: number; prizeTotalCents?: number }
}

export interface DerivedFigures {
  prizesPerBlock: number
  prizeTotalCents: number
  losingUnits: number
  salesPerBlockCents: number
  /** prize total / sales, as a fraction (0.7199975 for 500 000 CARATS). */
  payoutRatio: number
  /** One winning unit in this many (3.90). */
  oddsOneIn: number
}

/** Draws are made from 16-bit words: a weight table must fit. */
export const MAX_TOTAL_WEIGHT = 65_535
/** Serials carry seven digits of unit index. */
export const MAX_BLOCK_SIZE = 10_000_000

const EUR = (cents: number) => `${(cents / 100).toLocaleString('en-US', { maximumFractionDigits: 2 })} EUR`

function isPositiveInt(n: unknown): n is number {
  return typeof n === 'number' && Number.isSafeInteger(n) && n > 0
}

/** Every reason the definition cannot be used; empty when it is sound. */
export function validateDefinition(def: GameDefinition): string[] {
  const errors: string[] = []
  const err = (m: string) => errors.push(m)

  if (!isPositiveInt(def.unitPriceCents))
    err(`unit price must be a positive whole number of cents, got ${def.unitPriceCents}`)
  if (!isPositiveInt(def.blockSize) || def.blockSize > MAX_BLOCK_SIZE)
    err(`block size must be a whole number from 1 to ${MAX_BLOCK_SIZE}, got ${def.blockSize}`)
  if (!isPositiveInt(def.winningCells))
    err(`the winning-numbers zone must have at least one cell, got ${def.winningCells}`)
  if (!isPositiveInt(def.yoursCells)) err(`the "your numbers" zone must have at least one cell, got ${def.yoursCells}`)

  const numbers = def.numbers ?? []
  const seenNumbers = new Set<number>()
  for (const n of numbers) {
    if (!Number.isInteger(n) || n < 1 || n > 255) err(`number ${n} is not a whole number from 1 to 255`)
    if (seenNumbers.has(n)) err(`number ${n} is listed twice`)
    seenNumbers.add(n)
  }
  // A losing unit shows the winning numbers and, beside them, only numbers that are not winning.
  if (numbers.length < def.winningCells + def.yoursCells) {
    err(
      `the number list is too short for the zones: ${numbers.length} numbers, but a losing unit needs ${def.winningCells} winning numbers plus ${def.yoursCells} other numbers (${def.winningCells + def.yoursCells})`,
    )
  }

  const printable = def.printableAmountsCents ?? []
  if (printable.length === 0) err('no printable amount is defined')
  if (printable.length > 255) err(`at most 255 printable amounts, got ${printable.length}`)
  printable.forEach((a, i) => {
    if (!isPositiveInt(a)) err(`printable amount ${a} is not a positive whole number of cents`)
    if (i > 0 && a <= printable[i - 1]) err('printable amounts must be listed in ascending order without repeats')
  })
  const printableSet = new Set(printable)

  const tiers = def.tiers ?? []
  if (tiers.length === 0) err('the prize table is empty')
  if (tiers.length > 254) err(`at most 254 prize tiers, got ${tiers.length}`)
  const tierAmounts = new Set<number>()
  let prizes = 0
  let total = 0
  for (const t of tiers) {
    if (!isPositiveInt(t.amountCents)) err(`prize amount ${t.amountCents} is not a positive whole number of cents`)
    if (!isPositiveInt(t.count))
      err(`prize ${EUR(t.amountCents)}: the number of prizes must be a positive whole number, got ${t.count}`)
    if (tierAmounts.has(t.amountCents)) err(`prize ${EUR(t.amountCents)} appears in two rows of the table`)
    tierAmounts.add(t.amountCents)
    if (t.printedTotalCents !== undefined && t.printedTotalCents !== t.amountCents * t.count) {
      err(
        `prize ${EUR(t.amountCents)}: the row total ${EUR(t.printedTotalCents)} does not add up (${t.count} × ${EUR(t.amountCents)} = ${EUR(t.amountCents * t.count)})`,
      )
    }
    prizes += t.count
    total += t.amountCents * t.count
  }
  if (prizes > def.blockSize) err(`more prizes (${prizes}) than units in a block (${def.blockSize})`)
  if (def.printed?.prizesPerBlock !== undefined && def.printed.prizesPerBlock !== prizes) {
    err(`the printed number of prizes ${def.printed.prizesPerBlock} does not add up: the rows hold ${prizes}`)
  }
  if (def.printed?.prizeTotalCents !== undefined && def.printed.prizeTotalCents !== total) {
    err(`the printed prize total ${EUR(def.printed.prizeTotalCents)} does not add up: the rows total ${EUR(total)}`)
  }

  const maxParts = Math.min(def.winningCells, def.yoursCells)
  const ruleAmounts = new Set<number>()
  for (const rule of def.compositions ?? []) {
    const label = `compositions of ${EUR(rule.amountCents)}`
    if (!tierAmounts.has(rule.amountCents)) err(`${label}: ${EUR(rule.amountCents)} is not a prize of the table`)
    if (ruleAmounts.has(rule.amountCents)) err(`${label} are given twice`)
    ruleAmounts.add(rule.amountCents)
    if (rule.options.length === 0) err(`${label}: no composition is listed`)
    let weights = 0
    for (const opt of rule.options) {
      const shown = opt.partsCents.map(EUR).join(' + ')
      const sum = opt.partsCents.reduce((a, b) => a + b, 0)
      if (opt.partsCents.length === 0) err(`${label}: an empty composition`)
      if (opt.partsCents.length > maxParts)
        err(`${label}: ${shown} has ${opt.partsCents.length} parts, more than the ${maxParts} winning numbers`)
      if (sum !== rule.amountCents) err(`${label}: ${shown} sums to ${EUR(sum)}, not ${EUR(rule.amountCents)}`)
      for (const p of opt.partsCents)
        if (!printableSet.has(p)) err(`${label}: part ${EUR(p)} is not a printable amount`)
      if (!isPositiveInt(opt.weight)) err(`${label}: ${shown} must have a positive whole weight, got ${opt.weight}`)
      weights += opt.weight
    }
    if (weights > MAX_TOTAL_WEIGHT) err(`${label}: the weights add up to ${weights}, more than ${MAX_TOTAL_WEIGHT}`)
  }
  for (const a of tierAmounts) if (!ruleAmounts.has(a)) err(`prize ${EUR(a)} has no composition`)

  let decoyTotal = 0
  const decoySeen = new Set<number>()
  for (const d of def.decoyWeights ?? []) {
    if (!printableSet.has(d.amountCents)) err(`decoy amount ${EUR(d.amountCents)} is not a printable amount`)
    if (decoySeen.has(d.amountCents)) err(`decoy amount ${EUR(d.amountCents)} is weighted twice`)
    decoySeen.add(d.amountCents)
    if (!Number.isSafeInteger(d.weight) || d.weight < 0)
      err(`decoy amount ${EUR(d.amountCents)}: the weight must be a whole number ≥ 0, got ${d.weight}`)
    decoyTotal += d.weight
  }
  if (decoyTotal <= 0) err('the decoy weights add up to zero: no amount can be drawn')
  if (decoyTotal > MAX_TOTAL_WEIGHT) err(`the decoy weights add up to ${decoyTotal}, more than ${MAX_TOTAL_WEIGHT}`)

  return errors
}

export class DefinitionError extends Error {
  readonly code = 'DEFINITION_INVALID'
  constructor(readonly reasons: string[]) {
    super(`invalid game definition: ${reasons.join('; ')}`)
  }
}

export function assertValidDefinition(def: GameDefinition): void {
  const reasons = validateDefinition(def)
  if (reasons.length > 0) throw new DefinitionError(reasons)
}

export function deriveFigures(def: GameDefinition): DerivedFigures {
  const prizesPerBlock = def.tiers.reduce((a, t) => a + t.count, 0)
  const prizeTotalCents = def.tiers.reduce((a, t) => a + t.amountCents * t.count, 0)
  const salesPerBlockCents = def.unitPriceCents * def.blockSize
  return {
    prizesPerBlock,
    prizeTotalCents,
    losingUnits: def.blockSize - prizesPerBlock,
    salesPerBlockCents,
    payoutRatio: prizeTotalCents / salesPerBlockCents,
    oddsOneIn: def.blockSize / prizesPerBlock,
  }
}

/** Index of the tier paying `amountCents`, or -1. */
export function tierIndexOf(def: GameDefinition, amountCents: number): number {
  return def.tiers.findIndex((t) => t.amountCents === amountCents)
}
