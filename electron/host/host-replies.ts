/**
 * The host's replies and checks, shared by its api and its pages (server.ts): the context a
 * request is handled in, the answers (pages, envelopes, failures), the caller's Host, Origin and
 * fetch metadata checked, and the built renderer's files served.
 */
import { createReadStream } from 'node:fs'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Role } from '../contract/define'
import type { ApiErrorData, Envelope } from '../contract/errors'
import { HttpFailure } from './http-failure'
import type { HostOptions } from './host-types'
import type { EventHub } from './host-events'
import { resolveStatic } from './static'

/** What the host's handlers share: its options and limits, and the address it answers at (set once it listens). */
export interface HostContext {
  opts: HostOptions
  /** Largest JSON body (an import's text), a public call's, a signed-in caller's other calls', and largest body of bytes, read. */
  limit: number
  publicLimit: number
  signedInLimit: number
  bytesLimit: number
  /** The live session of a token (its role), or null. */
  callerOf: (token: string) => Promise<{ role: Role } | null>
  onError: (error: unknown) => void
  pageHeaders: Record<string, string>
  /** The streams of changes at /events (host-events.ts). */
  events: EventHub
  own: { url: string; hosts: Set<string>; origins: Set<string> }
}

export function send(
  { pageHeaders }: HostContext,
  res: ServerResponse,
  status: number,
  headers: Record<string, string>,
  body?: Buffer | string,
): void {
  res.writeHead(status, { ...pageHeaders, ...headers })
  res.end(body)
}

export function sendEnvelope(
  ctx: HostContext,
  res: ServerResponse,
  status: number,
  envelope: Envelope<unknown>,
  headers: Record<string, string> = {},
): void {
  let body: string
  try {
    body = JSON.stringify(envelope)
  } catch (e) {
    ctx.onError(e)
    status = 500
    body = JSON.stringify({ ok: false, error: { code: 'INTERNAL', message: 'the reply could not be encoded' } })
  }
  send(
    ctx,
    res,
    status,
    { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store', ...headers },
    body,
  )
}

export function sendFailure(ctx: HostContext, res: ServerResponse, f: HttpFailure): void {
  const error: ApiErrorData = { code: f.code, message: f.message, ...(f.reason ? { reason: f.reason } : {}) }
  // A body not read to its end is never read: the connection is closed after the answer.
  const close = f.headers.Connection === 'close' || !res.req.complete
  sendEnvelope(ctx, res, f.status, { ok: false, error }, close ? { ...f.headers, Connection: 'close' } : f.headers)
  if (close) res.on('finish', () => res.req.socket.destroy())
}

export function checkCaller({ own }: HostContext, req: IncomingMessage, isApi: boolean): void {
  const host = (req.headers.host ?? '').toLowerCase()
  if (!own.hosts.has(host)) {
    throw new HttpFailure(403, 'FORBIDDEN', `this server answers only at ${own.url}`)
  }
  const origin = req.headers.origin
  if (origin !== undefined && !own.origins.has(origin.toLowerCase())) {
    throw new HttpFailure(403, 'FORBIDDEN', `requests from ${origin} are refused: open ${own.url} instead`)
  }
  const site = req.headers['sec-fetch-site']
  if (isApi && site !== undefined && site !== 'same-origin' && site !== 'none') {
    throw new HttpFailure(403, 'FORBIDDEN', `cross-site requests are refused: open ${own.url} instead`)
  }
}

export async function handleStatic(
  ctx: HostContext,
  req: IncomingMessage,
  res: ServerResponse,
  pathname: string,
): Promise<void> {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    send(ctx, res, 405, { Allow: 'GET, HEAD', 'Content-Type': 'text/plain; charset=utf-8' }, 'method not allowed\n')
    return
  }
  const r = await resolveStatic(ctx.opts.staticDir, pathname)
  if ('status' in r) {
    send(
      ctx,
      res,
      r.status,
      { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' },
      r.status === 404 ? 'not found\n' : 'bad request\n',
    )
    return
  }
  const f = r.found
  const cache = f.immutable ? 'public, max-age=31536000, immutable' : 'no-cache'
  res.writeHead(200, {
    ...ctx.pageHeaders,
    'Content-Type': f.contentType,
    'Content-Length': String(f.size),
    'Cache-Control': cache,
  })
  if (req.method === 'HEAD') {
    res.end()
    return
  }
  const stream = createReadStream(f.file)
  stream.on('error', (e) => {
    ctx.onError(e)
    res.destroy()
  })
  stream.pipe(res)
}
