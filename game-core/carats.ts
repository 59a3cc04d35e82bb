import type { GameDefinition } from './rules'

const euros = (n: number) => n * 100

/**
 * 500 000 CARATS, from the regulation of 16 May 2013 (arts. 2–4) and SPEC.md §2.
 * The regulation's grand total line ("28 857 00 €") is a typo and is not carried here:
 * the total is computed from the rows (28 857 500 €). Its row totals and prize count are kept
 * as printed, and the validator checks them.
 */
export const CARATS: GameDefinition = {
  id: 'carats-500000-v1',
  name: '500 000 CARATS',
  unitPriceCents: euros(5),
  blockSize: 8_016_000,
  numbers: [1, 2, 3, 4, 6, 7, 8, 9, 11, 12, 13, 14, ...Array.from({ length: 34 }, (_, i) => 16 + i)],
  winningCells: 6,
  yoursCells: 24,
  tiers: [
    { amountCents: euros(500_000), count: 2, printedTotalCents: euros(1_000_000) },
    { amountCents: euros(10_000), count: 2, printedTotalCents: euros(20_000) },
    { amountCents: euros(1_000), count: 1_000, printedTotalCents: euros(1_000_000) },
    { amountCents: euros(100), count: 80_160, printedTotalCents: euros(8_016_000) },
    { amountCents: euros(50), count: 40_000, printedTotalCents: euros(2_000_000) },
    { amountCents: euros(15), count: 200_000, printedTotalCents: euros(3_000_000) },
    { amountCents: euros(10), count: 1_030_000, printedTotalCents: euros(10_300_000) },
    { amountCents: euros(5), count: 704_300, printedTotalCents: euros(3_521_500) },
  ],
  printed: { prizesPerBlock: 2_055_464 },
  printableAmountsCents: [5, 10, 15, 50, 100, 1_000, 10_000, 500_000].map(euros),
  // A single matching number is the common case; every other composition of the amount into
  // at most six printable amounts is possible (SPEC §2), with smaller weights.
  compositions: [
    { amountCents: euros(500_000), options: [{ partsCents: [euros(500_000)], weight: 1 }] },
    { amountCents: euros(10_000), options: [{ partsCents: [euros(10_000)], weight: 1 }] },
    { amountCents: euros(1_000), options: [{ partsCents: [euros(1_000)], weight: 1 }] },
    {
      amountCents: euros(100),
      options: [
        { partsCents: [100], weight: 60 },
        { partsCents: [50, 50], weight: 15 },
        { partsCents: [50, 15, 15, 15, 5], weight: 5 },
        { partsCents: [50, 15, 15, 10, 10], weight: 5 },
        { partsCents: [50, 15, 15, 10, 5, 5], weight: 5 },
        { partsCents: [50, 15, 10, 10, 10, 5], weight: 5 },
        { partsCents: [50, 10, 10, 10, 10, 10], weight: 5 },
      ].map((o) => ({ ...o, partsCents: o.partsCents.map(euros) })),
    },
    {
      amountCents: euros(50),
      options: [
        { partsCents: [50], weight: 60 },
        { partsCents: [15, 15, 15, 5], weight: 5 },
        { partsCents: [15, 15, 10, 10], weight: 5 },
        { partsCents: [15, 15, 10, 5, 5], weight: 5 },
        { partsCents: [15, 15, 5, 5, 5, 5], weight: 5 },
        { partsCents: [15, 10, 10, 10, 5], weight: 5 },
        { partsCents: [15, 10, 10, 5, 5, 5], weight: 5 },
        { partsCents: [10, 10, 10, 10, 10], weight: 5 },
        { partsCents: [10, 10, 10, 10, 5, 5], weight: 5 },
      ].map((o) => ({ ...o, partsCents: o.partsCents.map(euros) })),
    },
    {
      amountCents: euros(15),
      options: [
        { partsCents: [15], weight: 70 },
        { partsCents: [10, 5], weight: 20 },
        { partsCents: [5, 5, 5], weight: 10 },
      ].map((o) => ({ ...o, partsCents: o.partsCents.map(euros) })),
    },
    {
      amountCents: euros(10),
      options: [
        { partsCents: [10], weight: 80 },
        { partsCents: [5, 5], weight: 20 },
      ].map((o) => ({ ...o, partsCents: o.partsCents.map(euros) })),
    },
    { amountCents: euros(5), options: [{ partsCents: [euros(5)], weight: 1 }] },
  ],
  // Amounts under non-matching numbers: the same draw on losing and winning units.
  decoyWeights: [
    { amountCents: euros(5), weight: 300 },
    { amountCents: euros(10), weight: 250 },
    { amountCents: euros(15), weight: 150 },
    { amountCents: euros(50), weight: 100 },
    { amountCents: euros(100), weight: 90 },
    { amountCents: euros(1_000), weight: 60 },
    { amountCents: euros(10_000), weight: 35 },
    { amountCents: euros(500_000), weight: 15 },
  ],
}
