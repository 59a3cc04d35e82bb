import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { request as httpRequest } from 'node:http'
import { connect as tcpConnect, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createDispatcher, type Handlers } from '../contract/dispatch'
import type { Envelope } from '../contract/errors'
import { contentSecurityPolicy } from '../main/security'
import { createHost, HOST_LIMITS, type Host, type HostOptions } from './server'

interface Call {
  channel: string
  args: unknown
  token: string | null
}

const SESSION = 'tok-123'

/**
 * A backend with the dispatcher's one rule that matters here: only auth:* is public; and the
 * session lookup the host may ask first (services.users.sessionRole), which knows one session.
 */
function fakeBackend() {
  const calls: Call[] = []
  const resolved: (string | null)[] = []
  return {
    calls,
    resolved,
    services: {
      users: {
        sessionRole(token: string | null) {
          resolved.push(token)
          return token === SESSION ? { userId: 1, name: 'ada', role: 'operator' as const, token } : null
        },
      },
    },
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
      {
        host: '127.0.0.1',
        port: host.port,
        path,
        method: opts.method ?? 'GET',
        headers: { host: `127.0.0.1:${host.port}`, ...opts.headers },
      },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }),
        )
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
    body: typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body),
  })
}

/** The host again, with other options (the backend and the folder stay). */
async function restart(opts: Partial<HostOptions> = {}): Promise<void> {
  await host.close()
  host = await createHost({ backend, staticDir: dir, onError: () => {}, ...opts })
}

/** A raw TCP connection to the host, for requests that stop half way or go slowly. */
function open(): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = tcpConnect({ host: '127.0.0.1', port: host.port }, () => {
      s.off('error', reject)
      s.on('error', () => {}) // a reset after the reply is expected in these tests
      resolve(s)
    })
    s.once('error', reject)
  })
}

function head(method: string, path: string, headers: Record<string, string> = {}): string {
  const all = { host: `127.0.0.1:${host.port}`, ...headers }
  return `${method} ${path} HTTP/1.1\r\n${Object.entries(all)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')}\r\n`
}

interface RawReply {
  status: number
  headers: Record<string, string>
  body: string
}

/** The first reply on `s` (Content-Length, chunked, or up to the close), within `ms`. */
function reply(s: Socket, ms: number): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    let buf = Buffer.alloc(0)
    const stop = (f: () => void) => {
      clearTimeout(timer)
      s.off('data', onData)
      s.off('close', onClose)
      f()
    }
    const timer = setTimeout(() => stop(() => reject(new Error(`no reply within ${ms} ms`))), ms)
    const parse = (closed: boolean): RawReply | null => {
      const end = buf.indexOf('\r\n\r\n')
      if (end < 0) return null
      const [statusLine, ...lines] = buf.subarray(0, end).toString('latin1').split('\r\n')
      const headers: Record<string, string> = {}
      for (const l of lines)
        headers[l.slice(0, l.indexOf(':')).trim().toLowerCase()] = l.slice(l.indexOf(':') + 1).trim()
      const status = Number(statusLine.split(' ')[1])
      let rest = buf.subarray(end + 4)
      if (headers['content-length'] !== undefined) {
        const n = Number(headers['content-length'])
        return rest.length >= n ? { status, headers, body: rest.subarray(0, n).toString('utf8') } : null
      }
      if (headers['transfer-encoding'] === 'chunked') {
        const parts: Buffer[] = []
        for (;;) {
          const eol = rest.indexOf('\r\n')
          if (eol < 0) return null
          const size = parseInt(rest.subarray(0, eol).toString('latin1'), 16)
          if (rest.length < eol + 2 + size + 2) return null
          if (size === 0) return { status, headers, body: Buffer.concat(parts).toString('utf8') }
          parts.push(rest.subarray(eol + 2, eol + 2 + size))
          rest = rest.subarray(eol + 2 + size + 2)
        }
      }
      return closed ? { status, headers, body: rest.toString('utf8') } : null
    }
    const onData = (c: Buffer) => {
      buf = Buffer.concat([buf, c])
      const r = parse(false)
      if (r) stop(() => resolve(r))
    }
    const onClose = () => {
      const r = parse(true)
      stop(() =>
        r
          ? resolve(r)
          : reject(new Error(`closed without a reply${buf.length ? `: ${buf.toString('latin1').slice(0, 200)}` : ''}`)),
      )
    }
    s.on('data', onData)
    s.once('close', onClose)
  })
}

/** Resolves once the host has closed `s`, within `ms`; the time it took. */
function closedBy(s: Socket, ms: number): Promise<number> {
  const t0 = Date.now()
  return new Promise((resolve, reject) => {
    if (s.destroyed || s.readableEnded) return resolve(0)
    const timer = setTimeout(() => reject(new Error(`the host kept the connection open for ${ms} ms`)), ms)
    const done = () => {
      clearTimeout(timer)
      resolve(Date.now() - t0)
    }
    s.once('end', done)
    s.once('close', done)
    s.resume()
  })
}

/** The host's own side of the next connection it accepts. */
function nextServerSocket(): Promise<Socket> {
  return new Promise((resolve) => host.server.once('connection', resolve))
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** What the real dispatcher answers a call that needs a session, without one. */
async function dispatcherRefusal(channel: string): Promise<Envelope<unknown>> {
  return createDispatcher(
    {} as Handlers,
    () => null,
    () => {},
  ).dispatch(channel, {}, null)
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
      for (const origin of [
        'http://evil.example',
        'null',
        `http://127.0.0.1:${host.port + 1}`,
        `https://127.0.0.1:${host.port}`,
      ]) {
        const r = await api('auth:status', { args: {} }, { origin })
        expect(r.status, origin).toBe(403)
      }
      const site = await api('auth:status', { args: {} }, { 'sec-fetch-site': 'cross-site' })
      expect(site.status).toBe(403)
      expect(backend.calls).toHaveLength(0)
      const own = await api(
        'auth:status',
        { args: {} },
        { origin: `http://localhost:${host.port}`, 'sec-fetch-site': 'same-origin' },
      )
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
      expect(backend.calls[0]).toEqual({
        channel: 'auth:login',
        args: { name: 'ada', password: 'secret-password' },
        token: null,
      })

      const list = await api('emissions:list', { args: {} }, { authorization: `Bearer ${session.result.token}` })
      expect(JSON.parse(list.text)).toEqual({
        ok: true,
        result: { channel: 'emissions:list', args: {}, token: 'tok-123' },
      })
      expect(backend.calls[1].token).toBe('tok-123')
    })

    it('adds no authority of its own: without a bearer token the call is refused, whatever else is sent', async () => {
      const anonymous = await api('emissions:list', { args: {} })
      expect(JSON.parse(anonymous.text)).toMatchObject({ ok: false, error: { code: 'NOT_SIGNED_IN' } })
      const other = await api(
        'emissions:list',
        { args: {} },
        { authorization: 'Basic dG9rLTEyMw==', cookie: 'token=tok-123' },
      )
      expect(JSON.parse(other.text)).toMatchObject({ ok: false, error: { code: 'NOT_SIGNED_IN' } })
      const inBody = await api('emissions:list', { args: {}, token: 'tok-123' })
      expect(JSON.parse(inBody.text)).toMatchObject({ ok: false, error: { code: 'NOT_SIGNED_IN' } })
      // the session is looked up with a bearer token only (none here: nothing to look up), and a
      // refused call never reaches the dispatcher
      expect(backend.resolved).toEqual([])
      expect(backend.calls).toHaveLength(0)
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
      const r = await api('sales:import', big, { authorization: `Bearer ${SESSION}` })
      expect(r.status).toBe(413)
      const env = JSON.parse(r.text) as { ok: false; error: { code: string; message: string } }
      expect(env.error.code).toBe('BAD_ARGUMENTS')
      expect(env.error.message).toMatch(/larger than/)
      expect(backend.calls).toHaveLength(0)
    })

    it('refuses an oversized body sent without Content-Length (chunked)', async () => {
      const r = await raw('/api/sales:import', {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'transfer-encoding': 'chunked',
          authorization: `Bearer ${SESSION}`,
        },
        body: JSON.stringify({ args: { content: 'y'.repeat(5000) } }),
      })
      expect(r.status).toBe(413)
      expect(backend.calls).toHaveLength(0)
    })

    describe("a sales feed's bytes as the body", () => {
      const feedHeaders = (extra: Record<string, string> = {}) => ({
        'content-type': 'application/octet-stream',
        authorization: `Bearer ${SESSION}`,
        ...extra,
      })

      it('are taken as they are, in memory the import can share, with the other arguments from their header', async () => {
        let got: { content: unknown; fileName: unknown } | null = null
        await restart({
          maxBytesBodyBytes: 4096,
          backend: {
            dispatch: async (_c, args) => ((got = args as typeof got), { ok: true, result: null }),
            services: backend.services,
          },
        })
        const bytes = Buffer.from([0xef, 0xbb, 0xbf, 0x7b, 0x7d, 0x0d, 0x0a, 0xe9])
        const r = await raw('/api/sales:import', {
          method: 'POST',
          headers: feedHeaders({
            'x-carats-args': encodeURIComponent(JSON.stringify({ fileName: 'ventes de mars.jsonl' })),
          }),
          body: bytes,
        })
        expect(r.status).toBe(200)
        expect(got!.fileName).toBe('ventes de mars.jsonl')
        expect(Buffer.isBuffer(got!.content)).toBe(true)
        expect(Buffer.compare(got!.content as Buffer, bytes)).toBe(0)
        expect((got!.content as Buffer).buffer).toBeInstanceOf(SharedArrayBuffer)
        // sent in chunks, without a length
        const chunked = await raw('/api/sales:import', {
          method: 'POST',
          headers: feedHeaders({ 'transfer-encoding': 'chunked' }),
          body: bytes,
        })
        expect(chunked.status).toBe(200)
        expect(Buffer.compare(got!.content as Buffer, bytes)).toBe(0)
      })

      it('beyond the feed limit are refused with 413 before they are read, saying the limit in MiB', async () => {
        await restart({ maxBytesBodyBytes: 2 * 1024 * 1024 })
        const r = await raw('/api/sales:import', {
          method: 'POST',
          headers: feedHeaders(),
          body: Buffer.alloc(3 * 1024 * 1024, 0x20),
        })
        expect(r.status).toBe(413)
        const env = JSON.parse(r.text) as { error: { code: string; message: string; reason: unknown } }
        expect(env.error.code).toBe('BAD_ARGUMENTS')
        expect(env.error.message).toBe(
          'the file is 3 MiB, more than the 2 MiB an import takes: split it into smaller files',
        )
        expect(env.error.reason).toEqual({ key: 'FEED_TOO_LARGE', params: { mib: 3, maxMib: 2 } })
        expect(backend.calls).toHaveLength(0)
      })

      it('under another content type are refused with 415, and a channel without bytes takes none', async () => {
        const r = await raw('/api/sales:import', {
          method: 'POST',
          headers: feedHeaders({ 'content-type': 'text/plain' }),
          body: 'hello',
        })
        expect(r.status).toBe(415)
        expect(JSON.parse(r.text).error).toMatchObject({
          code: 'BAD_ARGUMENTS',
          reason: { key: 'FEED_CONTENT_TYPE', params: { type: 'text/plain' } },
        })
        const other = await raw('/api/emissions:list', { method: 'POST', headers: feedHeaders(), body: 'hello' })
        expect(other.status).toBe(415)
        const badArgs = await raw('/api/sales:import', {
          method: 'POST',
          headers: feedHeaders({ 'x-carats-args': '%7Bnot json' }),
          body: 'x',
        })
        expect(badArgs.status).toBe(400)
        expect(backend.calls).toHaveLength(0)
      })

      it('are read only for a live session', async () => {
        const r = await raw('/api/sales:import', {
          method: 'POST',
          headers: feedHeaders({ authorization: 'Bearer nope' }),
          body: 'x',
        })
        expect(JSON.parse(r.text).error.code).toBe('NOT_SIGNED_IN')
        expect(backend.calls).toHaveLength(0)
      })
    })

    it('answers bad JSON and non-object bodies with a BAD_ARGUMENTS envelope', async () => {
      const bad = await api('auth:status', '{"args": ')
      expect(bad.status).toBe(400)
      expect(JSON.parse(bad.text)).toMatchObject({
        ok: false,
        error: { code: 'BAD_ARGUMENTS', message: expect.stringMatching(/not valid JSON/) },
      })
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
      const form = await raw('/api/auth:status', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'args=1',
      })
      expect(form.status).toBe(415)
      const text = await raw('/api/auth:status', {
        method: 'POST',
        headers: { 'content-type': 'text/plain' },
        body: '{"args":{}}',
      })
      expect(text.status).toBe(415)
      expect(backend.calls).toHaveLength(0)
    })

    it('reports a backend that throws as an INTERNAL envelope', async () => {
      await host.close()
      host = await createHost({
        backend: { dispatch: () => Promise.reject(new Error('disk on fire')), services: backend.services },
        staticDir: dir,
        onError: () => {},
      })
      const r = await api('auth:status', { args: {} })
      expect(r.status).toBe(500)
      expect(JSON.parse(r.text)).toMatchObject({
        ok: false,
        error: { code: 'INTERNAL', message: expect.stringContaining('disk on fire') },
      })
    })
  })

  describe('limits', () => {
    const MB60 = 60 * 1000 * 1000

    it('states its limits in one place and applies them by default', () => {
      expect(HOST_LIMITS).toMatchObject({
        maxBodyBytes: 64 * 1024 * 1024,
        maxBytesBodyBytes: 512 * 1024 * 1024,
        maxConnections: expect.any(Number),
        headersTimeoutMs: expect.any(Number),
        requestTimeoutMs: expect.any(Number),
        keepAliveTimeoutMs: expect.any(Number),
      })
      expect(host.server.maxConnections).toBe(HOST_LIMITS.maxConnections)
      expect(host.server.headersTimeout).toBe(HOST_LIMITS.headersTimeoutMs)
      expect(host.server.requestTimeout).toBe(HOST_LIMITS.requestTimeoutMs)
      expect(host.server.keepAliveTimeout).toBe(HOST_LIMITS.keepAliveTimeoutMs)
      expect(HOST_LIMITS.headersTimeoutMs).toBeLessThanOrEqual(HOST_LIMITS.requestTimeoutMs)
    })

    it('refuses a call that needs a session, without a live one, at once and without reading its body', async () => {
      await restart() // the default body limit: 60 MB would be accepted from a signed-in caller
      for (const authorization of [undefined, 'Bearer not-a-session']) {
        const served = nextServerSocket()
        const s = await open()
        const headers: Record<string, string> = { 'content-type': 'application/json', 'content-length': String(MB60) }
        if (authorization) headers.authorization = authorization
        s.write(head('POST', '/api/sales:import', headers))
        s.write('{"args": {"content": "' + ' '.repeat(64 * 1024))
        const r = await reply(s, 2000)
        expect(r.status, authorization).toBe(200) // as the dispatcher's refusal always was
        expect(r.headers['cache-control']).toBe('no-store')
        expect(r.headers.connection).toBe('close')
        expect(JSON.parse(r.body)).toEqual(await dispatcherRefusal('sales:import'))
        await closedBy(s, 2000)
        expect((await served).bytesRead).toBeLessThan(1024 * 1024)
      }
      expect(backend.calls).toHaveLength(0)
    })

    it('does not buffer a signed-out body sent at full speed: it stops reading and closes', async () => {
      await restart()
      const served = nextServerSocket()
      const s = await open()
      s.write(head('POST', '/api/sales:import', { 'content-type': 'application/json', 'content-length': String(MB60) }))
      const answer = reply(s, 5000)
      const chunk = Buffer.alloc(1024 * 1024, 0x20)
      let sent = 0
      let closed = false
      s.once('close', () => (closed = true))
      while (sent < MB60 && !closed && !s.destroyed) {
        const n = Math.min(chunk.length, MB60 - sent)
        sent += n
        if (!s.write(n === chunk.length ? chunk : chunk.subarray(0, n))) {
          await new Promise<void>((r) => {
            const go = () => {
              s.off('drain', go)
              s.off('close', go)
              r()
            }
            s.once('drain', go)
            s.once('close', go)
          })
        }
      }
      const r = await answer
      expect(JSON.parse(r.body)).toMatchObject({ ok: false, error: { code: 'NOT_SIGNED_IN' } })
      await closedBy(s, 2000)
      expect((await served).bytesRead).toBeLessThan(2 * 1024 * 1024)
      expect(backend.calls).toHaveLength(0)
    })

    it('still takes a public call without a session, and its body (within the few KiB a public call takes)', async () => {
      await restart()
      const r = await api('auth:login', { args: { name: 'ada', password: 'p'.repeat(4000) } })
      expect(r.status).toBe(200)
      expect(backend.calls[0]).toMatchObject({ channel: 'auth:login', token: null })
    })

    it('checks the session with a backend opened at the first call (the lazy backend) too', async () => {
      await restart({
        backend: {
          dispatch: (c, a, t) => backend.dispatch(c, a, t),
          open: () => Promise.resolve({ services: backend.services }),
        },
      })
      const s = await open()
      s.write(head('POST', '/api/sales:import', { 'content-type': 'application/json', 'content-length': String(MB60) }))
      const r = await reply(s, 2000)
      expect(JSON.parse(r.body)).toMatchObject({ ok: false, error: { code: 'NOT_SIGNED_IN' } })
      expect((await api('emissions:list', { args: {} }, { authorization: `Bearer ${SESSION}` })).status).toBe(200)
      expect(backend.calls.map((c) => c.channel)).toEqual(['emissions:list'])
    })

    it('answers a failed session check with INTERNAL and closes, still without reading the body', async () => {
      await restart({
        backend: { dispatch: backend.dispatch, open: () => Promise.reject(new Error('the ledger cannot be opened')) },
      })
      const served = nextServerSocket()
      const s = await open()
      s.write(
        head('POST', '/api/sales:import', {
          'content-type': 'application/json',
          'content-length': String(MB60),
          authorization: `Bearer ${SESSION}`,
        }),
      )
      s.write(' '.repeat(64 * 1024))
      const r = await reply(s, 2000)
      expect(r.status).toBe(500)
      expect(r.headers.connection).toBe('close')
      expect(JSON.parse(r.body)).toMatchObject({
        ok: false,
        error: { code: 'INTERNAL', message: expect.stringContaining('cannot be opened') },
      })
      await closedBy(s, 2000)
      expect((await served).bytesRead).toBeLessThan(1024 * 1024)
    })

    it('refuses to start with a backend it cannot ask about sessions', async () => {
      await expect(createHost({ backend: { dispatch: backend.dispatch }, staticDir: dir })).rejects.toThrow(/session/)
    })

    it('reads a signed-in caller’s big sales feed whole, up to the default limit', async () => {
      let received = -1
      await restart({
        backend: {
          dispatch: async (_c, args) => (
            (received = (args as { content: string }).content.length),
            { ok: true, result: null }
          ),
          services: backend.services,
        },
      })
      const size = 48 * 1024 * 1024 // a few hundred thousand sales; the limit is 64 MiB
      const body = Buffer.concat([Buffer.from('{"args":{"content":"'), Buffer.alloc(size, 0x78), Buffer.from('"}}')])
      const r = await api('sales:import', body, { authorization: `Bearer ${SESSION}` })
      expect(r.status).toBe(200)
      expect(received).toBe(size)
    }, 10_000)

    it('refuses connections beyond its maximum at once, and takes them again when one closes', async () => {
      await restart({ maxConnections: 2 })
      const a = await open()
      const b = await open()
      await expect
        .poll(() => new Promise((r) => host.server.getConnections((_e, n) => r(n))), { timeout: 1000 })
        .toBe(2)
      const c = await open()
      expect(await closedBy(c, 1000)).toBeLessThan(1000)
      a.destroy()
      await expect
        .poll(() => new Promise((r) => host.server.getConnections((_e, n) => r(n))), { timeout: 1000 })
        .toBe(1)
      expect((await raw('/')).status).toBe(200)
      b.destroy()
    })

    it('cuts off a client that sends its headers too slowly', async () => {
      await restart({ headersTimeoutMs: 300, requestTimeoutMs: 600 })
      const s = await open()
      s.write(`GET / HTTP/1.1\r\nHost: 127.0.0.1:${host.port}\r\n`)
      const trickle = setInterval(() => s.writable && s.write('X-Slow: 1\r\n'), 50)
      try {
        const t = await closedBy(s, 3000)
        expect(t).toBeGreaterThanOrEqual(250)
        expect(t).toBeLessThan(2000)
      } finally {
        clearInterval(trickle)
      }
    })

    it('cuts off a signed-in client that sends its body a byte at a time, before the backend hears of it', async () => {
      await restart({ headersTimeoutMs: 200, requestTimeoutMs: 500 })
      const s = await open()
      s.write(
        head('POST', '/api/emissions:list', {
          'content-type': 'application/json',
          'content-length': '200',
          authorization: `Bearer ${SESSION}`,
        }),
      )
      const trickle = setInterval(() => s.writable && s.write(' '), 50)
      try {
        const t0 = Date.now()
        const r = await reply(s, 3000)
        expect(r.status).toBe(408)
        await closedBy(s, 1000)
        expect(Date.now() - t0).toBeLessThan(2000)
      } finally {
        clearInterval(trickle)
      }
      expect(backend.calls).toHaveLength(0)
    })

    it('does not count the backend’s own time against the request timeout', async () => {
      await restart({
        headersTimeoutMs: 100,
        requestTimeoutMs: 200,
        backend: {
          dispatch: async (c, a, t) => (await sleep(700), backend.dispatch(c, a, t)),
          services: backend.services,
        },
      })
      const r = await api('emissions:list', { args: {} }, { authorization: `Bearer ${SESSION}` })
      expect(r.status).toBe(200)
      expect(JSON.parse(r.text)).toMatchObject({ ok: true })
    })

    it('closes an idle keep-alive connection after its timeout', async () => {
      await restart({ keepAliveTimeoutMs: 200 })
      const s = await open()
      s.write(head('GET', '/'))
      const r = await reply(s, 2000)
      expect(r.status).toBe(200)
      expect(r.headers.connection).toBe('keep-alive')
      // Node adds a second of its own to the timeout (HTTP_SERVER_KEEP_ALIVE_TIMEOUT_BUFFER), not 5
      const t = await closedBy(s, 3000)
      expect(t).toBeGreaterThanOrEqual(150)
      expect(t).toBeLessThan(2000)
    })
  })
})
