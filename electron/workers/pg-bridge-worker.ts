/**
 * The thread that holds a PostgreSQL ledger's connection (electron/ledger/pg/bridge.ts): it runs
 * each statement its parent sends, posts the answer, then wakes the parent, which waits for it as
 * it waits for better-sqlite3. One connection, one statement at a time: requests posted without
 * waiting (COPY chunks) queue here and are run and answered in the order they came.
 *
 * A connection that is lost (the server restarted or failed over, the connection terminated)
 * stays lost: every request after it is answered "lost, not sent" until the parent asks for a
 * new one ('connect'), which it does only outside a transaction (PgDb), so that nothing is ever
 * run half in a transaction that the server has rolled back.
 */
import { Client, types, type QueryConfig, type QueryResult } from 'pg'
import { from as copyFrom } from 'pg-copy-streams'
import { workerData, type MessagePort } from 'node:worker_threads'
import type { BridgeAnswer, BridgeRequest, BridgeRows } from '../ledger/pg/bridge-messages'
import { clientConfig } from '../ledger/pg/client-config'
import { closeScan, closeScans, forgetScans, nextChunk } from '../ledger/pg/scans'

// The ledger's integers are below 2^53 (unit keys, cents, milliseconds): numbers, as SQLite gives.
types.setTypeParser(types.builtins.INT8, (v) => Number(v))
types.setTypeParser(types.builtins.NUMERIC, (v) => Number(v))
// SQLite answers a comparison with 1 or 0; the services compare with numbers.
types.setTypeParser(types.builtins.BOOL, (v) => (v === 't' ? 1 : 0))

const { url, port, flag } = workerData as { url: string; port: MessagePort; flag: Int32Array }
/** Why the connection is gone (null: it is up, or not made yet). */
let lost: Error | null = null as Error | null
// A failure outside any request (the connection's socket, a stream) is kept and answered to
// every request from then on, rather than ending the thread under its waiting caller.
process.on('uncaughtException', (e) => {
  lost ??= e
})
// A thread that stops anyway wakes its caller with why, which it then says.
process.on('exit', (code) => {
  port.postMessage({
    ok: false,
    error: {
      message: `the PostgreSQL connection thread stopped (exit code ${code})${lost ? `: ${lost.message}` : ''}`,
    },
  })
  Atomics.add(flag, 0, 1)
  Atomics.notify(flag, 0)
})

/** Server errors that end the connection: connection exceptions (08), shutdowns and restarts (57P01-57P03). */
const LOST_CODES = /^(08...|57P0[1-3])$/
const SOCKET_CODES = /^(ECONNRESET|ECONNREFUSED|ECONNABORTED|EPIPE|ENOENT|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH)$/
/** The socket's and the driver's own words for a connection gone. */
const LOST_WORDS =
  /Connection terminated|not queryable|connection error|ECONNRESET|ECONNREFUSED|EPIPE|ENOENT|ETIMEDOUT|EHOSTUNREACH|timeout expired/i

function endsConnection(e: unknown): boolean {
  const err = e as { code?: unknown; message?: unknown }
  if (typeof err?.code === 'string' && (LOST_CODES.test(err.code) || SOCKET_CODES.test(err.code))) return true
  return typeof err?.message === 'string' && LOST_WORDS.test(err.message)
}

/** A request's failure because the connection is gone: `sent` false when it never left this thread. */
class Lost extends Error {
  constructor(
    readonly cause: Error,
    readonly sent: boolean,
  ) {
    super(cause.message)
  }
}

/** The connection, made by the first request ('connect'), and made again by the next 'connect' after a loss. */
let client: Client | null = null
async function connectClient(): Promise<void> {
  const old = client
  client = null
  cursors.clear()
  forgetScans()
  if (old) void old.end().catch(() => {})
  const c = new Client(clientConfig(url))
  c.on('error', (e) => {
    if (client === c) lost ??= e
  })
  try {
    await c.connect()
  } catch (e) {
    void c.end().catch(() => {})
    lost = e instanceof Error ? e : new Error(String(e))
    throw new Lost(lost, false)
  }
  lost = null
  client = c
}

/** The connection, or the loss that ended it (no request is sent on a lost connection). */
function live(): Client {
  if (lost || !client) throw new Lost(lost ?? new Error('the connection was not made'), false)
  return client
}

const cursors = new Map<number, string>()

/** A statement for pg: rows as arrays for pluck() and raw(). */
function config(text: string, values: unknown[], array: boolean): QueryConfig {
  return (array ? { text, values, rowMode: 'array' } : { text, values }) as QueryConfig
}

async function query(req: Extract<BridgeRequest, { op: 'query' }>): Promise<BridgeRows> {
  const res: QueryResult | QueryResult[] = await live().query(config(req.sql, req.params, req.array))
  const last = Array.isArray(res) ? res[res.length - 1] : res
  return { rows: last.rows ?? [], changes: last.rowCount ?? 0 }
}

async function copyIn(req: Extract<BridgeRequest, { op: 'copy' }>): Promise<BridgeRows> {
  const stream = live().query(copyFrom(req.sql))
  await new Promise<void>((resolve, reject) => {
    stream.on('error', reject)
    stream.on('finish', resolve)
    stream.end(
      typeof req.data === 'string' ? req.data : Buffer.from(req.data.buffer, req.data.byteOffset, req.data.byteLength),
    )
  })
  return { rows: [], changes: Number(stream.rowCount ?? 0) }
}

async function fetchCursor(req: Extract<BridgeRequest, { op: 'fetch' }>): Promise<BridgeRows> {
  let name = cursors.get(req.cursor)
  if (!name) {
    name = `carats_cursor_${req.cursor}`
    await live().query({ text: `DECLARE ${name} NO SCROLL CURSOR FOR ${req.sql}`, values: req.params })
    cursors.set(req.cursor, name)
  }
  const res: QueryResult = await live().query(config(`FETCH ${req.count} FROM ${name}`, [], req.array))
  return { rows: res.rows, changes: res.rowCount ?? 0 }
}

async function closeCursor(req: Extract<BridgeRequest, { op: 'closeCursor' }>): Promise<BridgeRows> {
  const name = cursors.get(req.cursor)
  cursors.delete(req.cursor)
  if (name) await live().query(`CLOSE ${name}`)
  return { rows: [], changes: 0 }
}

async function handle(req: BridgeRequest): Promise<BridgeRows> {
  if (req.op === 'connect') {
    await connectClient()
    return { rows: [], changes: 0 }
  }
  if (req.op === 'close') {
    if (client && !lost) await client.end()
    return { rows: [], changes: 0 }
  }
  live()
  try {
    return await run(req)
  } catch (e) {
    if (!endsConnection(e) && !lost) throw e
    lost ??= e instanceof Error ? e : new Error(String(e))
    throw new Lost(lost, true)
  }
}

async function run(req: Exclude<BridgeRequest, { op: 'connect' | 'close' }>): Promise<BridgeRows> {
  // an open scan holds the connection in its COPY: read it out before anything else runs
  if (req.op !== 'closeScan') await closeScans(req.op === 'scan' ? req.scan : undefined)
  switch (req.op) {
    case 'query':
      return query(req)
    case 'copy':
      return copyIn(req)
    case 'fetch':
      return fetchCursor(req)
    case 'closeCursor':
      return closeCursor(req)
    case 'scan':
      return nextChunk(live(), req)
    case 'closeScan':
      await closeScan(req.scan)
      return { rows: [], changes: 0 }
  }
}

function pickCode(e: Error): string | undefined {
  const code = (e as Error & { code?: unknown }).code
  return typeof code === 'string' ? code : undefined
}

function errorOf(e: unknown): BridgeAnswer {
  const err = e as Error & Record<string, unknown>
  const pick = (k: string) => (typeof err?.[k] === 'string' ? (err[k] as string) : undefined)
  if (e instanceof Lost)
    return { ok: false, error: { message: e.message, code: pickCode(e.cause), lost: e.sent ? 'sent' : 'unsent' } }
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
