/**
 * What the preload gives the page: one function, `invoke(channel, args, token)`, that accepts
 * only the contract's channels and always answers with an envelope. The page never sees
 * ipcRenderer, nor any other Electron object.
 */
import { CHANNEL_NAMES } from '../contract'
import type { Envelope } from '../contract/errors'

/** The one IPC channel between the preload and the main process. */
export const INVOKE_CHANNEL = 'carats:invoke'

export interface CaratsBridge {
  invoke(channel: string, args: unknown, token: string | null): Promise<Envelope<unknown>>
}

export type Send = (channel: string, args: unknown, token: string | null) => Promise<unknown>

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
export function createBridge(send: Send): CaratsBridge {
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
  })
}
