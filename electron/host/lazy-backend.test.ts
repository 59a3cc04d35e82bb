import { EventEmitter } from 'node:events'
import type { Server } from 'node:http'
import { describe, expect, it, vi } from 'vitest'
import type { Backend } from '../services/backend'
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

  it('opens once the server has had no request in flight for a while, not during one', async () => {
    vi.useFakeTimers()
    try {
      const load = vi.fn(() => asBackend(fakeBackend()))
      const lazy = lazyBackend(load, () => {})
      // the server and a response, as far as the watch needs them: their events
      const server = new EventEmitter()
      lazy.openWhenIdle(server as unknown as Server, 50)
      await vi.advanceTimersByTimeAsync(30)
      const res = new EventEmitter()
      server.emit('request', {}, res)
      await vi.advanceTimersByTimeAsync(500)
      expect(load).not.toHaveBeenCalled()
      res.emit('close')
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
    stopped.openWhenIdle(server as unknown as Server, 10)
    await stopped.closeGracefully()
    expect(server.listenerCount('request')).toBe(0)
    await expect(stopped.open()).rejects.toThrow(/stopping/)
    expect(load).not.toHaveBeenCalled()

    const b = fakeBackend()
    const opened = lazyBackend(() => asBackend(b), () => {})
    await opened.open()
    await opened.closeGracefully()
    expect(b.closeGracefully).toHaveBeenCalledTimes(1)
    opened.close()
    expect(b.close).toHaveBeenCalledTimes(1)
  })
})
