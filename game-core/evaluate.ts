/**
 * Evaluation of a unit's content, written without reference to how units are made: given the
 * winning numbers and "your numbers" with their amounts, which cells match and what the unit pays.
 * (Regulation art. 4.4–4.5: matching amounts add up to one indivisible prize.)
 */
import type { GameDefinition } from './rules'

export interface TicketContent {
  winning: number[]
  numbers: number[]
  amountsCents: number[]
}

export interface Evaluation {
  /** Cells of "your numbers" whose number is a winning number, in cell order. */
  matches: number[]
  prizeCents: number
  /** Rule breaks found in the content (a number outside the list, a repeat, an unprintable amount…). */
  problems: string[]
}

/** A reusable evaluator with lookup tables built once per definition (the block verifier calls it 8 million times). */
export class Evaluator {
  readonly matches: Int32Array
  matchCount = 0
  problem = ''
  private readonly allowed = new Uint8Array(256)
  private readonly markWinning = new Int32Array(256)
  private readonly markYours = new Int32Array(256)
  private readonly seenWinning = new Int32Array(256)
  private readonly seenYours = new Int32Array(256)
  private readonly printable: readonly number[]
  private readonly printableSet: Set<number>
  private readonly printableCents: Float64Array
  private readonly winningCells: number
  private readonly yoursCells: number
  private generation = 0

  constructor(private readonly def: GameDefinition) {
    for (const n of def.numbers) this.allowed[n] = 1
    this.printable = def.printableAmountsCents
    this.printableSet = new Set(def.printableAmountsCents)
    this.printableCents = Float64Array.from(def.printableAmountsCents)
    this.winningCells = def.winningCells
    this.yoursCells = def.yoursCells
    this.resetSeen()
    this.matches = new Int32Array(def.yoursCells)
  }

  /**
   * Evaluates content held in flat arrays at the given offsets; `amounts` holds cents, or indexes
   * into the printable amounts when `amountsAreIndexes`. Returns the prize in cents, or -1 with
   * `problem` set when the content breaks a rule.
   */
  run(
    winning: ArrayLike<number>,
    wo: number,
    numbers: ArrayLike<number>,
    no: number,
    amounts: ArrayLike<number>,
    ao: number,
    amountsAreIndexes: boolean,
  ): number {
    // Locals rather than fields in the loops: this runs 8 million times per block verification.
    const { winningCells, yoursCells } = this.def
    const allowed = this.allowed
    const markWinning = this.markWinning
    const markYours = this.markYours
    const printable = this.printable
    const matches = this.matches
    const gen = this.nextGeneration()
    for (let i = 0; i < winningCells; i++) {
      const n = winning[wo + i]
      if (allowed[n] !== 1) return this.fail(`winning number ${n} (diamond ${i + 1}) is not in the list of numbers`)
      if (markWinning[n] === gen) return this.fail(`winning number ${n} appears twice`)
      markWinning[n] = gen
    }
    let prize = 0
    let count = 0
    // Two loops rather than a test per cell: amounts as printable indexes (records) or as cents.
    if (amountsAreIndexes) {
      const kinds = printable.length
      for (let j = 0; j < yoursCells; j++) {
        const n = numbers[no + j]
        if (allowed[n] !== 1) return this.fail(`number ${n} (gem ${j + 1}) is not in the list of numbers`)
        if (markYours[n] === gen) return this.fail(`number ${n} appears twice in "your numbers"`)
        markYours[n] = gen
        const idx = amounts[ao + j]
        if (!(idx < kinds)) return this.fail(`the amount under gem ${j + 1} is not a printable amount`)
        if (markWinning[n] === gen) {
          prize += printable[idx]
          matches[count++] = j
        }
      }
    } else {
      for (let j = 0; j < yoursCells; j++) {
        const n = numbers[no + j]
        if (allowed[n] !== 1) return this.fail(`number ${n} (gem ${j + 1}) is not in the list of numbers`)
        if (markYours[n] === gen) return this.fail(`number ${n} appears twice in "your numbers"`)
        markYours[n] = gen
        const amount = amounts[ao + j]
        if (!this.printableSet.has(amount)) return this.fail(`the amount under gem ${j + 1} is not a printable amount`)
        if (markWinning[n] === gen) {
          prize += amount
          matches[count++] = j
        }
      }
    }
    this.matchCount = count
    this.problem = ''
    return prize
  }

  /**
   * `run` on one unit record (DERIVATION.md §5): winning numbers at rec[o+8…], "your numbers"
   * after them, then the amounts as indexes into the printable amounts. The same checks and the
   * same result as `run(rec, o + 8, rec, o + 8 + W, rec, o + 8 + W + Y, true)`, on one byte array:
   * the block verifier calls it for every unit.
   */
  runRecord(rec: Uint8Array, o: number): number {
    const W = this.winningCells
    const Y = this.yoursCells
    // -1 for a number outside the list, else the last evaluation that saw it: one load tells both.
    const seenWinning = this.seenWinning
    const seenYours = this.seenYours
    const printable = this.printableCents
    const kinds = printable.length
    const matches = this.matches
    const gen = this.nextGeneration()
    const wo = o + 8
    const no = wo + W
    const ao = no + Y
    for (let i = 0; i < W; i++) {
      const n = rec[wo + i]
      const seen = seenWinning[n]
      if (seen < 0) return this.fail(`winning number ${n} (diamond ${i + 1}) is not in the list of numbers`)
      if (seen === gen) return this.fail(`winning number ${n} appears twice`)
      seenWinning[n] = gen
    }
    let prize = 0
    let count = 0
    for (let j = 0; j < Y; j++) {
      const n = rec[no + j]
      const seen = seenYours[n]
      if (seen < 0) return this.fail(`number ${n} (gem ${j + 1}) is not in the list of numbers`)
      if (seen === gen) return this.fail(`number ${n} appears twice in "your numbers"`)
      seenYours[n] = gen
      const idx = rec[ao + j]
      if (idx >= kinds) return this.fail(`the amount under gem ${j + 1} is not a printable amount`)
      if (seenWinning[n] === gen) {
        prize += printable[idx]
        matches[count++] = j
      }
    }
    this.matchCount = count
    this.problem = ''
    return prize
  }

  /** A fresh mark for this evaluation (the marks are cleared before the counter could wrap). */
  private nextGeneration(): number {
    if (this.generation >= 0x3fffffff) {
      this.markWinning.fill(0)
      this.markYours.fill(0)
      this.resetSeen()
      this.generation = 0
    }
    return ++this.generation
  }

  private resetSeen(): void {
    for (let n = 0; n < 256; n++) {
      const v = this.allowed[n] === 1 ? 0 : -1
      this.seenWinning[n] = v
      this.seenYours[n] = v
    }
  }

  private fail(problem: string): number {
    this.problem = problem
    this.matchCount = 0
    return -1
  }
}

export function evaluateTicket(def: GameDefinition, content: TicketContent): Evaluation {
  const problems: string[] = []
  if (content.winning.length !== def.winningCells)
    problems.push(`expected ${def.winningCells} winning numbers, got ${content.winning.length}`)
  if (content.numbers.length !== def.yoursCells)
    problems.push(`expected ${def.yoursCells} of "your numbers", got ${content.numbers.length}`)
  if (content.amountsCents.length !== content.numbers.length)
    problems.push(
      `expected one amount per number, got ${content.amountsCents.length} amounts for ${content.numbers.length} numbers`,
    )
  if (problems.length > 0) return { matches: [], prizeCents: 0, problems }
  const ev = new Evaluator(def)
  const prize = ev.run(content.winning, 0, content.numbers, 0, content.amountsCents, 0, false)
  if (prize < 0) return { matches: [], prizeCents: 0, problems: [ev.problem] }
  return { matches: Array.from(ev.matches.subarray(0, ev.matchCount)), prizeCents: prize, problems }
}
