import { describe, expect, it } from 'vitest'
import { CHANNEL_NAMES } from '../contract'
import { createBridge, type Send } from './bridge'

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

  it('exposes only invoke, frozen', () => {
    const { bridge } = recording()
    expect(Object.keys(bridge)).toEqual(['invoke'])
    expect(Object.isFrozen(bridge)).toBe(true)
  })
})
