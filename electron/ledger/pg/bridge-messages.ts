/** What the calling thread and the PostgreSQL connection's thread (pg-bridge-worker.ts) say to each other. */
export type Param = string | number | bigint | Uint8Array | null

export type BridgeRequest =
  | { op: 'connect' }
  | { op: 'query'; sql: string; params: Param[]; array: boolean }
  /** COPY … FROM STDIN with the rows as text (tab-separated, one per line) or as a whole binary COPY (binary-copy.ts). */
  | { op: 'copy'; sql: string; data: string | Uint8Array }
  /** The next `count` rows of a cursor, declared on its first fetch. */
  | { op: 'fetch'; cursor: number; sql: string; params: Param[]; count: number; array: boolean }
  | { op: 'closeCursor'; cursor: number }
  /** The next chunk of a binary COPY of `width` bigint columns, started on its first request (scans.ts). */
  | { op: 'scan'; scan: number; sql: string; width: number; first: boolean }
  | { op: 'closeScan'; scan: number }
  | { op: 'close' }

export interface BridgeRows {
  rows: unknown[]
  changes: number
  /** A scan's chunk: one column of numbers each (NaN for NULL), `changes` rows long. */
  columns?: Float64Array[]
  /** A scan's last answer: no rows left. */
  done?: boolean
}

export interface BridgeError {
  message: string
  code?: string
  detail?: string
  table?: string
  column?: string
  constraint?: string
  /**
   * The connection is gone (the server restarted, failed over, or ended it): 'unsent' when it was
   * known gone before this request (nothing of it reached the server), 'sent' when it went while
   * the request ran (it may have reached the server).
   */
  lost?: 'sent' | 'unsent'
}

export type BridgeAnswer = ({ ok: true } & BridgeRows) | { ok: false; error: BridgeError }
