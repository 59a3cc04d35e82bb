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
 *   its body is read when the bearer token is not a live session of an active account (the
 *   backend's services.users.sessionRole: memory and one statement, the account's record being the
 *   call's to check), and so is one the session's role may not call (FORBIDDEN): only a caller who
 *   may make the call can make the host read its body;
 * - each body is read no further than its channel needs (host-api.ts bodyLimit), else refused with
 *   413 (REQUEST_TOO_LARGE) and the connection closed: an unauthenticated caller cannot make the
 *   host hold more than a few KiB per request;
 * - every page carries the app's Content-Security-Policy;
 * - GET /events streams the ledger's changes to a signed-in page (host-events.ts: server-sent
 *   events, the same bearer token, bounded per session, heartbeats).
 *
 * Limits (HOST_LIMITS below says why each value; HostOptions can lower them for tests):
 * - request body: 8 KiB for the public channels (sign-in, set-up, status); 1 MiB of JSON for a
 *   signed-in caller's other calls; for sales:import only, from a role that may import, 64 MiB of
 *   JSON or a sales feed's bytes up to FEED_MAX_BYTES (512 MiB, the importer's own limit), read
 *   into memory that the import's threads share;
 * - connections: 64 at once, more are closed as they arrive;
 * - headers must arrive within 10 s, the whole request (headers and body) within 30 s; a slow
 *   client is answered 408 and cut off. The backend's own work does not count;
 * - an idle keep-alive connection is closed after 5 s (and the 1 s Node adds to it).
 * A request refused before its body was read is answered with Connection: close and its
 * connection closed, so that the rest of the body is never read.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Role } from '../contract/define'
import { FEED_MAX_BYTES } from '../contract/feed'
import { securityHeaders } from '../main/security'
import { limitedLog } from '../services/log-limit'
import { EVENTS_PATH } from '../contract/changes'
import { API_PREFIX, bearerToken, handleApi } from './host-api'
import { createEventHub } from './host-events'
import { checkCaller, handleStatic, sendFailure, type HostContext } from './host-replies'
import { HttpFailure } from './http-failure'
import type { HostBackend, HostOptions } from './host-types'

export type { HostBackend, HostOptions }

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
   * Sales feeds may be imported through the api as text, in one request (sales:import): 64 MiB
   * holds several hundred thousand sales. Only the body of a caller whose role may import is read.
   */
  maxBodyBytes: 64 * 1024 * 1024,
  /**
   * The public channels' calls: a name and a password (256 characters at most, 4 bytes each in
   * UTF-8 at worst), as JSON. 24 refused at once hold 24 × 8 KiB, not 24 × 64 MiB.
   */
  publicBodyBytes: 8 * 1024,
  /**
   * Every other call's arguments are a few fields of bounded length (the contract's schemas; the
   * longest, a reason or a register entry, a few KiB): 1 MiB leaves room and holds no feed.
   */
  signedInBodyBytes: 1024 * 1024,
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

/** How the host asks the backend whose live session a token is (its role), or null. */
function sessionCheck(backend: HostBackend): (token: string) => Promise<{ role: Role } | null> {
  const { services, open } = backend
  if (services) return (token) => Promise.resolve(services.users.sessionRole(token) ?? null)
  if (open) return async (token) => (await open.call(backend)).services.users.sessionRole(token) ?? null
  throw new Error('the host needs a backend whose sessions it can check (services.users.sessionRole, or open())')
}

async function handle(ctx: HostContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const rawUrl = req.url ?? '/'
  const pathname = rawUrl.split(/[?#]/, 1)[0]
  const isApi = pathname.startsWith(API_PREFIX)
  const isEvents = pathname === EVENTS_PATH
  try {
    checkCaller(ctx, req, isApi || isEvents)
    if (isApi) await handleApi(ctx, req, res, pathname)
    else if (isEvents) await ctx.events.handle(req, res, bearerToken(req.headers.authorization))
    else await handleStatic(ctx, req, res, pathname)
  } catch (e) {
    if (res.headersSent) {
      ctx.onError(e)
      res.destroy()
    } else if (e instanceof HttpFailure) {
      sendFailure(ctx, res, e)
    } else {
      ctx.onError(e)
      sendFailure(
        ctx,
        res,
        new HttpFailure(500, 'INTERNAL', `unexpected error: ${e instanceof Error ? e.message : String(e)}`),
      )
    }
  }
}

function hostContext(opts: HostOptions): HostContext {
  const limit = opts.maxBodyBytes ?? HOST_LIMITS.maxBodyBytes
  const pageHeaders = securityHeaders()
  return {
    opts,
    limit,
    publicLimit: Math.min(limit, opts.publicBodyBytes ?? HOST_LIMITS.publicBodyBytes),
    signedInLimit: Math.min(limit, opts.signedInBodyBytes ?? HOST_LIMITS.signedInBodyBytes),
    bytesLimit: opts.maxBytesBodyBytes ?? HOST_LIMITS.maxBytesBodyBytes,
    callerOf: sessionCheck(opts.backend),
    onError: opts.onError ?? ((e: unknown) => limitedLog('host', '[host]', e)),
    pageHeaders,
    events: createEventHub(opts.backend, pageHeaders, opts.eventLimits),
    own: { url: '', hosts: new Set(), origins: new Set() },
  }
}

function listen(server: Server, port: number): Promise<void> {
  return new Promise<void>((resolveListen, reject) => {
    server.once('error', reject)
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject)
      resolveListen()
    })
  })
}

export async function createHost(opts: HostOptions): Promise<Host> {
  const ctx = hostContext(opts)
  const headersTimeout = opts.headersTimeoutMs ?? HOST_LIMITS.headersTimeoutMs
  const requestTimeout = opts.requestTimeoutMs ?? HOST_LIMITS.requestTimeoutMs
  const server = createServer(
    {
      headersTimeout,
      requestTimeout,
      keepAliveTimeout: opts.keepAliveTimeoutMs ?? HOST_LIMITS.keepAliveTimeoutMs,
      // how often Node looks for requests past those timeouts (its default, 30 s, would let a
      // slow request run up to 30 s late)
      connectionsCheckingInterval: Math.max(
        10,
        Math.min(1000, Math.floor(Math.min(headersTimeout, requestTimeout) / 5)),
      ),
    },
    (req, res) => {
      void handle(ctx, req, res)
    },
  )
  server.maxConnections = opts.maxConnections ?? HOST_LIMITS.maxConnections
  await listen(server, opts.port ?? 0)
  const port = (server.address() as AddressInfo).port
  ctx.own = {
    url: `http://127.0.0.1:${port}/`,
    hosts: new Set([`127.0.0.1:${port}`, `localhost:${port}`]),
    origins: new Set([`http://127.0.0.1:${port}`, `http://localhost:${port}`]),
  }
  return {
    url: ctx.own.url,
    port,
    server,
    close: () =>
      new Promise<void>((resolveClose) => {
        server.close(() => resolveClose())
        server.closeAllConnections()
      }),
  }
}
