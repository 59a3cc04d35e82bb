/**
 * The claims' CSV export (docs/ui.md, README.md): one row per claim under the filters
 * (status, emission, player), oldest sale first, with each step's who and when, the identity
 * document's type and reference, the payment's reference, a rejection's reason and the status it
 * was rejected from, and whether the player is a related party. Written by the shared writer
 * (csv.ts) in the office or the machine form; the first line names the filters, the software's
 * version and the as-of time.
 *
 * The identity document's number is written as the audit log keeps it (its last four
 * characters, rows.ts `maskedReference`, as every Claim carries it): enough to tell two apart, not to copy one out of a
 * file that leaves the app.
 */
import type { Claim, ClaimStatus } from '../../contract/claims-types'
import type { CsvFile } from '../../contract/types'
import { writeCsv, type CsvCell, type CsvColumn, type CsvFilter, type CsvStyle } from '../csv'
import { CLAIM_CSV_WORDS } from '../csv-labels'

export interface ClaimsCsvFilters {
  status?: ClaimStatus
  emission?: number
  player?: string
}

const COLUMNS: CsvColumn[] = [
  { id: 'serial', kind: 'text' },
  { id: 'emission', kind: 'int' },
  { id: 'player', kind: 'text' },
  { id: 'prize_cents', kind: 'cents' },
  { id: 'sold_at', kind: 'time' },
  { id: 'status', kind: 'text' },
  { id: 'related', kind: 'yes-no' },
  { id: 'verified_by', kind: 'text' },
  { id: 'verified_at', kind: 'time' },
  { id: 'document', kind: 'text' },
  { id: 'document_ref', kind: 'text' },
  { id: 'approved_by', kind: 'text' },
  { id: 'approved_at', kind: 'time' },
  { id: 'signed_off_by', kind: 'text' },
  { id: 'signed_off_at', kind: 'time' },
  { id: 'paid_by', kind: 'text' },
  { id: 'paid_at', kind: 'time' },
  { id: 'payment_ref', kind: 'text' },
  { id: 'rejected_by', kind: 'text' },
  { id: 'rejected_at', kind: 'time' },
  { id: 'rejected_from', kind: 'text' },
  { id: 'reject_reason', kind: 'text' },
  // added with claim deadlines and the winner's identity (schema 17, 18): after the columns before them
  { id: 'winner', kind: 'text' },
  { id: 'payment_method', kind: 'text' },
  { id: 'expired_at', kind: 'time' },
  { id: 'assigned_to', kind: 'text' },
  { id: 'days_pending', kind: 'int' },
  { id: 'demo_emission', kind: 'yes-no' },
]

function claimRow(c: Claim, style: CsvStyle): CsvCell[] {
  const words = style.form === 'office' ? CLAIM_CSV_WORDS[style.locale] : null
  const status = (s: ClaimStatus | undefined) => (s === undefined ? null : words ? words.status[s] : s)
  const v = c.verified
  return [
    c.serial,
    c.emission,
    c.player,
    c.prizeCents,
    c.soldAt,
    status(c.status),
    c.related,
    v?.by,
    v?.at,
    v ? (words ? words.document[v.document] : v.document) : null,
    v?.reference,
    c.approved?.by,
    c.approved?.at,
    c.signedOff?.by,
    c.signedOff?.at,
    c.paid?.by,
    c.paid?.at,
    c.paid?.reference,
    c.rejected?.by,
    c.rejected?.at,
    status(c.rejected?.from),
    c.rejected?.reason,
    c.winner ? `${c.winner.initials}${c.winner.birthYear ? ` (${c.winner.birthYear})` : ''}` : null,
    c.paid?.method ? (words ? words.method[c.paid.method] : c.paid.method) : null,
    c.expired?.at,
    c.assigned?.to,
    c.daysPending,
    c.demo,
  ]
}

/** The CSV of `claims`, read under `filters` at `asOf`. */
export function claimsCsv(claims: readonly Claim[], filters: ClaimsCsvFilters, asOf: string, style: CsvStyle): CsvFile {
  const words = style.form === 'office' ? CLAIM_CSV_WORDS[style.locale] : null
  const about: CsvFilter[] = [
    {
      id: 'status',
      kind: 'text',
      value: filters.status === undefined ? null : words ? words.status[filters.status] : filters.status,
    },
    { id: 'emission', kind: 'int', value: filters.emission },
    { id: 'player', kind: 'text', value: filters.player },
  ]
  const content = writeCsv(
    { columns: COLUMNS, rows: claims.map((c) => claimRow(c, style)), about: { asOf, filters: about } },
    style,
  )
  return { fileName: `claims-${fileScope(filters)}${asOf.slice(0, 10)}.csv`, content }
}

/** "E0003-paid-": what a file name tells of its filters (a player id is left out: it may hold any character). */
function fileScope(f: ClaimsCsvFilters): string {
  const emission = f.emission === undefined ? '' : `E${String(f.emission).padStart(4, '0')}-`
  return emission + (f.status === undefined ? '' : `${f.status}-`) + (f.player === undefined ? '' : 'player-')
}
