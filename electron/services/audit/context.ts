/**
 * The types the audit log's parts share (README.md beside this file).
 */
import type { AuditEntry } from '../../contract/types'

/** An entry of the log as the ledger stores it: the contract's entry and the hash it links to. */
export interface AuditRow extends AuditEntry {
  prev_hash: string
}

/** The kinds of rows sealed to the log (seals.ts SEAL_SPECS says their tables and fields). */
export type SealKind = 'user' | 'claim' | 'party' | 'emission' | 'ceremony'

/** A sealed row: its kind and its key as text. */
export interface RowRef {
  kind: SealKind
  key: string
}
