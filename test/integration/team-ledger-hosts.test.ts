/**
 * Two workstations' hosts on one ledger (issue 17 part 3): two backends opened on the same
 * location and key file, each behind its own browser host (createHost, as `npm run serve` makes
 * it). A write through one host, an emission created, a user added, a claim's step, is seen by
 * the other at its next request, through the HTTP contract, with no restart and no wait.
 *
 * It makes sense on both engines (two connections to one SQLite file see each other's commits too).
 */
import { request as httpRequest } from 'node:http'
import { rmSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createHost, type Host } from '../../electron/host/server'
import { openBackend, type Backend } from '../../electron/app/backend'
import { testEngine } from '../support/ledger-engine'
import { openEmissionLedger, PASSWORD, samplePlay, T0, templatePath, tempDir, USERS } from './ledger-fixture'

interface Workstation {
  backend: Backend
  host: Host
  tokens: Record<string, string>
}

/** POST /api/<channel> on a host, as the browser does; the envelope's result, or the error thrown. */
function call<T>(w: Workstation, channel: string, args: unknown, as: keyof typeof USERS | null): Promise<T> {
  const body = JSON.stringify({ args })
  const auth: Record<string, string> = as ? { authorization: `Bearer ${w.tokens[as]}` } : {}
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port: w.host.port,
        path: `/api/${channel}`,
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...auth },
      },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('end', () => {
          const envelope = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
            ok: boolean
            result?: T
            error?: unknown
          }
          if (envelope.ok) resolve(envelope.result as T)
          else reject(new Error(`${channel} on ${w.host.url}: ${JSON.stringify(envelope.error)}`))
        })
        res.on('error', reject)
      },
    )
    req.on('error', reject)
    req.end(body)
  })
}

describe(`two hosts on one ledger (${testEngine()})`, () => {
  let dir: string
  let a: Workstation
  let b: Workstation

  async function workstation(location: string, keyFile: string | undefined): Promise<Workstation> {
    // with reading threads, as `npm run serve` opens it: on a team ledger they take the claims' steps too
    const backend = openBackend({
      dbPath: location,
      keyFile,
      threads: 1,
      readThreads: 1,
      clock: () => new Date(T0 + 86_400_000),
    })
    const host = await createHost({ backend, staticDir: dir, onError: () => {} })
    const w: Workstation = { backend, host, tokens: {} }
    for (const role of ['admin', 'operator', 'support', 'manager'] as const) {
      w.tokens[role] = (
        await call<{ token: string }>(w, 'auth:login', { name: USERS[role], password: PASSWORD }, null)
      ).token
    }
    return w
  }

  beforeAll(async () => {
    await templatePath()
    dir = tempDir('team-hosts')
    const ledger = await openEmissionLedger(dir)
    a = await workstation(ledger.location, ledger.keyFile)
    b = await workstation(ledger.location, ledger.keyFile)
  }, 180_000)
  afterAll(async () => {
    for (const w of [a, b]) {
      await w?.host.close()
      await w?.backend.closeGracefully()
    }
    rmSync(dir, { recursive: true, force: true })
  })

  it('an emission created through one host is in the other host’s list at once', async () => {
    const before = await call<{ emission: number }[]>(b, 'emissions:list', {}, 'operator')
    const made = await call<{ emission: number; code: string }>(
      a,
      'emissions:create',
      { blocks: 2, demo: true, code: 'TEAM-2' },
      'operator',
    )
    const after = await call<{ emission: number; code: string }[]>(b, 'emissions:list', {}, 'operator')
    expect(after.length).toBe(before.length + 1)
    expect(after.find((e) => e.emission === made.emission)?.code).toBe('TEAM-2')
    expect((await call<{ status: string }>(b, 'emissions:get', { emission: made.emission }, 'operator')).status).toBe(
      'created',
    )
  })

  it('a user added through one host signs in through the other at once', async () => {
    await call(a, 'users:create', { name: 'nina', role: 'support', password: PASSWORD }, 'admin')
    const listed = await call<{ name: string; role: string }[]>(b, 'users:list', {}, 'admin')
    expect(listed.find((u) => u.name === 'nina')?.role).toBe('support')
    const session = await call<{ user: { name: string } }>(b, 'auth:login', { name: 'nina', password: PASSWORD }, null)
    expect(session.user.name).toBe('nina')
  })

  it('a claim’s step taken through one host is the claim’s state through the other at once', async () => {
    // a threshold of 10 € on emission 1, so that a few hundred sales make claims
    a.backend.services.db.prepare('UPDATE emissions SET claim_threshold_cents = 1000 WHERE emission = 1').run()
    const sales = Array.from({ length: 600 }, (_, i) => ({
      emission: 1,
      player: `team-${i % 30}`,
      soldAt: T0 + i * 1000,
      saleId: `TEAM-${i}`,
      play: samplePlay(i),
    }))
    a.backend.services.sales.sellBatch(sales, { records: false })
    const pending = await call<{ items: { serial: string; status: string }[] }>(
      b,
      'claims:list',
      { status: 'pending', page: 1, pageSize: 5 },
      'support',
    )
    expect(pending.items.length).toBeGreaterThan(0)
    const serial = pending.items[0].serial

    await call(a, 'claims:verify', { serial, identity: { document: 'passport', reference: 'P-1234567' } }, 'support')
    expect((await call<{ claim: { status: string } }>(b, 'claims:get', { serial }, 'manager')).claim.status).toBe(
      'verified',
    )
    await call(b, 'claims:approve', { serial }, 'manager')
    expect((await call<{ claim: { status: string } }>(a, 'claims:get', { serial }, 'support')).claim.status).toBe(
      'approved',
    )
    // both hosts' audit entries are in one chain, which both verify
    expect(a.backend.services.audit.verify().ok).toBe(true)
    expect(b.backend.services.audit.verify().ok).toBe(true)
  }, 120_000)
})
