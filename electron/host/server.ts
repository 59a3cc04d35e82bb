/**
 * The browser host: the built renderer and the contract over HTTP, on loopback only, for
 * machines without Electron and for end-to-end tests in a plain browser.
 *
 * It adds no authority of its own: every /api call goes to the backend's dispatcher with the
 * bearer token the page sent (or none), and the dispatcher decides. What the host does add is
 * protection that a local web server needs and an IPC channel does not:
 * - it answers only to its own Host header (DNS rebinding: evil.example resolving to 127.0.0.1);
 * - it refuses requests whose Origin is not its own, and cross-site fetch metadata (CSRF);
 * - /api takes only POST with a JSON body of bounded size, answered with no-store;
 * - every page carries the app's Content-Security-Policy.
 */
import { createReadStream } from 'node:fs'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { ApiErrorData, Envelope, ErrorCode } from '../contract/errors'
import { securityHeaders } from '../main/security'
import { resolveStatic } from './static'

export interface HostBackend {
  dispatch(channel: string, args: unknown, token: string | null): Promise<Envelope<unknown>>
}

export interface HostOptions {
  backend: HostBackend
  /** The built renderer (out/renderer). */
  staticDir: string
  /** 0 or absent: any free port. */
  port?: number
  /** Largest /api request body accepted, in bytes. */
  maxBodyBytes?: number
  /** Where unexpected failures are reported. */
  onError?: (error: unknown) => void
}

export interface Host {
  /** http://127.0.0.1:<port>/ */
  readonly url: string
  readonly port: number
  readonly server: Server
  close(): Promise<void>
}

/** Sales feeds are imported through the api as text; 64 MiB holds several hundred thousand sales. */
export const DEFAULT_MAX_BODY_BYTES = 64 * 1024 * 1024

const API_PREFIX = '/api/'

let channelNames: Promise<Set<string>> | undefined
/**
 * The contract's channel names, loaded at the first api call: building the contract's argument
 * schemas is work the host need not do before it listens (the backend builds them anyway).
 */
function knownChannels(): Promise<Set<string>> {
  channelNames ??= import('../contract').then((c) => new Set<string>(c.CHANNEL_NAMES))
  return channelNames
}

class HttpFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message)
  }
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
  const limit = opts.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES
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
    const error: ApiErrorData = { code: f.code, message: f.message }
    sendEnvelope(res, f.status, { ok: false, error }, f.headers)
    if (f.headers.Connection === 'close') res.on('finish', () => res.req.socket.destroy())
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
    if (!(await knownChannels()).has(channel)) {
      throw new HttpFailure(404, 'UNKNOWN_CHANNEL', `unknown channel ${JSON.stringify(channel)}`)
    }
    const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase()
    if (type !== 'application/json') {
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
    const envelope = await opts.backend.dispatch(channel, args, bearerToken(req.headers.authorization))
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
        sendEnvelope(res, 500, { ok: false, error: { code: 'INTERNAL', message: `unexpected error: ${e instanceof Error ? e.message : String(e)}` } })
      }
    }
  }

  const server = createServer({ requestTimeout: 5 * 60_000, headersTimeout: 30_000 }, (req, res) => {
    void handle(req, res)
  })

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
