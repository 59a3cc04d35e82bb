/**
 * A team on one browser host (issue 30, item 1): feeds uploaded one after another while colleagues
 * sign in. Every upload imports, every sign-in succeeds, and no caller ever reads "database is
 * locked". Before, a sign-in waited for the import's write lock on the host's own thread, so the
 * host stopped reading the upload that the import was waiting for: sign-ins failed after 5 s and
 * the uploads ended in 408 with nothing imported.
 */
import { createHash } from 'node:crypto'
import { request } from 'node:http'
import { rmSync } from 'node:fs'
import { afterEach, describe, expect, it } from 'vitest'
import { createHost, type Host } from '../../electron/host/server'
import type { Backend } from '../../electron/app/backend'
import { feedLine } from '../../electron/services/import'
import { formatSerial } from '../../game-core/serial'
import Database from 'better-sqlite3'
import { testEngine } from '../support/ledger-engine'
import { ledgerOf, openEmissionBackend, PASSWORD, samplePlay, tempDir, USERS } from './ledger-fixture'

interface Answer {
  status: number
  body: { ok: boolean; result?: unknown; error?: { code: string; message: string } }
}

/** `count` lines selling emission 1's units from `from`, a second apart, yesterday. */
function feed(from: number, count: number): Buffer {
  const day = Date.now() - 86_400_000
  const lines = Array.from({ length: count }, (_, i) =>
    feedLine({
      saleId: `L-${from + i}`,
      serial: formatSerial({ emission: 1, block: 1, unit: from + i }),
      player: `player-${(from + i) % 97}`,
      soldAt: day + i * 1000,
      stakeCents: 500,
      play: samplePlay(i),
    }),
  )
  return Buffer.from(lines.join('\n') + '\n')
}

/** The host's answer, or what came instead (a 408's page) as a failure. */
function envelopeOf(text: string): Answer['body'] {
  try {
    return JSON.parse(text) as Answer['body']
  } catch {
    return { ok: false, error: { code: 'NOT_JSON', message: text.slice(0, 200) } }
  }
}

/** One POST to the host, as the renderer's transport sends it. */
function post(host: Host, channel: string, body: Buffer, headers: Record<string, string>): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(`${host.url}api/${channel}`, {
      method: 'POST',
      headers: { ...headers, 'content-length': String(body.length) },
    })
    req.on('response', (res) => {
      const parts: Buffer[] = []
      res.on('data', (p: Buffer) => parts.push(p))
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, body: envelopeOf(Buffer.concat(parts).toString('utf8')) }),
      )
    })
    req.on('error', reject)
    req.end(body)
  })
}

const call = (host: Host, channel: string, args: unknown, token?: string) =>
  post(host, channel, Buffer.from(JSON.stringify({ args })), {
    'content-type': 'application/json',
    ...(token ? { authorization: `Bearer ${token}` } : {}),
  })

/** The import screen's upload: the file's bytes, its name and SHA-256 in the arguments' header. */
function upload(host: Host, token: string, bytes: Buffer, fileName: string): Promise<Answer> {
  const sha256 = createHash('sha256').update(bytes).digest('hex')
  const args = encodeURIComponent(JSON.stringify({ fileName, sha256 }))
  return post(host, 'sales:import', bytes, {
    'content-type': 'application/octet-stream',
    'x-carats-args': args,
    authorization: `Bearer ${token}`,
  })
}

async function signIn(host: Host, name: string): Promise<Answer> {
  return call(host, 'auth:login', { name, password: PASSWORD })
}

describe('one browser host under a team', () => {
  let backend: Backend | null = null
  let host: Host | null = null
  let dir = ''
  afterEach(async () => {
    await host?.close()
    await backend?.closeGracefully()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  it('imports three feeds uploaded one after another while five colleagues sign in, all of them', async () => {
    dir = tempDir('under-load')
    backend = await openEmissionBackend(dir)
    host = await createHost({ backend, staticDir: dir, importWhileUploading: true, onError: () => {} })
    const operator = await signIn(host, USERS.operator)
    expect(operator.body.error).toBeUndefined()
    const token = (operator.body.result as { token: string }).token
    const lines = 12_000
    const feeds = [0, 1, 2].map((k) => feed(k * lines, lines))
    const uploads = feeds.map((bytes, k) => upload(host!, token, bytes, `day-${k}.jsonl`))
    const colleagues = ['admin', 'support', 'manager', 'auditor', 'operator'] as const
    const signIns = colleagues.flatMap((role) => [0, 1, 2].map(() => signIn(host!, USERS[role])))
    const answers = await Promise.all([...uploads, ...signIns])
    const failures = answers
      .filter((a) => !a.body.ok)
      .map((a) => `${a.status} ${a.body.error?.code}: ${a.body.error?.message}`)
    expect(failures).toEqual([])
    for (const a of answers.slice(0, 3)) expect((a.body.result as { imported: number }).imported).toBe(lines)
    const sold = backend.services.db
      .prepare('SELECT units_sold FROM blocks WHERE emission = 1 AND block = 1')
      .pluck()
      .get()
    expect(sold).toBe(3 * lines)
  }, 120_000)

  it.runIf(testEngine() === 'sqlite')(
    "says another program's long write as such, never 'database is locked'",
    async () => {
      dir = tempDir('under-load')
      backend = await openEmissionBackend(dir, { busyTimeoutMs: 50 })
      host = await createHost({ backend, staticDir: dir, onError: () => {} })
      const other = new Database(ledgerOf(backend).location)
      try {
        other.exec('BEGIN IMMEDIATE')
        const a = await signIn(host, USERS.support)
        expect(a.body.error).toMatchObject({ code: 'CONFLICT', reason: { key: 'LEDGER_BUSY' } })
        expect(a.body.error?.message).not.toMatch(/database is locked/)
        other.exec('ROLLBACK')
        expect((await signIn(host, USERS.support)).body.ok).toBe(true)
      } finally {
        other.close()
      }
    },
  )
})
