/**
 * The browser host reads no more of a request's body than its channel needs (issue 29, item 6):
 * a public channel (sign-in, set-up, status) a few KiB, a signed-in caller's other calls 1 MiB,
 * and only sales:import, from a role that may import, a feed's size, its role checked before its
 * body is read. Before: 64 MiB for anyone, 24 requests at once holding 1.33 GB.
 */
import { connect as tcpConnect, type Socket } from 'node:net'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { Envelope } from '../contract/errors'
import { createHost, HOST_LIMITS, type Host } from './server'

const OPERATOR = 'tok-operator'
const SUPPORT = 'tok-support'
let dir: string
let host: Host
let calls: string[]
/** The host's side of each connection: how many bytes it read from it. */
let serverSockets: Socket[]

const backend = {
  services: {
    users: {
      sessionRole: (token: string | null) =>
        token === OPERATOR
          ? { userId: 1, name: 'olga', role: 'operator' as const, token }
          : token === SUPPORT
            ? { userId: 2, name: 'suzy', role: 'support' as const, token }
            : null,
    },
  },
  async dispatch(channel: string): Promise<Envelope<unknown>> {
    calls.push(channel)
    return { ok: true, result: null }
  },
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'carats-host-limits-'))
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))
beforeEach(async () => {
  calls = []
  serverSockets = []
  host = await createHost({ backend, staticDir: dir, onError: () => {} })
  host.server.on('connection', (s: Socket) => serverSockets.push(s))
})
afterEach(() => host.close())

interface Reply {
  status: number
  body: {
    ok: boolean
    error?: { code: string; message: string; reason?: { key: string; params: Record<string, unknown> } }
  }
  /** Bytes of the body this client had sent when the reply came. */
  sent: number
}

/**
 * A POST to /api/<channel> whose body is `size` bytes of JSON-looking filler, sent in 64 KiB
 * pieces as fast as the host takes them, chunked unless `declare`; resolves with the reply.
 */
function post(
  channel: string,
  size: number,
  o: { token?: string; declare?: boolean; type?: string } = {},
): Promise<Reply> {
  const piece = Buffer.alloc(64 * 1024, 0x20)
  return new Promise((resolve, reject) => {
    const s = tcpConnect({ host: '127.0.0.1', port: host.port })
    let sent = 0
    let reply = Buffer.alloc(0)
    let answered = false
    const headers = [
      `POST /api/${channel} HTTP/1.1`,
      `host: 127.0.0.1:${host.port}`,
      `content-type: ${o.type ?? 'application/json'}`,
    ]
    if (o.token) headers.push(`authorization: Bearer ${o.token}`)
    headers.push(o.declare ? `content-length: ${size}` : 'transfer-encoding: chunked')
    const write = async () => {
      s.write(headers.join('\r\n') + '\r\n\r\n')
      while (sent < size && !answered && !s.destroyed) {
        const n = Math.min(piece.length, size - sent)
        const chunk = o.declare
          ? piece.subarray(0, n)
          : Buffer.concat([Buffer.from(`${n.toString(16)}\r\n`), piece.subarray(0, n), Buffer.from('\r\n')])
        sent += n
        if (!s.write(chunk)) await new Promise((r) => (s.once('drain', r), s.once('close', r)))
      }
      if (!o.declare && !answered && !s.destroyed) s.write('0\r\n\r\n')
    }
    const done = () => {
      const text = reply.toString('utf8')
      const m = /^HTTP\/1\.1 (\d+)/.exec(text)
      if (!m) return reject(new Error(`no reply (sent ${sent} bytes)`))
      const json = text.slice(text.indexOf('{'), text.lastIndexOf('}') + 1)
      resolve({ status: Number(m[1]), body: JSON.parse(json) as Reply['body'], sent })
    }
    s.on('data', (d: Buffer) => {
      answered = true
      reply = Buffer.concat([reply, d])
      if (reply.includes('\r\n\r\n') && reply.toString('utf8').trimEnd().endsWith('}')) s.destroy()
    })
    s.on('error', () => {})
    s.on('close', done)
    s.on('connect', () => void write().catch(() => {}))
  })
}

const MIB = 1024 * 1024
const readByHost = () => serverSockets.map((s) => s.bytesRead)

describe('the body a request may make the host read: what its channel needs', () => {
  it('states the limits: a few KiB for the public channels, 1 MiB for a signed-in call, the feed limit for an import only', () => {
    expect(HOST_LIMITS.publicBodyBytes).toBeLessThanOrEqual(16 * 1024)
    expect(HOST_LIMITS.signedInBodyBytes).toBeLessThanOrEqual(MIB)
  })

  for (const channel of ['auth:login', 'auth:setup', 'auth:status']) {
    it(`${channel}: a body beyond a few KiB is refused with 413 and REQUEST_TOO_LARGE, declared or chunked, having read no more than a few KiB`, async () => {
      for (const declare of [true, false]) {
        const r = await post(channel, 2 * MIB, { declare })
        expect(r.status).toBe(413)
        expect(r.body.error).toMatchObject({
          code: 'BAD_ARGUMENTS',
          reason: { key: 'REQUEST_TOO_LARGE', params: { maxKib: HOST_LIMITS.publicBodyBytes / 1024 } },
        })
        expect(r.body.error!.message).toMatch(/KiB/)
      }
      expect(Math.max(...readByHost())).toBeLessThan(256 * 1024)
      expect(calls).toEqual([])
    })
  }

  it('a signed-in call other than an import: refused beyond 1 MiB', async () => {
    const r = await post('emissions:list', 3 * MIB, { token: OPERATOR })
    expect(r.status).toBe(413)
    expect(r.body.error?.reason).toMatchObject({ key: 'REQUEST_TOO_LARGE', params: { maxKib: 1024 } })
    expect(Math.max(...readByHost())).toBeLessThan(MIB + 256 * 1024)
  })

  it('sales:import from a role that may not import: refused as the dispatcher would (FORBIDDEN), before any of its body is read', async () => {
    for (const type of ['application/json', 'application/octet-stream']) {
      const r = await post('sales:import', 32 * MIB, { token: SUPPORT, declare: true, type })
      expect(r.body.error).toMatchObject({
        code: 'FORBIDDEN',
        reason: { key: 'ROLE_FORBIDDEN', params: { role: 'support', channel: 'sales:import' } },
      })
    }
    expect(Math.max(...readByHost())).toBeLessThan(256 * 1024)
    expect(calls).toEqual([])
  })

  it('24 sign-ins at once, 16 MiB each, without a session: each refused with 413, the host reading a few KiB of each and its memory barely moving', async () => {
    const before = process.memoryUsage().rss
    const replies = await Promise.all(Array.from({ length: 24 }, () => post('auth:login', 16 * MIB)))
    const grown = process.memoryUsage().rss - before
    const read = readByHost().reduce((a, b) => a + b, 0)
    console.log(
      `24 oversize sign-ins at once: the host read ${(read / 1024).toFixed(0)} KiB in all; RSS grew by ${(grown / MIB).toFixed(1)} MiB`,
    )
    expect(replies.map((r) => r.status)).toEqual(Array(24).fill(413))
    expect(read).toBeLessThan(24 * 256 * 1024)
    expect(grown).toBeLessThan(64 * MIB)
  }, 60_000)
})
