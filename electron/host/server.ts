/**
 * The browser host: the built renderer and the contract over HTTP, on loopback only, for
 * machines without Electron and for end-to-end tests in a plain browser.
 *
 * It adds no authority of its own: every /api call goes to the backend's dispatcher with the
 * bearer token the page sent (or none), and the dispatcher decides. What the host does add is
 * protection that a local web server needs and an IPC channel does not:
 * - it answers only to its own Host header (DNS rebinding: evil.example resolving to 127.0.0.1);
 * - it refuses requests whose Origin is not its own, and cross-site fetch metadata (CSRF);
 * - /api takes only POST with a JSON body of bounded size, answered with no-store; a sales feed's
 *   bytes (contract/feed.ts BYTES_BODIES) may come instead as the body itself, application/octet-stream,
 *   the call's other arguments in the X-Carats-Args header (URI-encoded JSON);
 * - a channel that needs a session is refused (NOT_SIGNED_IN, as the dispatcher would) before
 *   its body is read when the bearer token is not a live session (the backend's
 *   services.users.resolve): only signed-in callers can make the host read a big body;
 * - every page carries the app's Content-Security-Policy.
 *
 * Limits (HOST_LIMITS below says why each value; HostOptions can lower them for tests):
 * - request body: 64 MiB of JSON, for signed-in callers; a sales feed's bytes up to FEED_MAX_BYTES
 *   (512 MiB, the importer's own limit), read into memory that the import's threads share;
 * - connections: 64 at once, more are closed as they arrive;
 * - headers must arrive within 10 s, the whole request (headers and body) within 30 s; a slow
 *   client is answered 408 and cut off. The backend's own work does not count;
 * - an idle keep-alive connection is closed after 5 s (and the 1 s Node adds to it).
 * A request refused before its body was read is answered with Connection: close and its
 * connection closed, so that the rest of the body is never read.
 */
import { createReadStream } from 'node:fs'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { AppError, because, type ApiErrorData, type Envelope } from '../contract/errors'
import { BYTES_ARGS_HEADER, BYTES_BODIES, BYTES_CONTENT_TYPE, FEED_MAX_BYTES } from '../contract/feed'
import { securityHeaders } from '../main/security'
import { arrivingBytesBody, bytesArgs, readBytesBody } from './feed-body'
import { HttpFailure } from './http-failure'
import { resolveStatic } from './static'

/** The part of the backend's users service the host asks before reading a body. */
interface SessionLookup {
  /** The caller of a live session, else null (services.users.resolve). */
  resolve(token: string | null): unknown
}

export interface HostBackend {
  dispatch(channel: string, args: unknown, token: string | null): Promise<Envelope<unknown>>
  /**
   * How the host asks whether a bearer token is a live session before it reads a body: the
   * backend's services (an open Backend), or open() giving them (the lazy backend, opened at the
   * first call). One of the two is required: createHost refuses a backend with neither.
   */
  services?: { users: SessionLookup }
  open?(): Promise<{ services: { users: SessionLookup } }>
}

export interface HostOptions {
  backend: HostBackend
  /** The built renderer (out/renderer). */
  staticDir: string
  /** 0 or absent: any free port. */
  port?: number
  /** Largest /api request body accepted, in bytes (HOST_LIMITS.maxBodyBytes). */
  maxBodyBytes?: number
  /** Largest body of bytes (a sales feed's) accepted (HOST_LIMITS.maxBytesBodyBytes). */
  maxBytesBodyBytes?: number
  /** Connections at once (HOST_LIMITS.maxConnections). */
  maxConnections?: number
  /** Time for a request's headers to arrive (HOST_LIMITS.headersTimeoutMs). */
  headersTimeoutMs?: number
  /** Time for a whole request, headers and body, to arrive (HOST_LIMITS.requestTimeoutMs). */
  requestTimeoutMs?: number
  /** Time an idle keep-alive connection stays open (HOST_LIMITS.keepAliveTimeoutMs). */
  keepAliveTimeoutMs?: number
  /** Where unexpected failures are reported. */
  onError?: (error: unknown) => void
  /**
   * A sales feed's bytes of declared length are handed to the backend as soon as its headers are
   * in, and read by the import while they arrive (services/import-arrival.ts): for a backend whose
   * sales:import is the import worker's (services/backend.ts), which waits for the bytes it
   * reaches. Off, the host hands the bytes over once they are all in.
   */
  importWhileUploading?: boolean
}

export interface Host {
  /** http://127.0.0.1:<port>/ */
  readonly url: string
  readonly port: number
  readonly server: Server
  close(): Promise<void>
}

/**
 * The host's limits, in one place. The host serves one person's browser on this machine (a
 * browser opens about six connections to a server) and the end-to-end tests; the limits are
 * there so that another local process cannot make it hold memory or connections for ever.
 */
export const HOST_LIMITS = {
  /**
   * Sales feeds are imported through the api as text, in one request: 64 MiB holds several
   * hundred thousand sales. Only a signed-in caller (or a public channel's) body is read.
   */
  maxBodyBytes: 64 * 1024 * 1024,
  /**
   * A sales feed's bytes, sent as they are: the importer's own limit (contract/feed.ts), 512 MiB,
   * about 290,000 sales with their plays. Only a signed-in caller's body is read.
   */
  maxBytesBodyBytes: FEED_MAX_BYTES,
  /** Ten times what a few browser tabs open; beyond it a new connection is closed at once. */
  maxConnections: 64,
  /** Headers are a few hundred bytes, sent at once; 10 s leaves room for a machine under load. */
  headersTimeoutMs: 10_000,
  /**
   * The whole request, headers and body: a 64 MiB feed takes well under a second over loopback,
   * so 30 s is generous for a real caller and cuts off one that trickles its body. The backend's
   * work once the body is in (a big import) is not counted.
   */
  requestTimeoutMs: 30_000,
  /**
   * Node's default: a browser reuses a connection within that time or opens another. Node closes
   * the connection 1 s after this (its own margin over what the Keep-Alive header announces).
   */
  keepAliveTimeoutMs: 5_000,
} as const

const API_PREFIX = '/api/'

let channelNames: Promise<Map<string, boolean>> | undefined
/**
 * The contract's channel names, each with whether it is public (callable without a session),
 * loaded at the first api call: building the contract's argument schemas is work the host need
 * not do before it listens (the backend builds them anyway).
 */
function knownChannels(): Promise<Map<string, boolean>> {
  channelNames ??= import('../contract').then((c) => new Map<string, boolean>(c.CHANNEL_NAMES.map((n) => [n, c.contract[n].access === 'public'])))
  return channelNames
}

/** How the host asks the backend whether a token is a live session. */
function sessionCheck(backend: HostBackend): (token: string) => Promise<boolean> {
  const { services, open } = backend
  if (services) return (token) => Promise.resolve(services.users.resolve(token) != null)
  if (open) return async (token) => (await open.call(backend)).services.users.resolve(token) != null
  throw new Error('the host needs a backend whose sessions it can check (services.users.resolve, or open())')
}

/** The dispatcher's own refusal of a call that needs a session (contract/dispatch.ts). */
function notSignedIn(): HttpFailure {
  const { message, reason } = new AppError('NOT_SIGNED_IN', 'your session has ended: sign in again', because('SESSION_ENDED')).toData()
  return new HttpFailure(200, 'NOT_SIGNED_IN', message, {}, reason)
}

function bearerToken(header: string | undefined): string | null {
  if (!header) return null
  const m = /^Bearer[ \t]+([^\s]+)[ \t]*$/i.exec(header)
  return m ? m[1] : null
}

function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = req.headers['content-length']
  if (declared !== undefined && Number(declared) > limit) {
    return Promise.reject(tooLarge(limit))
  }
  return new Promise((resolveBody, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    let done = false
    req.on('data', (chunk: Buffer) => {
      if (done) return
      size += chunk.length
      if (size > limit) {
        done = true
        reject(tooLarge(limit))
        return
      }
      chunks.push(chunk)
    })
    req.on('end', () => {
      if (done) return
      done = true
      resolveBody(Buffer.concat(chunks))
    })
    req.on('error', (e) => {
      if (done) return
      done = true
      reject(e)
    })
  })
}

function tooLarge(limit: number): HttpFailure {
  const mib = Math.round((limit / (1024 * 1024)) * 10) / 10
  return new HttpFailure(413, 'BAD_ARGUMENTS', `the request is larger than ${mib} MiB: split the import into smaller files`, {
    Connection: 'close',
  })
}

export async function createHost(opts: HostOptions): Promise<Host> {
  const limit = opts.maxBodyBytes ?? HOST_LIMITS.maxBodyBytes
  const bytesLimit = opts.maxBytesBodyBytes ?? HOST_LIMITS.maxBytesBodyBytes
  const headersTimeout = opts.headersTimeoutMs ?? HOST_LIMITS.headersTimeoutMs
  const requestTimeout = opts.requestTimeoutMs ?? HOST_LIMITS.requestTimeoutMs
  const hasSession = sessionCheck(opts.backend)
  const onError = opts.onError ?? ((e: unknown) => console.error('[host]', e))
  const pageHeaders = securityHeaders()
  let allowedHosts = new Set<string>()
  let allowedOrigins = new Set<string>()
  let ownUrl = ''

  function send(res: ServerResponse, status: number, headers: Record<string, string>, body?: Buffer | string): void {
    res.writeHead(status, { ...pageHeaders, ...headers })
    res.end(body)
  }

  function sendEnvelope(res: ServerResponse, status: number, envelope: Envelope<unknown>, headers: Record<string, string> = {}): void {
    let body: string
    try {
      body = JSON.stringify(envelope)
    } catch (e) {
      onError(e)
      status = 500
      body = JSON.stringify({ ok: false, error: { code: 'INTERNAL', message: 'the reply could not be encoded' } })
    }
    send(res, status, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store', ...headers }, body)
  }

  function sendFailure(res: ServerResponse, f: HttpFailure): void {
    const error: ApiErrorData = { code: f.code, message: f.message, ...(f.reason ? { reason: f.reason } : {}) }
    // A body not read to its end is never read: the connection is closed after the answer.
    const close = f.headers.Connection === 'close' || !res.req.complete
    sendEnvelope(res, f.status, { ok: false, error }, close ? { ...f.headers, Connection: 'close' } : f.headers)
    if (close) res.on('finish', () => res.req.socket.destroy())
  }

  function checkCaller(req: IncomingMessage, isApi: boolean): void {
    const host = (req.headers.host ?? '').toLowerCase()
    if (!allowedHosts.has(host)) {
      throw new HttpFailure(403, 'FORBIDDEN', `this server answers only at ${ownUrl}`)
    }
    const origin = req.headers.origin
    if (origin !== undefined && !allowedOrigins.has(origin.toLowerCase())) {
      throw new HttpFailure(403, 'FORBIDDEN', `requests from ${origin} are refused: open ${ownUrl} instead`)
    }
    const site = req.headers['sec-fetch-site']
    if (isApi && site !== undefined && site !== 'same-origin' && site !== 'none') {
      throw new HttpFailure(403, 'FORBIDDEN', `cross-site requests are refused: open ${ownUrl} instead`)
    }
  }

  async function handleApi(req: IncomingMessage, res: ServerResponse, pathname: string): Promise<void> {
    if (req.method !== 'POST') {
      throw new HttpFailure(405, 'BAD_ARGUMENTS', 'the api takes POST requests only', { Allow: 'POST' })
    }
    let channel: string
    try {
      channel = decodeURIComponent(pathname.slice(API_PREFIX.length))
    } catch {
      throw new HttpFailure(400, 'UNKNOWN_CHANNEL', 'the channel name in the address is not valid')
    }
    const isPublic = (await knownChannels()).get(channel)
    if (isPublic === undefined) {
      throw new HttpFailure(404, 'UNKNOWN_CHANNEL', `unknown channel ${JSON.stringify(channel)}`)
    }
    const token = bearerToken(req.headers.authorization)
    // Before the body: only a live session (or a public channel) makes the host read one.
    // The dispatcher checks the session again, with the role, once the body is in.
    if (!isPublic && (token === null || !(await hasSession(token)))) throw notSignedIn()
    const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase()
    const bytesField = BYTES_BODIES[channel]
    if (bytesField && type === BYTES_CONTENT_TYPE) {
      // a feed's bytes as the body: the importer reads them in place
      const args = bytesArgs(req.headers[BYTES_ARGS_HEADER])
      const arriving = opts.importWhileUploading ? arrivingBytesBody(req, bytesLimit) : null
      if (arriving) {
        const envelope = await opts.backend.dispatch(channel, { ...args, [bytesField]: arriving.bytes }, token)
        // a body cut short: the client is gone (or Node answered 408), the import failed
        if (!(await arriving.done.then(() => true, () => false))) return
        sendEnvelope(res, 200, envelope)
        return
      }
      const bytes = await readBytesBody(req, bytesLimit)
      sendEnvelope(res, 200, await opts.backend.dispatch(channel, { ...args, [bytesField]: bytes }, token))
      return
    }
    if (type !== 'application/json') {
      if (bytesField) {
        const { message, reason } = new AppError('BAD_ARGUMENTS', `send the file's bytes as ${BYTES_CONTENT_TYPE} (or the call as application/json), not ${type || 'no content type'}`, because('FEED_CONTENT_TYPE', { type: type || '—' })).toData()
        throw new HttpFailure(415, 'BAD_ARGUMENTS', message, {}, reason)
      }
      throw new HttpFailure(415, 'BAD_ARGUMENTS', 'the request body must be JSON (Content-Type: application/json)')
    }
    const raw = await readBody(req, limit)
    let body: unknown
    try {
      body = raw.length === 0 ? {} : JSON.parse(raw.toString('utf8'))
    } catch (e) {
      throw new HttpFailure(400, 'BAD_ARGUMENTS', `the request body is not valid JSON (${e instanceof Error ? e.message : String(e)})`)
    }
    if (body === null || typeof body !== 'object' || Array.isArray(body)) {
      throw new HttpFailure(400, 'BAD_ARGUMENTS', 'the request body must be a JSON object {"args": ...}')
    }
    const args = (body as { args?: unknown }).args
    const envelope = await opts.backend.dispatch(channel, args, token)
    sendEnvelope(res, 200, envelope)
  }

  async function handleStatic(req: IncomingMessage, res: ServerResponse, pathname: string): Promise<void> {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      send(res, 405, { Allow: 'GET, HEAD', 'Content-Type': 'text/plain; charset=utf-8' }, 'method not allowed\n')
      return
    }
    const r = await resolveStatic(opts.staticDir, pathname)
    if ('status' in r) {
      send(res, r.status, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' }, r.status === 404 ? 'not found\n' : 'bad request\n')
      return
    }
    const f = r.found
    const cache = f.immutable ? 'public, max-age=31536000, immutable' : 'no-cache'
    res.writeHead(200, { ...pageHeaders, 'Content-Type': f.contentType, 'Content-Length': String(f.size), 'Cache-Control': cache })
    if (req.method === 'HEAD') {
      res.end()
      return
    }
    const stream = createReadStream(f.file)
    stream.on('error', (e) => {
      onError(e)
      res.destroy()
    })
    stream.pipe(res)
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const rawUrl = req.url ?? '/'
    const pathname = rawUrl.split(/[?#]/, 1)[0]
    const isApi = pathname.startsWith(API_PREFIX)
    try {
      checkCaller(req, isApi)
      if (isApi) await handleApi(req, res, pathname)
      else await handleStatic(req, res, pathname)
    } catch (e) {
      if (res.headersSent) {
        onError(e)
        res.destroy()
      } else if (e instanceof HttpFailure) {
        sendFailure(res, e)
      } else {
        onError(e)
        sendFailure(res, new HttpFailure(500, 'INTERNAL', `unexpected error: ${e instanceof Error ? e.message : String(e)}`))
      }
    }
  }

  const server = createServer(
    {
      headersTimeout,
      requestTimeout,
      keepAliveTimeout: opts.keepAliveTimeoutMs ?? HOST_LIMITS.keepAliveTimeoutMs,
      // how often Node looks for requests past those timeouts (its default, 30 s, would let a
      // slow request run up to 30 s late)
      connectionsCheckingInterval: Math.max(10, Math.min(1000, Math.floor(Math.min(headersTimeout, requestTimeout) / 5))),
    },
    (req, res) => {
      void handle(req, res)
    },
  )
  server.maxConnections = opts.maxConnections ?? HOST_LIMITS.maxConnections

  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject)
    server.listen(opts.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject)
      resolveListen()
    })
  })
  const port = (server.address() as AddressInfo).port
  ownUrl = `http://127.0.0.1:${port}/`
  allowedHosts = new Set([`127.0.0.1:${port}`, `localhost:${port}`])
  allowedOrigins = new Set([`http://127.0.0.1:${port}`, `http://localhost:${port}`])

  return {
    url: ownUrl,
    port,
    server,
    close: () =>
      new Promise<void>((resolveClose) => {
        server.close(() => resolveClose())
        server.closeAllConnections()
      }),
  }
}
