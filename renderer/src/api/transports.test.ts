import { afterEach, describe, expect, it, vi } from 'vitest'
import { httpTransport, TransportError } from './transports'

afterEach(() => vi.unstubAllGlobals())

describe('httpTransport', () => {
  it('posts the args to /api/<channel> with the bearer token and returns the envelope', async () => {
    const fetch = vi.fn(async () => new Response(JSON.stringify({ ok: true, result: [1] }), { status: 200 }))
    vi.stubGlobal('fetch', fetch)
    const r = await httpTransport.invoke('emissions:list', {}, 'tok')
    expect(r).toEqual({ ok: true, result: [1] })
    expect(fetch).toHaveBeenCalledWith('/api/emissions:list', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer tok' },
      body: JSON.stringify({ args: {} }),
    })
  })

  it("sends a feed's bytes as the body, the other arguments in a header", async () => {
    const fetch = vi.fn(
      async (_url: string, _init: RequestInit) =>
        new Response(JSON.stringify({ ok: true, result: null }), { status: 200 }),
    )
    vi.stubGlobal('fetch', fetch)
    const bytes = new Uint8Array([0xef, 0xbb, 0xbf, 0x7b, 0x7d])
    await httpTransport.invoke('sales:import', { content: bytes, fileName: 'é.jsonl' }, 'tok')
    const [url, init] = fetch.mock.calls[0]
    expect(url).toBe('/api/sales:import')
    expect(init.body).toBeInstanceOf(Blob)
    expect(new Uint8Array(await (init.body as Blob).arrayBuffer())).toEqual(bytes)
    expect(init.headers).toEqual({
      'content-type': 'application/octet-stream',
      'x-carats-args': encodeURIComponent('{"fileName":"é.jsonl"}'),
      authorization: 'Bearer tok',
    })
    // text stays JSON
    await httpTransport.invoke('sales:import', { content: '{}', fileName: 'a' }, 'tok')
    expect(fetch.mock.calls[1][1].headers).toMatchObject({ 'content-type': 'application/json' })
  })

  it('passes error envelopes through, whatever the HTTP status', async () => {
    const body = { ok: false, error: { code: 'FORBIDDEN', message: 'no' } }
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => new Response(JSON.stringify(body), { status: 403 })),
    )
    expect(await httpTransport.invoke('users:list', {}, null)).toEqual(body)
  })

  it('says the server cannot be reached, or did not answer an envelope', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => {
        throw new TypeError('Failed to fetch')
      }),
    )
    await expect(httpTransport.invoke('auth:status', {}, null)).rejects.toBeInstanceOf(TransportError)
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => new Response('<html>bad gateway</html>', { status: 502 })),
    )
    await expect(httpTransport.invoke('auth:status', {}, null)).rejects.toThrow(/502/)
  })
})

describe('ipcTransport', () => {
  it('hands the bridge a plain copy of reactive arguments', async () => {
    const { reactive } = await import('vue')
    const { ipcTransport } = await import('./transports')
    const invoke = vi.fn(async () => ({ ok: true as const, result: null }))
    vi.stubGlobal('window', { carats: { invoke } })
    const args = reactive({ actor: 'alice', page: 2 })
    await ipcTransport.invoke('audit:list', args, 't')
    const passed = (invoke.mock.calls[0] as unknown[])[1]
    expect(passed).toEqual({ actor: 'alice', page: 2 })
    expect(structuredClone(passed)).toEqual({ actor: 'alice', page: 2 })
  })

  it("hands the bridge a feed's bytes as they are, for structured clone", async () => {
    const { ipcTransport } = await import('./transports')
    const invoke = vi.fn(async () => ({ ok: true as const, result: null }))
    vi.stubGlobal('window', { carats: { invoke } })
    const bytes = new Uint8Array([1, 2, 3])
    await ipcTransport.invoke('sales:import', { content: bytes, fileName: 'a.jsonl' }, 't')
    const passed = (invoke.mock.calls[0] as unknown[])[1] as { content: Uint8Array; fileName: string }
    expect(passed.content).toBe(bytes)
    expect(passed.fileName).toBe('a.jsonl')
    expect(structuredClone(passed).content).toEqual(bytes)
  })
})
