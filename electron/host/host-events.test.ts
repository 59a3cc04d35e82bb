/**
 * The host's stream of changes (/events): refused without a live session, each change told only to
 * the roles that may read it, a session that ends told and closed, bounded per session, heartbeats,
 * and nothing held once a client goes.
 */
import { request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { ChangeListener } from '../app/change-feed'
import type { Change } from '../contract/changes'
import type { Role } from '../contract/define'
import { createHost, type Host } from './server'

interface Session {
  userId: number
  role: Role
}

function fakeBackend(sessions: Map<string, Session>) {
  const listeners = new Set<ChangeListener>()
  return {
    listeners,
    tell: (changes: Change[]) => listeners.forEach((l) => l(changes)),
    dispatch: async () => ({ ok: true as const, result: null }),
    services: {
      users: {
        sessionRole: (t: string | null) => (t && sessions.get(t) ? { role: sessions.get(t)!.role } : null),
        sessionPeek: (t: string | null) => (t ? (sessions.get(t) ?? null) : null),
      },
    },
    changes: {
      subscribe(l: ChangeListener) {
        listeners.add(l)
        return () => listeners.delete(l)
      },
    },
  }
}

let dir: string
let host: Host
let sessions: Map<string, Session>
let backend: ReturnType<typeof fakeBackend>
const open: ClientRequest[] = []

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'carats-events-'))
  sessions = new Map([
    ['op-token', { userId: 1, role: 'operator' }],
    ['sup-token', { userId: 2, role: 'support' }],
  ])
  backend = fakeBackend(sessions)
  host = await createHost({ backend, staticDir: dir, eventLimits: { perSession: 2, heartbeatMs: 100 } })
})

afterEach(async () => {
  for (const r of open.splice(0)) r.destroy()
  await host.close()
  rmSync(dir, { recursive: true, force: true })
})

/** A stream as the page opens it; `text()` is what arrived so far. */
function stream(token: string | null, method = 'GET') {
  let text = ''
  const response = new Promise<IncomingMessage>((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port: host.port,
        path: '/events',
        method,
        headers: { host: `127.0.0.1:${host.port}`, ...(token ? { authorization: `Bearer ${token}` } : {}) },
      },
      (res) => {
        res.setEncoding('utf8').on('data', (d: string) => (text += d))
        resolve(res)
      },
    )
    open.push(req)
    req.on('error', reject)
    req.end()
  })
  return { response, text: () => text }
}

async function until(what: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms
  while (!what()) {
    if (Date.now() > end) throw new Error('waited in vain')
    await new Promise((r) => setTimeout(r, 10))
  }
}

const ended = (res: IncomingMessage) => new Promise<void>((r) => (res.readableEnded ? r() : res.once('end', () => r())))

describe('the stream of changes', () => {
  it('is refused without a live session, before anything is streamed', async () => {
    for (const token of [null, 'not-a-session']) {
      const s = stream(token)
      const res = await s.response
      await ended(res)
      expect(res.statusCode).toBe(401)
      expect(JSON.parse(s.text())).toMatchObject({ ok: false, error: { code: 'NOT_SIGNED_IN' } })
    }
    const post = stream('op-token', 'POST')
    expect((await post.response).statusCode).toBe(405)
    expect(backend.listeners.size).toBe(0)
  })

  it('tells each session the changes its role may read, and nothing else', async () => {
    const op = stream('op-token')
    const sup = stream('sup-token')
    const [opRes] = await Promise.all([op.response, sup.response])
    expect(opRes.statusCode).toBe(200)
    expect(opRes.headers['content-type']).toBe('text/event-stream; charset=utf-8')
    expect(opRes.headers['cache-control']).toBe('no-store')
    await until(() => op.text().includes('event: ready') && sup.text().includes('event: ready'))
    backend.tell([
      { seq: 7, topic: 'ceremony', id: '2' },
      { seq: 8, topic: 'claims', id: '0001-001-0000001-5' },
    ])
    await until(() => op.text().includes('event: change') && sup.text().includes('event: change'))
    expect(op.text()).toContain('id: 7\nevent: change\ndata: [{"seq":7,"topic":"ceremony","id":"2"}]\n\n')
    expect(op.text()).not.toContain('claims')
    expect(sup.text()).toContain(
      'id: 8\nevent: change\ndata: [{"seq":7,"topic":"ceremony","id":"2"},{"seq":8,"topic":"claims"',
    )
  })

  it("follows a change of the session's role, and ends the stream of a session that ended", async () => {
    const op = stream('op-token')
    const res = await op.response
    await until(() => op.text().includes('event: ready'))
    sessions.set('op-token', { userId: 1, role: 'support' })
    backend.tell([
      { seq: 9, topic: 'session', id: '1' },
      { seq: 10, topic: 'claims', id: null },
    ])
    await until(() => op.text().includes('"topic":"claims"'))
    expect(op.text()).toContain('"topic":"session","id":"1"')
    sessions.delete('op-token')
    backend.tell([{ seq: 11, topic: 'session', id: '1' }])
    await ended(res)
    expect(op.text()).toMatch(/event: ended\ndata: \{\}\n\n$/)
    await until(() => backend.listeners.size === 0)
  })

  it('beats, finds an ended session at a beat, and holds at most perSession streams of one session', async () => {
    const a = stream('op-token')
    const b = stream('op-token')
    await Promise.all([a.response, b.response])
    await until(() => a.text().includes(': ping'))
    const third = stream('op-token')
    const refused = await third.response
    expect(refused.statusCode).toBe(429)
    expect((await stream('sup-token').response).statusCode).toBe(200)
    sessions.delete('op-token')
    await Promise.all([a.response.then(ended), b.response.then(ended)])
    expect(a.text()).toContain('event: ended')
  })

  it('drops a stream whose client went away, and stops listening to the feed when none is left', async () => {
    const s = stream('op-token')
    await s.response
    await until(() => backend.listeners.size === 1)
    open.pop()!.destroy()
    await until(() => backend.listeners.size === 0)
    backend.tell([{ seq: 12, topic: 'ceremony', id: '1' }])
    const again = stream('op-token')
    await again.response
    await until(() => backend.listeners.size === 1)
  })
})
