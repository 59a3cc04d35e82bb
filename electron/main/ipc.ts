/**
 * The main-process side of the one IPC channel: check who is asking, then hand the call to the
 * backend's dispatcher, which validates the arguments and the caller's session and role.
 */
import type { Envelope } from '../contract/errors'
import { isTrustedSender } from './security'

export interface Dispatch {
  dispatch(channel: string, args: unknown, token: string | null): Promise<Envelope<unknown>>
}

/** The parts of Electron's IpcMainInvokeEvent that the check reads. */
export interface InvokeEvent {
  senderFrame: { url: string } | null
}

export function createInvokeHandler(
  backend: Dispatch,
  trustedOrigin: string,
  onRefused: (url: string) => void = () => {},
) {
  return async (event: InvokeEvent, channel: unknown, args: unknown, token: unknown): Promise<Envelope<unknown>> => {
    const url = event.senderFrame?.url
    if (!isTrustedSender(url, trustedOrigin)) {
      onRefused(url ?? '(no frame)')
      return { ok: false, error: { code: 'FORBIDDEN', message: 'this page may not call the back-office' } }
    }
    if (typeof channel !== 'string') {
      return { ok: false, error: { code: 'UNKNOWN_CHANNEL', message: 'the channel must be a string' } }
    }
    if (token !== null && typeof token !== 'string') {
      return { ok: false, error: { code: 'BAD_ARGUMENTS', message: 'the session token must be a string or null' } }
    }
    try {
      return await backend.dispatch(channel, args, token)
    } catch (e) {
      return {
        ok: false,
        error: { code: 'INTERNAL', message: `unexpected error: ${e instanceof Error ? e.message : String(e)}` },
      }
    }
  }
}
