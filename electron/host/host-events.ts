/**
 * The host's stream of changes: GET /events, server-sent events, for the signed-in
 * page to hear of what changed in the ledger, whichever workstation changed it (app/change-feed.ts).
 *
 * - Authenticated as the api is: the page's bearer token (the renderer reads the stream with
 *   fetch, which sends it; EventSource could not), refused without a live session (401) before
 *   anything is streamed, and the session is looked at without counting as activity, so an open
 *   stream never keeps an idle session alive (services.users.sessionPeek).
 * - Each event names topics and ids only, and only those the session's role may read
 *   (contract/changes.ts changesFor); the page reads what changed through the api, role-checked.
 *   A change to the session's own account re-reads its role first; a session that ended (signed
 *   out, deactivated, timed out) is told so (`event: ended`) and its stream closed.
 * - Bounded: EVENT_LIMITS.perSession streams per session (a few tabs), more are refused (429); the
 *   host's own limit of connections holds the rest. A client that does not read its stream
 *   (EVENT_LIMITS.maxBufferedBytes waiting) is cut off. A comment line every heartbeatMs keeps the
 *   connection alive through anything in between and finds a session that ended.
 * - Nothing is held for a stream that closed: its timer and its place are dropped at once, and the
 *   host stops listening to the feed when no stream is left.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { ChangeSource } from '../app/change-feed'
import { changesFor, type Change, type ChangeViewer } from '../contract/changes'
import { HttpFailure, notSignedIn } from './http-failure'
import type { HostBackend } from './host-types'

export const EVENT_LIMITS = {
  /** Streams one session may hold at once: a few tabs of the same person. */
  perSession: 4,
  /** A comment line this often: proxies and the client see the connection alive; an ended session is found. */
  heartbeatMs: 15_000,
  /** What may wait unread for one client before it is cut off. */
  maxBufferedBytes: 256 * 1024,
}

interface Stream {
  token: string
  viewer: ChangeViewer
  res: ServerResponse
  heartbeat: NodeJS.Timeout
}

/** The streams of one host, and the one subscription to its backend's changes they share. */
export interface EventHub {
  handle(req: IncomingMessage, res: ServerResponse, token: string | null): Promise<void>
  /** How many streams are open (tests). */
  readonly size: number
}

type Peek = (token: string) => Promise<ChangeViewer | null>

/** The backend's sessions and changes, opening a lazy backend first. */
function backendParts(backend: HostBackend): () => Promise<{ peek: Peek | null; source: ChangeSource | null }> {
  return async () => {
    const opened = backend.services ? backend : backend.open ? await backend.open() : null
    const users = opened?.services?.users
    const peek: Peek | null = users?.sessionPeek ? (token) => Promise.resolve(users.sessionPeek!(token)) : null
    return { peek, source: opened?.changes ?? null }
  }
}

export function createEventHub(
  backend: HostBackend,
  pageHeaders: Record<string, string>,
  limits: Partial<typeof EVENT_LIMITS> = {},
): EventHub {
  const { perSession, heartbeatMs, maxBufferedBytes } = { ...EVENT_LIMITS, ...limits }
  const parts = backendParts(backend)
  const streams = new Set<Stream>()
  let unsubscribe: (() => void) | null = null
  let peekOf: Peek = () => Promise.resolve(null)

  function write(s: Stream, text: string): void {
    if (s.res.writableLength > maxBufferedBytes) return void s.res.destroy()
    s.res.write(text)
  }

  function end(s: Stream): void {
    write(s, 'event: ended\ndata: {}\n\n')
    s.res.end()
  }

  async function deliver(s: Stream, changes: Change[]): Promise<void> {
    if (changes.some((c) => c.topic === 'session' || c.topic === 'users')) {
      const viewer = await peekOf(s.token)
      if (!viewer) return end(s)
      s.viewer = viewer
    }
    const told = changesFor(changes, s.viewer)
    if (told.length === 0 || s.res.writableEnded) return
    write(s, `id: ${told[told.length - 1].seq}\nevent: change\ndata: ${JSON.stringify(told)}\n\n`)
  }

  function onChanges(changes: Change[]): void {
    for (const s of streams) void deliver(s, changes).catch(() => s.res.destroy())
  }

  async function beat(s: Stream): Promise<void> {
    const viewer = await peekOf(s.token)
    if (!viewer) return end(s)
    s.viewer = viewer
    write(s, ': ping\n\n')
  }

  function drop(s: Stream): void {
    clearInterval(s.heartbeat)
    streams.delete(s)
    if (streams.size === 0 && unsubscribe) {
      unsubscribe()
      unsubscribe = null
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse, token: string | null): Promise<void> {
    if (req.method !== 'GET')
      throw new HttpFailure(405, 'BAD_ARGUMENTS', 'the events take GET requests only', { Allow: 'GET' })
    const { peek, source } = await parts()
    if (!peek || !source)
      throw new HttpFailure(404, 'UNKNOWN_CHANNEL', 'this host tells no changes: read again instead')
    peekOf = peek
    const viewer = token === null ? null : await peek(token)
    if (!viewer || token === null) throw notSignedIn(401)
    if ([...streams].filter((s) => s.token === token).length >= perSession)
      throw new HttpFailure(429, 'CONFLICT', `a session holds at most ${perSession} streams of changes: close a tab`)
    res.writeHead(200, {
      ...pageHeaders,
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      'X-Accel-Buffering': 'no',
    })
    const s: Stream = {
      token,
      viewer,
      res,
      heartbeat: setInterval(() => void beat(s).catch(() => res.destroy()), heartbeatMs),
    }
    s.heartbeat.unref()
    streams.add(s)
    unsubscribe ??= source.subscribe(onChanges)
    res.once('close', () => drop(s))
    res.write(`retry: 2000\nevent: ready\ndata: {}\n\n`)
  }

  return {
    handle,
    get size() {
      return streams.size
    },
  }
}
