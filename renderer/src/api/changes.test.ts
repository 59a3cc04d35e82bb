import { afterEach, describe, expect, it, vi } from 'vitest'
import type { Change } from '../../../electron/contract/changes'
import { changesOf, createChangeFeedClient, EVERYTHING, FALLBACK_POLL_MS, parseEvents } from './changes'
import { touches } from '../composables/useChanges'

describe('the server-sent events read from the stream', () => {
  it('splits whole events, keeps what is still arriving, and skips comments', () => {
    const { events, rest } = parseEvents(
      'retry: 2000\nevent: ready\ndata: {}\n\n: ping\n\nid: 4\nevent: change\ndata: [1]\n\nevent: cha',
    )
    expect(events).toEqual([
      { event: 'ready', data: '{}' },
      { event: 'change', data: '[1]' },
    ])
    expect(rest).toBe('event: cha')
    expect(parseEvents('data: a\r\ndata: b\r\n\r\n').events).toEqual([{ event: 'message', data: 'a\nb' }])
  })

  it('takes only changes as the contract shapes them', () => {
    expect(changesOf('[{"seq":1,"topic":"claims","id":"x"},{"seq":2,"topic":"nope","id":null},7]')).toEqual([
      { seq: 1, topic: 'claims', id: 'x' },
    ])
    expect(changesOf('not json')).toEqual([])
  })
})

describe('which changes a screen reads again for', () => {
  const c = (topic: Change['topic'], id: string | null): Change => ({ seq: 1, topic, id })
  it('its topics, for its id or the whole topic', () => {
    expect(touches([c('claims', 'a')], ['claims'], 'a')).toBe(true)
    expect(touches([c('claims', 'b')], ['claims'], 'a')).toBe(false)
    expect(touches([c('claims', null)], ['claims'], 'a')).toBe(true)
    expect(touches([c('ceremony', 'a')], ['claims'])).toBe(false)
    expect(touches([c('claims', 'b')], ['claims'])).toBe(true)
  })
})

describe('the change feed through the preload', () => {
  type Listener = (n: { event: 'change'; changes: unknown[] } | { event: 'ended' }) => void
  let listener: Listener | null = null
  const asked: (string | null)[] = []

  function bridge(reply: { ok: boolean }) {
    vi.stubGlobal('window', {
      carats: {
        invoke: async () => ({ ok: true, result: null }),
        watch: async (token: string | null, l: Listener | null) => {
          asked.push(token)
          listener = l
          return reply.ok ? { ok: true, result: {} } : { ok: false, error: { code: 'INTERNAL', message: 'down' } }
        },
      },
    })
  }

  afterEach(() => {
    vi.useRealTimers()
    vi.unstubAllGlobals()
    asked.length = 0
    listener = null
  })

  it('watches with the token while someone listens, and tells each batch; a session that ended is told', async () => {
    bridge({ ok: true })
    const feed = createChangeFeedClient({ ipc: true })
    const heard: Change[][] = []
    feed.setToken('tok')
    const stop = feed.onChange((c) => heard.push(c))
    await vi.waitFor(() => expect(asked).toEqual(['tok']))
    listener!({ event: 'change', changes: [{ seq: 3, topic: 'ceremony', id: '2' }, { bad: true }] })
    expect(heard).toEqual([[{ seq: 3, topic: 'ceremony', id: '2' }]])
    listener!({ event: 'ended' })
    await vi.waitFor(() => expect(heard.at(-1)).toEqual([{ seq: 0, topic: 'session', id: null }]))
    stop()
  })

  it('falls back to telling everything every few seconds while the stream is down, and tries again', async () => {
    vi.useFakeTimers()
    bridge({ ok: false })
    const feed = createChangeFeedClient({ ipc: true })
    const heard: Change[][] = []
    feed.setToken('tok')
    feed.onChange((c) => heard.push(c))
    await vi.advanceTimersByTimeAsync(FALLBACK_POLL_MS + 10)
    expect(heard).toContainEqual(EVERYTHING)
    expect(asked.filter((t) => t === 'tok').length).toBeGreaterThanOrEqual(1)
    feed.setToken(null)
    const before = heard.length
    await vi.advanceTimersByTimeAsync(FALLBACK_POLL_MS * 3)
    expect(heard.length).toBe(before)
  })
})
