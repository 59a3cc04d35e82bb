import { EventEmitter } from 'node:events'
import type { Server } from 'node:http'
import { describe, expect, it, vi } from 'vitest'
import type { Backend } from '../app/backend'
import { lazyBackend } from './lazy-backend'

function fakeBackend() {
  return {
    dispatch: vi.fn(async (channel: string) => ({ ok: true as const, result: channel })),
    close: vi.fn(),
    closeGracefully: vi.fn(async () => {}),
  }
}
const asBackend = (b: ReturnType<typeof fakeBackend>) => b as unknown as Backend

describe('the browser host backend, opened after listening', () => {
  it('opens once, at the first api call, which it then answers', async () => {
    const b = fakeBackend()
    const load = vi.fn(() => asBackend(b))
    const lazy = lazyBackend(load, () => {})
    expect(load).not.toHaveBeenCalled()
    const [r1, r2] = await Promise.all([lazy.dispatch('auth:status', {}, null), lazy.dispatch('rules:get', {}, 't')])
    expect(r1).toEqual({ ok: true, result: 'auth:status' })
    expect(r2).toEqual({ ok: true, result: 'rules:get' })
    expect(b.dispatch).toHaveBeenLastCalledWith('rules:get', {}, 't')
    expect(load).toHaveBeenCalledTimes(1)
  })

  it('opens once the page’s files are served and the server is idle, not between the page and its files', async () => {
    vi.useFakeTimers()
    try {
      const load = vi.fn(() => asBackend(fakeBackend()))
      const lazy = lazyBackend(load, () => {})
      // the server and its responses, as far as the watch needs them: their events
      const server = new EventEmitter()
      const request = (url: string) => {
        const res = new EventEmitter()
        server.emit('request', { url }, res)
        return res
      }
      lazy.openWhenIdle(server as unknown as Server, { idleMs: 50, quietMs: 1000 })
      await vi.advanceTimersByTimeAsync(30)
      request('/').emit('close')
      // the browser reads the page before asking for its scripts: no opening meanwhile
      await vi.advanceTimersByTimeAsync(300)
      expect(load).not.toHaveBeenCalled()
      const script = request('/assets/index.js')
      const style = request('/assets/index.css')
      await vi.advanceTimersByTimeAsync(500)
      script.emit('close')
      await vi.advanceTimersByTimeAsync(500)
      expect(load).not.toHaveBeenCalled()
      style.emit('close')
      await vi.advanceTimersByTimeAsync(49)
      expect(load).not.toHaveBeenCalled()
      await vi.advanceTimersByTimeAsync(1)
      expect(load).toHaveBeenCalledTimes(1)
      // opened: the server is no longer watched
      expect(server.listenerCount('request')).toBe(0)
    } finally {
      vi.useRealTimers()
    }
  })

  it('opens after a quiet while when no page is loaded', async () => {
    vi.useFakeTimers()
    try {
      const load = vi.fn(() => asBackend(fakeBackend()))
      const lazy = lazyBackend(load, () => {})
      lazy.openWhenIdle(new EventEmitter() as unknown as Server, { idleMs: 50, quietMs: 1000 })
      await vi.advanceTimersByTimeAsync(999)
      expect(load).not.toHaveBeenCalled()
      await vi.advanceTimersByTimeAsync(1)
      expect(load).toHaveBeenCalledTimes(1)
    } finally {
      vi.useRealTimers()
    }
  })

  it('reports a ledger that cannot be opened once, and api calls fail with it', async () => {
    const onFailure = vi.fn()
    const lazy = lazyBackend(() => {
      throw new Error('not a ledger')
    }, onFailure)
    await expect(lazy.dispatch('auth:status', {}, null)).rejects.toThrow('not a ledger')
    await expect(lazy.open()).rejects.toThrow('not a ledger')
    expect(onFailure).toHaveBeenCalledTimes(1)
  })

  it('is never opened once stopped, and closes what it opened', async () => {
    const load = vi.fn(() => asBackend(fakeBackend()))
    const stopped = lazyBackend(load, () => {})
    const server = new EventEmitter()
    stopped.openWhenIdle(server as unknown as Server, { idleMs: 10, quietMs: 10 })
    await stopped.closeGracefully()
    expect(server.listenerCount('request')).toBe(0)
    await expect(stopped.open()).rejects.toThrow(/stopping/)
    expect(load).not.toHaveBeenCalled()

    const b = fakeBackend()
    const opened = lazyBackend(
      () => asBackend(b),
      () => {},
    )
    await opened.open()
    await opened.closeGracefully()
    expect(b.closeGracefully).toHaveBeenCalledTimes(1)
    opened.close()
    expect(b.close).toHaveBeenCalledTimes(1)
  })
})
