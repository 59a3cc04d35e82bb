import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { request as httpRequest } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { Envelope } from '../contract/errors'
import { contentSecurityPolicy } from '../main/security'
import { createHost, type Host } from './server'

interface Call {
  channel: string
  args: unknown
  token: string | null
}

/** A backend with the dispatcher's one rule that matters here: only auth:* is public. */
function fakeBackend() {
  const calls: Call[] = []
  return {
    calls,
    async dispatch(channel: string, args: unknown, token: string | null): Promise<Envelope<unknown>> {
      calls.push({ channel, args, token })
      if (channel === 'auth:login') return { ok: true, result: { token: 'tok-123', user: { name: 'ada' } } }
      if (!channel.startsWith('auth:') && token !== 'tok-123') {
        return { ok: false, error: { code: 'NOT_SIGNED_IN', message: 'sign in' } }
      }
      return { ok: true, result: { channel, args, token } }
    },
  }
}

let dir: string
let host: Host
let backend: ReturnType<typeof fakeBackend>

/** Raw HTTP, so that Host and Origin can be set as an attacker would (fetch forbids both). */
function raw(
  path: string,
  opts: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {},
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port: host.port, path, method: opts.method ?? 'GET', headers: { host: `127.0.0.1:${host.port}`, ...opts.headers } },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }))
        res.on('error', reject)
      },
    )
    req.on('error', reject)
    req.end(opts.body)
  })
}

function api(channel: string, body: unknown, headers: Record<string, string> = {}) {
  return raw(`/api/${channel}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  })
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'carats-host-'))
  mkdirSync(join(dir, 'assets'))
  writeFileSync(join(dir, 'index.html'), '<!doctype html><title>app</title>')
  writeFileSync(join(dir, 'assets', 'index-abc123.js'), 'console.log(1)')
  writeFileSync(join(dir, 'assets', 'index-abc123.css'), 'body{}')
  writeFileSync(join(dir, 'icon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>')
  writeFileSync(join(dir, '.secret'), 'hidden')
  writeFileSync(join(tmpdir(), 'carats-host-outside.txt'), 'outside')
})

afterAll(() => {
  rmSync(dir, { recursive: true, force: true })
  rmSync(join(tmpdir(), 'carats-host-outside.txt'), { force: true })
})

describe('browser host', () => {
  beforeEach(async () => {
    backend = fakeBackend()
    host = await createHost({ backend, staticDir: dir, maxBodyBytes: 1024, onError: () => {} })
    return () => host.close()
  })

  it('listens on 127.0.0.1 and reports its url', () => {
    expect(host.url).toBe(`http://127.0.0.1:${host.port}/`)
    expect(host.server.address()).toMatchObject({ address: '127.0.0.1' })
  })

  describe('static files', () => {
    it('serves index.html with the CSP and security headers', async () => {
      const r = await raw('/')
      expect(r.status).toBe(200)
      expect(r.headers['content-type']).toBe('text/html; charset=utf-8')
      expect(r.text).toContain('<title>app</title>')
      expect(r.headers['content-security-policy']).toBe(contentSecurityPolicy())
      expect(r.headers['x-content-type-options']).toBe('nosniff')
      expect(r.headers['cache-control']).toBe('no-cache')
    })

    it('gives correct MIME types and caches hashed assets for ever', async () => {
      const js = await raw('/assets/index-abc123.js')
      expect(js.status).toBe(200)
      expect(js.headers['content-type']).toBe('text/javascript; charset=utf-8')
      expect(js.headers['cache-control']).toContain('immutable')
      expect((await raw('/assets/index-abc123.css')).headers['content-type']).toBe('text/css; charset=utf-8')
      expect((await raw('/icon.svg')).headers['content-type']).toBe('image/svg+xml')
    })

    it('answers a screen path with index.html but a missing file with 404', async () => {
      const screen = await raw('/emissions/3?tab=blocks')
      expect(screen.status).toBe(200)
      expect(screen.text).toContain('<title>app</title>')
      expect((await raw('/assets/missing.js')).status).toBe(404)
    })

    it('never serves dotfiles or anything outside its folder', async () => {
      expect((await raw('/.secret')).status).toBe(404)
      expect((await raw('/../carats-host-outside.txt')).status).toBe(404)
      expect((await raw('/%2e%2e/carats-host-outside.txt')).status).toBe(404)
      expect((await raw('/assets/%2e%2e/%2e%2e/carats-host-outside.txt')).status).toBe(404)
      expect((await raw('/%5c..%5ccarats-host-outside.txt')).status).toBe(400)
      expect((await raw('/%E0%A4%A')).status).toBe(400)
    })

    it('refuses other methods on pages', async () => {
      const r = await raw('/', { method: 'DELETE' })
      expect(r.status).toBe(405)
      expect(r.headers.allow).toBe('GET, HEAD')
    })
  })

  describe('host and origin checks', () => {
    it('refuses a foreign Host header (DNS rebinding), for pages and api alike', async () => {
      const page = await raw('/', { headers: { host: `evil.example:${host.port}` } })
      expect(page.status).toBe(403)
      expect(page.text).not.toContain('<title>')
      const call = await api('auth:status', { args: {} }, { host: 'evil.example' })
      expect(call.status).toBe(403)
      expect(JSON.parse(call.text)).toMatchObject({ ok: false, error: { code: 'FORBIDDEN' } })
      expect((await raw('/', { headers: { host: '127.0.0.1:1' } })).status).toBe(403)
      expect(backend.calls).toHaveLength(0)
    })

    it('accepts localhost:<port> as its own name', async () => {
      expect((await raw('/', { headers: { host: `localhost:${host.port}` } })).status).toBe(200)
    })

    it('refuses a foreign Origin (CSRF) and cross-site fetch metadata', async () => {
      for (const origin of ['http://evil.example', 'null', `http://127.0.0.1:${host.port + 1}`, `https://127.0.0.1:${host.port}`]) {
        const r = await api('auth:status', { args: {} }, { origin })
        expect(r.status, origin).toBe(403)
      }
      const site = await api('auth:status', { args: {} }, { 'sec-fetch-site': 'cross-site' })
      expect(site.status).toBe(403)
      expect(backend.calls).toHaveLength(0)
      const own = await api('auth:status', { args: {} }, { origin: `http://localhost:${host.port}`, 'sec-fetch-site': 'same-origin' })
      expect(own.status).toBe(200)
      expect(backend.calls).toHaveLength(1)
    })
  })

  describe('api', () => {
    it('passes the channel, the args and the bearer token to the backend, and no token when none is sent', async () => {
      const login = await api('auth:login', { args: { name: 'ada', password: 'secret-password' } })
      expect(login.status).toBe(200)
      expect(login.headers['cache-control']).toBe('no-store')
      expect(login.headers['content-type']).toBe('application/json; charset=utf-8')
      const session = JSON.parse(login.text) as { ok: true; result: { token: string } }
      expect(backend.calls[0]).toEqual({ channel: 'auth:login', args: { name: 'ada', password: 'secret-password' }, token: null })

      const list = await api('emissions:list', { args: {} }, { authorization: `Bearer ${session.result.token}` })
      expect(JSON.parse(list.text)).toEqual({ ok: true, result: { channel: 'emissions:list', args: {}, token: 'tok-123' } })
      expect(backend.calls[1].token).toBe('tok-123')
    })

    it('adds no authority of its own: without a token the backend refuses, whatever else is sent', async () => {
      const anonymous = await api('emissions:list', { args: {} })
      expect(JSON.parse(anonymous.text)).toMatchObject({ ok: false, error: { code: 'NOT_SIGNED_IN' } })
      await api('emissions:list', { args: {} }, { authorization: 'Basic dG9rLTEyMw==', cookie: 'token=tok-123' })
      await api('emissions:list', { args: {}, token: 'tok-123' })
      expect(backend.calls.map((c) => c.token)).toEqual([null, null, null])
    })

    it('answers an unknown channel with an UNKNOWN_CHANNEL envelope, without calling the backend', async () => {
      for (const name of ['nope:nothing', 'toString', '__proto__', '']) {
        const r = await api(name, { args: {} })
        expect(r.status, name).toBe(404)
        expect(JSON.parse(r.text)).toMatchObject({ ok: false, error: { code: 'UNKNOWN_CHANNEL' } })
      }
      expect(backend.calls).toHaveLength(0)
    })

    it('refuses an oversized body with 413 and a clear message', async () => {
      const big = JSON.stringify({ args: { content: 'x'.repeat(2000) } })
      const r = await api('sales:import', big)
      expect(r.status).toBe(413)
      const env = JSON.parse(r.text) as { ok: false; error: { code: string; message: string } }
      expect(env.error.code).toBe('BAD_ARGUMENTS')
      expect(env.error.message).toMatch(/larger than/)
      expect(backend.calls).toHaveLength(0)
    })

    it('refuses an oversized body sent without Content-Length (chunked)', async () => {
      const r = await raw('/api/sales:import', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
        body: JSON.stringify({ args: { content: 'y'.repeat(5000) } }),
      })
      expect(r.status).toBe(413)
      expect(backend.calls).toHaveLength(0)
    })

    it('answers bad JSON and non-object bodies with a BAD_ARGUMENTS envelope', async () => {
      const bad = await api('auth:status', '{"args": ')
      expect(bad.status).toBe(400)
      expect(JSON.parse(bad.text)).toMatchObject({ ok: false, error: { code: 'BAD_ARGUMENTS', message: expect.stringMatching(/not valid JSON/) } })
      for (const body of ['[1,2]', '"args"', 'null', '3']) {
        const r = await api('auth:status', body)
        expect(r.status, body).toBe(400)
        expect(JSON.parse(r.text)).toMatchObject({ ok: false, error: { code: 'BAD_ARGUMENTS' } })
      }
      expect(backend.calls).toHaveLength(0)
    })

    it('accepts an empty body as no arguments', async () => {
      const r = await api('auth:status', '')
      expect(r.status).toBe(200)
      expect(backend.calls[0]).toEqual({ channel: 'auth:status', args: undefined, token: null })
    })

    it('takes only POST with a JSON content type', async () => {
      const get = await raw('/api/auth:status')
      expect(get.status).toBe(405)
      expect(get.headers.allow).toBe('POST')
      const form = await raw('/api/auth:status', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'args=1' })
      expect(form.status).toBe(415)
      const text = await raw('/api/auth:status', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{"args":{}}' })
      expect(text.status).toBe(415)
      expect(backend.calls).toHaveLength(0)
    })

    it('reports a backend that throws as an INTERNAL envelope', async () => {
      await host.close()
      host = await createHost({
        backend: { dispatch: () => Promise.reject(new Error('disk on fire')) },
        staticDir: dir,
        onError: () => {},
      })
      const r = await api('auth:status', { args: {} })
      expect(r.status).toBe(500)
      expect(JSON.parse(r.text)).toMatchObject({ ok: false, error: { code: 'INTERNAL', message: expect.stringContaining('disk on fire') } })
    })
  })
})
