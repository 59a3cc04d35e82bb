/**
 * The changes in the Electron window: the same as the browser host's stream of
 * events (host/host-events.ts), over IPC. The page asks for them with its session's token
 * (WATCH_CHANNEL, through the preload's `watch`); the main process then sends it each batch of the
 * changes its role may read (CHANGES_CHANNEL), or `ended` once the session is over. Only the app's
 * own page may ask, as for every call (security.ts isTrustedSender). A window closed or reloaded is
 * forgotten.
 */
import type { ChangeSource } from '../app/change-feed'
import { changesFor, type Change, type ChangeViewer } from '../contract/changes'
import { CHANGES_CHANNEL } from '../contract/changes'
import type { Envelope } from '../contract/errors'
import { isTrustedSender } from './security'

/** The parts of a WebContents the relay uses. */
export interface WatchingContents {
  readonly id: number
  send(channel: string, message: ChangeMessage): void
  isDestroyed(): boolean
  once(event: 'destroyed' | 'did-start-navigation', listener: () => void): unknown
}

export interface WatchEvent {
  senderFrame: { url: string } | null
  sender: WatchingContents
}

export type ChangeMessage = { event: 'change'; changes: Change[] } | { event: 'ended' }

interface Watcher {
  contents: WatchingContents
  token: string
  viewer: ChangeViewer
}

export function createChangeRelay(
  source: ChangeSource | null,
  peek: (token: string) => ChangeViewer | null,
  trustedOrigin: string,
) {
  const watchers = new Map<number, Watcher>()

  function forget(id: number): void {
    watchers.delete(id)
  }

  function tell(w: Watcher, changes: Change[]): void {
    if (w.contents.isDestroyed()) return forget(w.contents.id)
    if (changes.some((c) => c.topic === 'session' || c.topic === 'users')) {
      const viewer = peek(w.token)
      if (!viewer) {
        forget(w.contents.id)
        return w.contents.send(CHANGES_CHANNEL, { event: 'ended' })
      }
      w.viewer = viewer
    }
    const told = changesFor(changes, w.viewer)
    if (told.length > 0) w.contents.send(CHANGES_CHANNEL, { event: 'change', changes: told })
  }

  source?.subscribe((changes) => {
    for (const w of [...watchers.values()]) tell(w, changes)
  })

  /** The page's request: its token (null: stop). */
  function watch(event: WatchEvent, token: unknown): Envelope<{ watching: boolean }> {
    if (!isTrustedSender(event.senderFrame?.url, trustedOrigin))
      return { ok: false, error: { code: 'FORBIDDEN', message: 'this page may not watch the back-office' } }
    if (token !== null && typeof token !== 'string')
      return { ok: false, error: { code: 'BAD_ARGUMENTS', message: 'the session token must be a string or null' } }
    const contents = event.sender
    if (token === null || !source) {
      forget(contents.id)
      return { ok: true, result: { watching: false } }
    }
    const viewer = peek(token)
    if (!viewer)
      return { ok: false, error: { code: 'NOT_SIGNED_IN', message: 'your session has ended: sign in again' } }
    if (!watchers.has(contents.id)) {
      contents.once('destroyed', () => forget(contents.id))
      contents.once('did-start-navigation', () => forget(contents.id))
    }
    watchers.set(contents.id, { contents, token, viewer })
    return { ok: true, result: { watching: true } }
  }

  return {
    watch,
    get size() {
      return watchers.size
    },
  }
}
