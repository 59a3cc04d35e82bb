import { describe, expect, it } from 'vitest'
import type { Envelope } from '../contract/errors'
import { createInvokeHandler } from './ipc'
import { APP_ENTRY_URL, APP_ORIGIN } from './security'

function setup() {
  const calls: unknown[][] = []
  const refused: string[] = []
  const backend = {
    async dispatch(channel: string, args: unknown, token: string | null): Promise<Envelope<unknown>> {
      calls.push([channel, args, token])
      return { ok: true, result: 'done' }
    },
  }
  return { calls, refused, handle: createInvokeHandler(backend, APP_ORIGIN, (u) => refused.push(u)) }
}

const fromApp = { senderFrame: { url: `${APP_ENTRY_URL}#/emissions` } }

describe('IPC invoke handler', () => {
  it('dispatches a call from the app page with its channel, args and token', async () => {
    const { calls, handle } = setup()
    expect(await handle(fromApp, 'emissions:list', {}, 'tok')).toEqual({ ok: true, result: 'done' })
    expect(await handle(fromApp, 'auth:status', {}, null)).toEqual({ ok: true, result: 'done' })
    expect(calls).toEqual([
      ['emissions:list', {}, 'tok'],
      ['auth:status', {}, null],
    ])
  })

  it('refuses senders that are not the app, without dispatching', async () => {
    const { calls, refused, handle } = setup()
    for (const url of [
      'file:///work/main/out/renderer/index.html',
      'http://evil.example/',
      'about:blank',
      'data:text/html,x',
    ]) {
      expect(await handle({ senderFrame: { url } }, 'auth:status', {}, null), url).toMatchObject({
        ok: false,
        error: { code: 'FORBIDDEN' },
      })
    }
    expect(await handle({ senderFrame: null }, 'auth:status', {}, null)).toMatchObject({
      ok: false,
      error: { code: 'FORBIDDEN' },
    })
    expect(calls).toHaveLength(0)
    expect(refused).toHaveLength(5)
  })

  it('refuses a non-string channel or token', async () => {
    const { calls, handle } = setup()
    expect(await handle(fromApp, 7, {}, null)).toMatchObject({ ok: false, error: { code: 'UNKNOWN_CHANNEL' } })
    expect(await handle(fromApp, 'auth:status', {}, 12)).toMatchObject({ ok: false, error: { code: 'BAD_ARGUMENTS' } })
    expect(await handle(fromApp, 'auth:status', {}, undefined)).toMatchObject({
      ok: false,
      error: { code: 'BAD_ARGUMENTS' },
    })
    expect(calls).toHaveLength(0)
  })

  it('turns a backend that throws into an INTERNAL envelope', async () => {
    const handle = createInvokeHandler({ dispatch: () => Promise.reject(new Error('boom')) }, APP_ORIGIN)
    expect(await handle(fromApp, 'auth:status', {}, null)).toMatchObject({
      ok: false,
      error: { code: 'INTERNAL', message: expect.stringContaining('boom') },
    })
  })
})
