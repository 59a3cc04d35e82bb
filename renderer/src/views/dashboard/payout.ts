import type { Dashboard } from '../../../../electron/contract'
import { percentDecimals } from '../../format'

type Pct = (x: number, digits?: number, minDigits?: number) => string

/**
 * The realised payout beside the theoretical one, both with the decimals the theoretical needs
 * (71,99975 % beside 69,12346 %, never "69 %"); no realised payout without sales.
 */
export function payoutTexts(
  d: Pick<Dashboard, 'realisedPayout' | 'theoreticalPayout'>,
  pct: Pct,
): { realised: string | null; theoretical: string; digits: number } {
  const digits = percentDecimals(d.theoreticalPayout)
  return {
    realised: d.realisedPayout === null ? null : pct(d.realisedPayout, digits, digits),
    theoretical: pct(d.theoreticalPayout, digits, digits),
    digits,
  }
}
