/**
 * What the preload gives the page: `invoke(channel, args, token)`, that accepts only the
 * contract's channels and always answers with an envelope; and `watch(token, listener)`, the
 * changes of the ledger that the session may hear of (main/changes.ts), each checked as the
 * contract says a change is. The page never sees ipcRenderer, nor any other Electron object.
 */
import { CHANNEL_NAMES } from '../contract'
import { isChange, type Change } from '../contract/changes'
import type { Envelope } from '../contract/errors'

/** The one IPC channel between the preload and the main process. */
export const INVOKE_CHANNEL = 'carats:invoke'

/** What the page hears: a batch of changes, or that its session ended. */
export type ChangeNotice = { event: 'change'; changes: Change[] } | { event: 'ended' }

export interface CaratsBridge {
  invoke(channel: string, args: unknown, token: string | null): Promise<Envelope<unknown>>
  /** Tells `listener` the changes the session `token` may hear of, from now on (null: stops). */
  watch(token: string | null, listener: ((notice: ChangeNotice) => void) | null): Promise<Envelope<unknown>>
}

export type Send = (channel: string, args: unknown, token: string | null) => Promise<unknown>

/** How the preload asks the main process for the changes and hears them (ipcRenderer, in index.ts). */
export interface Watching {
  ask(token: string | null): Promise<unknown>
  /** The main process's messages on the changes' channel, each as it came; returns the unsubscription. */
  listen(fn: (message: unknown) => void): () => void
}

/** A message of the main process as the page may be told it: anything else is dropped. */
export function noticeOf(message: unknown): ChangeNotice | null {
  if (message === null || typeof message !== 'object') return null
  const m = message as { event?: unknown; changes?: unknown }
  if (m.event === 'ended') return { event: 'ended' }
  if (m.event !== 'change' || !Array.isArray(m.changes)) return null
  const changes = m.changes.filter(isChange).map((c) => ({ seq: c.seq, topic: c.topic, id: c.id }))
  return changes.length > 0 ? { event: 'change', changes } : null
}

const known = new Set<string>(CHANNEL_NAMES)

function isEnvelope(v: unknown): v is Envelope<unknown> {
  if (v === null || typeof v !== 'object') return false
  const e = v as { ok?: unknown; error?: unknown }
  return e.ok === true ? 'result' in e : e.ok === false && typeof e.error === 'object' && e.error !== null
}

/**
 * Refusals resolve with an error envelope rather than reject, so that the api client reports
 * them as it reports the backend's own (an ApiError with a code and a message).
 */
export function createBridge(send: Send, watching?: Watching): CaratsBridge {
  let stopListening: (() => void) | null = null
  return Object.freeze({
    async invoke(channel: string, args: unknown, token: string | null): Promise<Envelope<unknown>> {
      if (typeof channel !== 'string' || !known.has(channel)) {
        return {
          ok: false,
          error: {
            code: 'UNKNOWN_CHANNEL',
            message: `unknown channel ${JSON.stringify(String(channel))}: the app only calls the channels of its contract`,
          },
        }
      }
      if (token !== null && typeof token !== 'string') {
        return { ok: false, error: { code: 'BAD_ARGUMENTS', message: 'the session token must be a string or null' } }
      }
      try {
        const reply = await send(channel, args, token)
        if (isEnvelope(reply)) return reply
        return { ok: false, error: { code: 'INTERNAL', message: 'the main process answered without an envelope' } }
      } catch (e) {
        return {
          ok: false,
          error: {
            code: 'INTERNAL',
            message: `the main process could not be reached: ${e instanceof Error ? e.message : String(e)}`,
          },
        }
      }
    },
    async watch(token: string | null, listener: ((notice: ChangeNotice) => void) | null): Promise<Envelope<unknown>> {
      if (token !== null && typeof token !== 'string') {
        return { ok: false, error: { code: 'BAD_ARGUMENTS', message: 'the session token must be a string or null' } }
      }
      stopListening?.()
      stopListening = null
      if (!watching) return { ok: false, error: { code: 'UNKNOWN_CHANNEL', message: 'this window tells no changes' } }
      if (token !== null && typeof listener === 'function') {
        stopListening = watching.listen((m) => {
          const notice = noticeOf(m)
          if (notice) listener(notice)
        })
      }
      try {
        const reply = await watching.ask(token)
        return isEnvelope(reply) ? reply : { ok: false, error: { code: 'INTERNAL', message: 'no envelope' } }
      } catch (e) {
        return { ok: false, error: { code: 'INTERNAL', message: e instanceof Error ? e.message : String(e) } }
      }
    },
  })
}
