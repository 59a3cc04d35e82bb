/**
 * The types the audit log's parts share (README.md beside this file).
 */

/** An entry of the log as the ledger stores it. */
export interface AuditRow {
  seq: number
  at: string
  actor: string
  action: string
  object: string
  details: string
  prev_hash: string
  hash: string
}

/** The kinds of rows sealed to the log (seals.ts SEAL_SPECS says their tables and fields). */
export type SealKind = 'user' | 'claim' | 'party' | 'emission' | 'ceremony'

/** A sealed row: its kind and its key as text. */
export interface RowRef {
  kind: SealKind
  key: string
}
