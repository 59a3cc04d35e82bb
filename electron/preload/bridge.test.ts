import { describe, expect, it } from 'vitest'
import { CHANNEL_NAMES } from '../contract'
import { createBridge, noticeOf, type ChangeNotice, type Send, type Watching } from './bridge'

function recording(reply: (channel: string) => Promise<unknown> = async () => ({ ok: true, result: 42 })) {
  const sent: unknown[][] = []
  const send: Send = (channel, args, token) => {
    sent.push([channel, args, token])
    return reply(channel)
  }
  return { sent, bridge: createBridge(send) }
}

describe('preload bridge', () => {
  it('forwards every channel of the contract with its args and token', async () => {
    const { sent, bridge } = recording()
    for (const name of CHANNEL_NAMES) {
      await expect(bridge.invoke(name, { a: 1 }, 'tok')).resolves.toEqual({ ok: true, result: 42 })
    }
    expect(sent).toHaveLength(CHANNEL_NAMES.length)
    expect(sent[0]).toEqual([CHANNEL_NAMES[0], { a: 1 }, 'tok'])
    await bridge.invoke('auth:status', {}, null)
    expect(sent.at(-1)).toEqual(['auth:status', {}, null])
  })

  it('refuses any other channel with an UNKNOWN_CHANNEL envelope, without sending', async () => {
    const { sent, bridge } = recording()
    for (const name of ['carats:invoke', 'nope', '', 'toString', '__proto__', 'constructor']) {
      const r = await bridge.invoke(name, {}, null)
      expect(r, name).toMatchObject({ ok: false, error: { code: 'UNKNOWN_CHANNEL' } })
    }
    const notString = await bridge.invoke(42 as unknown as string, {}, null)
    expect(notString).toMatchObject({ ok: false, error: { code: 'UNKNOWN_CHANNEL' } })
    expect(sent).toHaveLength(0)
  })

  it('refuses a token that is not a string or null', async () => {
    const { sent, bridge } = recording()
    const r = await bridge.invoke('auth:status', {}, { steal: true } as unknown as string)
    expect(r).toMatchObject({ ok: false, error: { code: 'BAD_ARGUMENTS' } })
    expect(sent).toHaveLength(0)
  })

  it('turns a failed or malformed reply into an INTERNAL envelope', async () => {
    const failing = recording(() => Promise.reject(new Error('ipc closed')))
    expect(await failing.bridge.invoke('auth:status', {}, null)).toMatchObject({
      ok: false,
      error: { code: 'INTERNAL', message: expect.stringContaining('ipc closed') },
    })
    const odd = recording(async () => 'hello')
    expect(await odd.bridge.invoke('auth:status', {}, null)).toMatchObject({ ok: false, error: { code: 'INTERNAL' } })
    const error = { ok: false, error: { code: 'FORBIDDEN', message: 'no' } }
    expect(await recording(async () => error).bridge.invoke('auth:status', {}, null)).toEqual(error)
  })

  it('exposes only invoke and watch, frozen', () => {
    const { bridge } = recording()
    expect(Object.keys(bridge)).toEqual(['invoke', 'watch'])
    expect(Object.isFrozen(bridge)).toBe(true)
  })
})

describe('the changes through the preload', () => {
  function watching() {
    const asked: (string | null)[] = []
    const listeners = new Set<(m: unknown) => void>()
    const w: Watching = {
      ask: async (token) => {
        asked.push(token)
        return { ok: true, result: { watching: token !== null } }
      },
      listen(fn) {
        listeners.add(fn)
        return () => listeners.delete(fn)
      },
    }
    const send = (m: unknown) => listeners.forEach((l) => l(m))
    return { asked, listeners, send, bridge: createBridge(async () => ({ ok: true, result: 1 }), w) }
  }

  it('asks with the token, tells the listener each checked notice, and stops on null', async () => {
    const { asked, listeners, send, bridge } = watching()
    const heard: ChangeNotice[] = []
    expect(await bridge.watch('tok', (n) => heard.push(n))).toEqual({ ok: true, result: { watching: true } })
    send({
      event: 'change',
      changes: [
        { seq: 1, topic: 'claims', id: 'x', extra: 'dropped' },
        { seq: 2, topic: 'keys' },
      ],
    })
    send({ event: 'steal', changes: [] })
    send('nonsense')
    send({ event: 'ended' })
    expect(heard).toEqual([{ event: 'change', changes: [{ seq: 1, topic: 'claims', id: 'x' }] }, { event: 'ended' }])
    // watching again replaces the listener: never two
    await bridge.watch('tok', () => {})
    expect(listeners.size).toBe(1)
    await bridge.watch(null, null)
    expect(listeners.size).toBe(0)
    expect(asked).toEqual(['tok', 'tok', null])
  })

  it('refuses a token that is not a string, and says when the window tells no changes', async () => {
    const { asked, bridge } = watching()
    expect(await bridge.watch(42 as unknown as string, () => {})).toMatchObject({
      ok: false,
      error: { code: 'BAD_ARGUMENTS' },
    })
    expect(asked).toEqual([])
    const plain = createBridge(async () => ({ ok: true, result: 1 }))
    expect(await plain.watch('tok', () => {})).toMatchObject({ ok: false, error: { code: 'UNKNOWN_CHANNEL' } })
  })

  it('a notice is only what the contract says a change is', () => {
    expect(noticeOf({ event: 'change', changes: [] })).toBeNull()
    expect(noticeOf(null)).toBeNull()
    expect(noticeOf({ event: 'ended', secret: 1 })).toEqual({ event: 'ended' })
  })
})
