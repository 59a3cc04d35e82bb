/**
 * The backend of the browser host, opened just after the host listens rather than before: the
 * page and its scripts need no ledger, so opening it (loading the services, checking the ledger,
 * preparing the sign-in) overlaps with the browser running the app's scripts instead of delaying
 * the first byte. It is opened at the first api call; or once the page's files have been served
 * and no request has been in flight for a moment (the browser is then busy running the scripts;
 * not between the page and its scripts, which would hold the scripts back); or after a quiet
 * while with no page loaded at all. Api calls wait for it.
 */
import type { Server } from 'node:http'
import type { Backend } from '../app/backend'
import type { HostBackend } from './host-types'

export interface LazyBackend extends HostBackend {
  /** Opens the backend if that has not started; the same promise every time. */
  open(): Promise<Backend>
  /**
   * Opens it once `server` has served a file other than the page itself and then had no request
   * in flight for `idleMs` (default 20 ms); or, before any such file, after `quietMs` (default
   * 1 s) with no request in flight.
   */
  openWhenIdle(server: Server, opts?: { idleMs?: number; quietMs?: number }): void
  /** Cancels running tasks and closes the ledger, if it is open; it will not be opened any more. */
  close(): void
  /** Same, after the running tasks have stopped (and after an opening under way). */
  closeGracefully(): Promise<void>
}

/**
 * `load` opens the backend. `onFailure` hears once why it could not be opened (api calls then
 * fail with that error too).
 */
export function lazyBackend(load: () => Backend | Promise<Backend>, onFailure: (error: unknown) => void): LazyBackend {
  let opening: Promise<Backend> | undefined
  let backend: Backend | undefined
  let closed: false | 'now' | 'gracefully' = false
  let stopWatching = () => {}

  function open(): Promise<Backend> {
    if (!opening) {
      stopWatching()
      opening = closed ? Promise.reject(new Error('the host is stopping')) : Promise.resolve().then(load)
      opening.then(
        (b) => {
          backend = b
          // stopped while it was opening (closeGracefully waits for the opening itself)
          if (closed === 'now') b.close()
        },
        (e: unknown) => {
          if (!closed) onFailure(e)
        },
      )
    }
    return opening
  }

  return {
    open,
    async dispatch(channel, args, token) {
      return (await open()).dispatch(channel, args, token)
    },
    openWhenIdle(server, { idleMs = 20, quietMs = 1000 } = {}) {
      if (opening || closed) return
      let inFlight = 0
      let servedFiles = false
      let timer: NodeJS.Timeout | undefined
      const arm = () => {
        clearTimeout(timer)
        if (inFlight === 0) timer = setTimeout(() => void open().catch(() => {}), servedFiles ? idleMs : quietMs)
      }
      const onRequest = (req: { url?: string }, res: { once(event: 'close', listener: () => void): unknown }) => {
        inFlight++
        clearTimeout(timer)
        const path = (req.url ?? '/').split(/[?#]/, 1)[0]
        const isPage = path === '/' || path === '/index.html'
        res.once('close', () => {
          inFlight--
          if (!isPage) servedFiles = true
          if (!opening) arm()
        })
      }
      server.on('request', onRequest)
      stopWatching = () => {
        clearTimeout(timer)
        server.off('request', onRequest)
      }
      arm()
    },
    close() {
      closed = 'now'
      stopWatching()
      backend?.close()
    },
    async closeGracefully() {
      closed = 'gracefully'
      stopWatching()
      const b = await opening?.catch(() => undefined)
      await b?.closeGracefully()
    },
  }
}
