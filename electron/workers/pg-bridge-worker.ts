/**
 * The thread that holds a PostgreSQL ledger's connection (electron/ledger/pg/bridge.ts): it runs
 * each statement its parent sends, posts the answer, then wakes the parent, which waits for it as
 * it waits for better-sqlite3. One connection, one statement at a time: requests posted without
 * waiting (COPY chunks) queue here and are run and answered in the order they came.
 */
import { Client, types, type QueryConfig, type QueryResult } from 'pg'
import { from as copyFrom } from 'pg-copy-streams'
import { workerData, type MessagePort } from 'node:worker_threads'
import type { BridgeAnswer, BridgeRequest, BridgeRows } from '../ledger/pg/bridge-messages'
import { clientConfig } from '../ledger/pg/client-config'
import { closeScan, closeScans, nextChunk } from './pg-scans'

// The ledger's integers are below 2^53 (unit keys, cents, milliseconds): numbers, as SQLite gives.
types.setTypeParser(types.builtins.INT8, (v) => Number(v))
types.setTypeParser(types.builtins.NUMERIC, (v) => Number(v))
// SQLite answers a comparison with 1 or 0; the services compare with numbers.
types.setTypeParser(types.builtins.BOOL, (v) => (v === 't' ? 1 : 0))

const { url, port, flag } = workerData as { url: string; port: MessagePort; flag: Int32Array }
let lost: Error | null = null as Error | null
// A failure outside any request (the connection's socket, a stream) is kept and answered to
// every request from then on, rather than ending the thread under its waiting caller.
process.on('uncaughtException', (e) => {
  lost ??= e
})
// A thread that stops anyway wakes its caller with why, which it then says.
process.on('exit', (code) => {
  port.postMessage({ ok: false, error: { message: `the PostgreSQL connection thread stopped (exit code ${code})${lost ? `: ${lost.message}` : ''}` } })
  Atomics.add(flag, 0, 1)
  Atomics.notify(flag, 0)
})

/** The connection, made by the first request ('connect'): settings it cannot read are that request's answer. */
let client: Client
async function connectClient(): Promise<void> {
  client = new Client(clientConfig(url))
  client.on('error', (e) => {
    lost = e
  })
  await client.connect()
}

const cursors = new Map<number, string>()

/** A statement for pg: rows as arrays for pluck() and raw(). */
function config(text: string, values: unknown[], array: boolean): QueryConfig {
  return (array ? { text, values, rowMode: 'array' } : { text, values }) as QueryConfig
}

async function query(req: Extract<BridgeRequest, { op: 'query' }>): Promise<BridgeRows> {
  const res: QueryResult | QueryResult[] = await client.query(config(req.sql, req.params, req.array))
  const last = Array.isArray(res) ? res[res.length - 1] : res
  return { rows: last.rows ?? [], changes: last.rowCount ?? 0 }
}

async function copyIn(req: Extract<BridgeRequest, { op: 'copy' }>): Promise<BridgeRows> {
  const stream = client.query(copyFrom(req.sql))
  await new Promise<void>((resolve, reject) => {
    stream.on('error', reject)
    stream.on('finish', resolve)
    stream.end(typeof req.data === 'string' ? req.data : Buffer.from(req.data.buffer, req.data.byteOffset, req.data.byteLength))
  })
  return { rows: [], changes: Number(stream.rowCount ?? 0) }
}

async function fetchCursor(req: Extract<BridgeRequest, { op: 'fetch' }>): Promise<BridgeRows> {
  let name = cursors.get(req.cursor)
  if (!name) {
    name = `carats_cursor_${req.cursor}`
    await client.query({ text: `DECLARE ${name} NO SCROLL CURSOR FOR ${req.sql}`, values: req.params })
    cursors.set(req.cursor, name)
  }
  const res: QueryResult = await client.query(config(`FETCH ${req.count} FROM ${name}`, [], req.array))
  return { rows: res.rows, changes: res.rowCount ?? 0 }
}

async function closeCursor(req: Extract<BridgeRequest, { op: 'closeCursor' }>): Promise<BridgeRows> {
  const name = cursors.get(req.cursor)
  cursors.delete(req.cursor)
  if (name) await client.query(`CLOSE ${name}`)
  return { rows: [], changes: 0 }
}

async function handle(req: BridgeRequest): Promise<BridgeRows> {
  if (lost) throw lost
  // an open scan holds the connection in its COPY: read it out before anything else runs
  if (req.op !== 'closeScan') await closeScans(req.op === 'scan' ? req.scan : undefined)
  switch (req.op) {
    case 'connect':
      await connectClient()
      return { rows: [], changes: 0 }
    case 'query':
      return query(req)
    case 'copy':
      return copyIn(req)
    case 'fetch':
      return fetchCursor(req)
    case 'closeCursor':
      return closeCursor(req)
    case 'scan':
      return nextChunk(client, req)
    case 'closeScan':
      await closeScan(req.scan)
      return { rows: [], changes: 0 }
    case 'close':
      await client.end()
      return { rows: [], changes: 0 }
  }
}

function errorOf(e: unknown): BridgeAnswer {
  const err = e as Error & Record<string, unknown>
  const pick = (k: string) => (typeof err?.[k] === 'string' ? (err[k] as string) : undefined)
  return {
    ok: false,
    error: {
      message: err instanceof Error ? err.message : String(e),
      code: pick('code'),
      detail: pick('detail'),
      table: pick('table'),
      column: pick('column'),
      constraint: pick('constraint'),
    },
  }
}

/** The answer posted, then counted in `flag` (one more answer to take) and the caller woken. */
function answer(a: BridgeAnswer): void {
  // a scan's columns are handed over, not copied
  port.postMessage(a, a.ok && a.columns ? a.columns.map((c) => c.buffer as ArrayBuffer) : [])
  Atomics.add(flag, 0, 1)
  Atomics.notify(flag, 0)
}

// one request at a time, in the order they came (pg's own queue of queries is deprecated)
let queue: Promise<void> = Promise.resolve()
port.on('message', (req: BridgeRequest) => {
  queue = queue.then(() =>
    handle(req).then(
      (rows) => answer({ ok: true, ...rows }),
      (e) => answer(errorOf(e)),
    ),
  )
})
