/**
 * The changes of the ledger, pushed to the open screens (docs/ui.md, "Screens stay
 * current"): one `onChange` for both transports. In Electron the preload's `watch` (IPC); over the
 * browser host its stream of server-sent events at /events, read with fetch so that it carries the
 * session's bearer token. A change names a topic and an id, never data: the screen reads again
 * through the api.
 *
 * When the stream is down (the host restarting, a proxy in between, a host without a feed) the
 * screens are told "everything may have changed" every FALLBACK_POLL_MS, so they read again by
 * themselves, and the stream is tried again after 1, 2, 4 … up to 15 s. Once it is back, everything
 * is told once more (what changed meanwhile). A stream that says the session ended tells `session`,
 * so the session is read again (and the page signed out).
 */
import { CHANGE_TOPICS, EVENTS_PATH, isChange, type Change } from '../../../electron/contract/changes'

export type ChangeListener = (changes: Change[]) => void

export const FALLBACK_POLL_MS = 5000
const RETRY_MAX_MS = 15_000

/** Every topic as a whole: what the screens are told when they may have missed changes. */
export const EVERYTHING: Change[] = CHANGE_TOPICS.map((topic) => ({ seq: 0, topic, id: null }))

export interface SseEvent {
  event: string
  data: string
}

/** The whole events in `buffer` (server-sent events' text format), and what is left of an event still arriving. */
export function parseEvents(buffer: string): { events: SseEvent[]; rest: string } {
  const blocks = buffer.replace(/\r\n?/g, '\n').split('\n\n')
  const rest = blocks.pop() ?? ''
  const events: SseEvent[] = []
  for (const block of blocks) {
    let event = 'message'
    const data: string[] = []
    for (const line of block.split('\n')) {
      if (line.startsWith(':') || line === '') continue
      const colon = line.indexOf(':')
      const field = colon < 0 ? line : line.slice(0, colon)
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '')
      if (field === 'event') event = value
      else if (field === 'data') data.push(value)
    }
    if (data.length > 0 || event !== 'message') events.push({ event, data: data.join('\n') })
  }
  return { events, rest }
}

/** The changes an event's data carries, each checked (anything else is dropped). */
export function changesOf(data: string): Change[] {
  try {
    const parsed: unknown = JSON.parse(data)
    return Array.isArray(parsed) ? parsed.filter(isChange) : []
  } catch {
    return []
  }
}

/** How a stream ended: the session is over, or the connection is gone (try again). */
type StreamEnd = 'ended' | 'lost' | 'unavailable'

interface StreamHooks {
  onOpen(): void
  onChanges(changes: Change[]): void
}

/** The browser host's stream, read until it ends. */
async function readHttpStream(token: string, signal: AbortSignal, hooks: StreamHooks): Promise<StreamEnd> {
  let res: Response
  try {
    res = await fetch(EVENTS_PATH, { headers: { authorization: `Bearer ${token}` }, cache: 'no-store', signal })
  } catch {
    return 'lost'
  }
  if (res.status === 401) return 'ended'
  if (res.status === 404) return 'unavailable'
  if (!res.ok || !res.body) return 'lost'
  const reader = res.body.getReader()
  const decoder = new TextDecoder()
  let buffer = ''
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) return 'lost'
      const { events, rest } = parseEvents(buffer + decoder.decode(value, { stream: true }))
      buffer = rest
      for (const e of events) {
        if (e.event === 'ready') hooks.onOpen()
        else if (e.event === 'change') hooks.onChanges(changesOf(e.data))
        else if (e.event === 'ended') return 'ended'
      }
    }
  } catch {
    return 'lost'
  }
}

/** The Electron window's changes, through the preload, until stopped or the session ends. */
function watchIpc(token: string, signal: AbortSignal, hooks: StreamHooks): Promise<StreamEnd> {
  const bridge = window.carats!
  return new Promise((settle) => {
    const stop = (end: StreamEnd) => {
      void bridge.watch?.(null, null)
      settle(end)
    }
    signal.addEventListener('abort', () => stop('lost'), { once: true })
    void bridge.watch!(token, (notice) => {
      if (notice.event === 'ended') stop('ended')
      else hooks.onChanges(notice.changes.filter(isChange))
    }).then((reply) => {
      if (reply.ok) hooks.onOpen()
      else settle(reply.error.code === 'NOT_SIGNED_IN' ? 'ended' : 'unavailable')
    })
  })
}

export interface ChangeFeedClient {
  /** Calls `listener` with each batch of changes the session may hear of; returns the unsubscription. */
  onChange(listener: ChangeListener): () => void
  /** The session's token (null: signed out): the stream follows it. */
  setToken(token: string | null): void
}

export function createChangeFeedClient(opts: { ipc?: boolean } = {}): ChangeFeedClient {
  const listeners = new Set<ChangeListener>()
  const useIpc = opts.ipc ?? (typeof window !== 'undefined' && typeof window.carats?.watch === 'function')
  let token: string | null = null
  let run: AbortController | null = null
  let fallback: ReturnType<typeof setInterval> | undefined
  let retry: ReturnType<typeof setTimeout> | undefined
  let delay = 1000

  const tell = (changes: Change[]) => {
    if (changes.length === 0) return
    for (const l of [...listeners]) l(changes)
  }

  function startFallback(): void {
    fallback ??= setInterval(() => tell(EVERYTHING), FALLBACK_POLL_MS)
  }

  function stopFallback(): void {
    clearInterval(fallback)
    fallback = undefined
  }

  function stop(): void {
    run?.abort()
    run = null
    clearTimeout(retry)
    stopFallback()
  }

  function connect(): void {
    stop()
    if (token === null || listeners.size === 0) return
    const controller = new AbortController()
    run = controller
    const wasDown = fallback !== undefined
    const hooks: StreamHooks = {
      onOpen: () => {
        delay = 1000
        stopFallback()
        if (wasDown) tell(EVERYTHING)
      },
      onChanges: tell,
    }
    const read = useIpc ? watchIpc : readHttpStream
    void read(token, controller.signal, hooks).then((end) => {
      if (controller.signal.aborted || run !== controller) return
      run = null
      if (end === 'ended') return tell([{ seq: 0, topic: 'session', id: null }])
      startFallback()
      retry = setTimeout(connect, end === 'unavailable' ? 60_000 : delay)
      delay = Math.min(RETRY_MAX_MS, delay * 2)
    })
  }

  return {
    onChange(listener) {
      listeners.add(listener)
      if (listeners.size === 1) connect()
      return () => {
        listeners.delete(listener)
        if (listeners.size === 0) stop()
      }
    },
    setToken(next) {
      if (next === token) return
      token = next
      delay = 1000
      connect()
    },
  }
}
