/**
 * The connection thread's bulk reads (pg-bridge-worker.ts): a binary COPY of bigint columns, read
 * ahead into chunks of columns (binary-columns.ts) while its caller works on the chunk before, a
 * few chunks at most (the stream is paused beyond). Each 'scan' request answers the next chunk;
 * the last answer says done. While a scan is open the connection is busy with its COPY: any other
 * request first reads the open scans to their end (their rows dropped), so that it cannot wait
 * behind a paused COPY for ever.
 */
import type { Client } from 'pg'
import { to as copyTo } from 'pg-copy-streams'
import type { Readable } from 'node:stream'
import { BinaryColumns, type ColumnChunk } from './binary-columns'
import type { BridgeRequest, BridgeRows } from './bridge-messages'

/** Rows per chunk: about 1.8 MB for the ledger check's seven columns. */
const CHUNK_ROWS = 32_768
/** Chunks read ahead before the COPY is paused. */
const READ_AHEAD = 3

interface Scan {
  stream: Readable
  ready: ColumnChunk[]
  ended: boolean
  failure: Error | null
  /** rows dropped rather than kept (closeScan, or another request) */
  dropping: boolean
  wake: (() => void) | null
}

const scans = new Map<number, Scan>()

/** A scan's rows are not restarted from the first once another request has closed it. */
const INTERRUPTED =
  'the bulk read was interrupted by another statement on the same connection: read its rows to the end before anything else'

function startScan(client: Client, sql: string, width: number): Scan {
  const stream = client.query(copyTo(sql))
  const scan: Scan = { stream, ready: [], ended: false, failure: null, dropping: false, wake: null }
  const parser = new BinaryColumns(width, CHUNK_ROWS, (chunk) => {
    if (scan.dropping) return
    scan.ready.push(chunk)
    if (scan.ready.length >= READ_AHEAD) stream.pause()
    wakeUp(scan)
  })
  const fail = (e: unknown) => {
    scan.failure ??= e instanceof Error ? e : new Error(String(e))
    scan.ended = true
    wakeUp(scan)
  }
  stream.on('data', (bytes: Buffer) => {
    if (scan.failure) return
    try {
      parser.push(bytes)
    } catch (e) {
      fail(e)
    }
  })
  stream.on('error', fail)
  stream.on('end', () => {
    try {
      parser.end()
    } catch (e) {
      fail(e)
    }
    scan.ended = true
    wakeUp(scan)
  })
  return scan
}

function wakeUp(scan: Scan): void {
  const wake = scan.wake
  scan.wake = null
  wake?.()
}

const changed = (scan: Scan) => new Promise<void>((resolve) => (scan.wake = resolve))

/** The scan's next chunk (its columns transferred, not copied); the last answer says done. */
export async function nextChunk(client: Client, req: Extract<BridgeRequest, { op: 'scan' }>): Promise<BridgeRows> {
  let scan = scans.get(req.scan)
  if (!scan && !req.first) throw new Error(INTERRUPTED)
  if (!scan) scans.set(req.scan, (scan = startScan(client, req.sql, req.width)))
  while (scan.ready.length === 0 && !scan.ended) await changed(scan)
  const chunk = scan.ready.shift()
  if (scan.stream.isPaused() && scan.ready.length < READ_AHEAD) scan.stream.resume()
  if (!chunk) {
    scans.delete(req.scan)
    if (scan.failure) throw scan.failure
    return { rows: [], changes: 0, columns: [], done: true }
  }
  return { rows: [], changes: chunk.rows, columns: chunk.columns, done: false }
}

/** The scan read to its end, its rows dropped: the connection is free again. */
export async function closeScan(id: number): Promise<void> {
  const scan = scans.get(id)
  if (!scan) return
  scans.delete(id)
  scan.dropping = true
  scan.ready.length = 0
  scan.stream.resume()
  while (!scan.ended) await changed(scan)
}

/** Every open scan but `keep` closed (before another request). */
export async function closeScans(keep?: number): Promise<void> {
  for (const id of [...scans.keys()]) if (id !== keep) await closeScan(id)
}

/** The scans of a connection that is gone, forgotten (its streams ended with it). */
export function forgetScans(): void {
  scans.clear()
}
