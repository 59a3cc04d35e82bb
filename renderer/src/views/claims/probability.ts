/**
 * A claimant's chance of at least as many claims, as a person reads it: a percentage while it is
 * one in a thousand or more ("37 %", "0,2 %"), then as odds ("1 sur 2 500 000"), which say a
 * tiny chance better than a string of zeros; 0 and 1 as they are.
 */
export function probabilityText(p: number, fmt: { pct: (x: number, digits?: number) => string; odds: (oneIn: number) => string }): string {
  if (!(p > 0)) return fmt.pct(0, 0)
  if (p >= 1) return fmt.pct(1, 0)
  if (p >= 0.001) return fmt.pct(p, p >= 0.1 ? 0 : 1)
  return fmt.odds(Math.round(1 / p))
}
