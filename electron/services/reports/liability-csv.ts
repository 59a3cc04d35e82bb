/**
 * The liability report as a CSV file (liability.ts): a row per emission, block and prize tier;
 * after each block's tiers, the block's row (no amount); after each emission's blocks, the
 * emission's row (no block); last, the total (no emission). Every row carries the identity's
 * parts and its gap, so a spreadsheet can add them up again.
 */
import type { CsvFile, LiabilityFigures, LiabilityReport } from '../../contract'
import { writeCsv, type CsvCell, type CsvColumn, type CsvStyle } from '../csv'

const COLUMNS: CsvColumn[] = [
  { id: 'emission', kind: 'int' },
  { id: 'demo_emission', kind: 'yes-no' },
  { id: 'block', kind: 'int' },
  { id: 'amount_cents', kind: 'cents' },
  { id: 'claimed', kind: 'yes-no' },
  { id: 'initial', kind: 'int' },
  { id: 'sold', kind: 'int' },
  { id: 'won_cents', kind: 'cents' },
  { id: 'credited_cents', kind: 'cents' },
  { id: 'paid_cents', kind: 'cents' },
  { id: 'outstanding_cents', kind: 'cents' },
  { id: 'expired_cents', kind: 'cents' },
  { id: 'void_cents', kind: 'cents' },
  { id: 'unsold_cents', kind: 'cents' },
  { id: 'table_cents', kind: 'cents' },
  { id: 'gap_cents', kind: 'cents' },
]

const parts = (f: LiabilityFigures): CsvCell[] => [
  f.wonCents,
  f.creditedCents,
  f.paidCents,
  f.outstandingCents,
  f.expiredCents,
  f.voidCents,
  f.unsoldCents,
  f.tableCents,
  f.gapCents,
]

function rowsOf(r: LiabilityReport): CsvCell[][] {
  const rows: CsvCell[][] = []
  for (const e of r.emissions) {
    for (const b of e.blocks) {
      for (const t of b.tiers)
        rows.push([e.emission, e.demo, b.block, t.amountCents, t.claimed, t.units, t.sold, ...parts(t.figures)])
      rows.push([e.emission, e.demo, b.block, null, null, null, null, ...parts(b.figures)])
    }
    rows.push([e.emission, e.demo, null, null, null, null, null, ...parts(e.figures)])
  }
  rows.push([null, null, null, null, null, null, null, ...parts(r.total)])
  return rows
}

export function liabilityCsv(r: LiabilityReport, style: CsvStyle): CsvFile {
  const filters = [
    { id: 'emission', kind: 'int', value: r.emission },
    { id: 'as_of_day', kind: 'day', value: r.day },
    { id: 'include_demo', kind: 'yes-no', value: r.emission === null ? r.includeDemo : null },
  ] as const
  const content = writeCsv({ columns: COLUMNS, rows: rowsOf(r), about: { asOf: r.asOf, filters: [...filters] } }, style)
  const scope = r.emission === null ? '' : `E${String(r.emission).padStart(4, '0')}-`
  return { fileName: `liability-${scope}${r.asOf.slice(0, 10)}.csv`, content }
}
