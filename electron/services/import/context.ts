/**
 * The types the import's parts share (README.md beside this file says what each part does).
 */
import type { ImportResult } from '../../contract/types'
import type { Db } from '../../ledger/db'
import type { Catalog } from '../catalog'
import type { Clock } from '../common'
import type { SalesService } from '../sales'

/** What both ways of reading a feed (stream.ts as it comes, careful.ts every line judged) take from the app. */
export interface FeedDeps {
  db: Db
  clock: Clock
  catalog: Catalog
  sales: SalesService
}

/** A run of units an import sold in one emission: the unit keys of its first and last unit (ledger/unit-key.ts). */
export interface KeySpan {
  from: number
  to: number
}

/** What an import wrote: its counts, the file's SHA-256 when its reading computed it, its first and last units, and each emission's run of new units. */
export interface ImportOutcome {
  counts: ImportResult
  sha256: string | null
  firstSerial: string | null
  lastSerial: string | null
  spans: KeySpan[]
}
