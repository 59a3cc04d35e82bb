/**
 * A sales feed uploaded to the browser host and imported while its bytes arrive
 * (services/import/arrival.ts, electron/services/import/README.md): a body that comes slowly, in chunks, stores what
 * the command line stores from the same file; a body cut short stores nothing and says why.
 */
import { request } from 'node:http'
import { mkdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createHost, type Host } from '../../electron/host/server'
import type { Backend } from '../../electron/app/backend'
import {
  feedLine,
  STREAM_FROM_BYTES,
  FeedArrival,
  registerArrival,
  CTRL,
  READER,
  startFeedReader,
} from '../../electron/services/import'
import { createHash } from 'node:crypto'
import { CARATS } from '../../game-core/carats'
import { formatSerial } from '../../game-core/serial'
import { actor, openEmissionBackend, PASSWORD, samplePlay, tempDir, USERS } from './ledger-fixture'

/** `count` lines selling emission 1's units from `from`, as the platform writes them. */
function feed(from: number, count: number): Buffer {
  const day = Date.now() - 86_400_000
  const lines = Array.from({ length: count }, (_, i) =>
    feedLine({
      saleId: `U-${from + i}`,
      serial: formatSerial({ emission: 1, block: 1, unit: from + i }),
      player: `player-${(from + i) % 53}`,
      soldAt: day + i * 1000,
      stakeCents: 500,
      play: samplePlay(i),
    }),
  )
  return Buffer.from(lines.join('\n') + '\n')
}

/** What an import stores, to compare two ledgers. */
function stored(b: Backend) {
  const sales = b.services.db
    .prepare(
      'SELECT s.unit_key, s.sale_id, p.name AS player, s.sold_at, s.stake_cents, s.play, s.events FROM sales s JOIN players p ON p.id = s.player_id ORDER BY s.unit_key',
    )
    .all()
  const blocks = b.services.db.prepare('SELECT emission, block, units_sold FROM blocks ORDER BY emission, block').all()
  return { sales, blocks }
}

const count = (b: Backend, sql: string) => b.services.db.prepare(sql).pluck().get() as number
const delay = (ms: number) => new Promise((r) => setTimeout(r, ms))

interface Upload {
  /** the envelope, or null when the connection was cut before an answer */
  answer: Promise<unknown>
}

/** Posts `body` as the screen does, `chunk` bytes at a time with `pauseMs` between; `cutAfter`: the client goes away once that many bytes are sent. */
function upload(
  host: Host,
  token: string,
  body: Buffer,
  { chunk, pauseMs, cutAfter, sha256 }: { chunk: number; pauseMs: number; cutAfter?: number; sha256?: string },
): Upload {
  const req = request(`${host.url}api/sales:import`, {
    method: 'POST',
    headers: {
      'content-type': 'application/octet-stream',
      'content-length': String(body.length),
      authorization: `Bearer ${token}`,
      'x-carats-args': encodeURIComponent(JSON.stringify({ fileName: 'slow.jsonl', sha256 })),
    },
  })
  const answer = new Promise<unknown>((resolve, reject) => {
    req.on('response', (res) => {
      const parts: Buffer[] = []
      res.on('data', (p: Buffer) => parts.push(p))
      res.on('end', () => resolve(JSON.parse(Buffer.concat(parts).toString('utf8'))))
    })
    req.on('error', (e) => (cutAfter === undefined ? reject(e) : resolve(null)))
    req.on('close', () => cutAfter !== undefined && resolve(null))
  })
  void (async () => {
    for (let at = 0; at < body.length; at += chunk) {
      if (cutAfter !== undefined && at >= cutAfter) return void req.destroy()
      req.write(body.subarray(at, Math.min(at + chunk, body.length)))
      await delay(pauseMs)
    }
    req.end()
  })()
  return { answer }
}

/** Waits, the event loop free, until `ok()`. */
async function until(ok: () => boolean, what: string): Promise<void> {
  for (const start = Date.now(); !ok(); await delay(5))
    if (Date.now() - start > 20_000) throw new Error(`timed out waiting for ${what}`)
}

describe('the reader thread, on bytes that are still arriving', () => {
  const zones: [number, number, number][] = [[1, CARATS.winningCells, CARATS.yoursCells]]
  /** The feed's first `part` bytes arrived, and the reader started on them. */
  function begin(body: Buffer, part: number) {
    const bytes = Buffer.from(new SharedArrayBuffer(body.length))
    const arrival = FeedArrival.create(body.length)
    bytes.set(body.subarray(0, part))
    arrival.publish(part)
    const reader = startFeedReader(bytes, zones, { arrival: arrival.memory })
    return { bytes, arrival, reader, ctrl: reader.ring.control }
  }

  it('hands over the lines that have arrived before the rest comes, then the rest, and hashes the whole file', async () => {
    const body = feed(0, 10_000)
    const part = Math.floor((body.length * 2) / 3)
    const { bytes, arrival, reader, ctrl } = begin(body, part)
    try {
      await until(() => Atomics.load(ctrl, CTRL.PRODUCED) > 0, 'a first slot')
      expect(Atomics.load(ctrl, CTRL.STATE)).toBe(READER.RUNNING)
      const firstSlot = reader.ring.count[0]
      expect(firstSlot).toBeGreaterThan(0)
      for (let at = part; at < body.length; at += 50_000) {
        const to = Math.min(at + 50_000, body.length)
        bytes.set(body.subarray(at, to), at)
        arrival.publish(to)
        await delay(2)
      }
      await until(() => Atomics.load(ctrl, CTRL.STATE) !== READER.RUNNING, 'the end of the reading')
      expect(Atomics.load(ctrl, CTRL.STATE)).toBe(READER.DONE)
      const slots = Atomics.load(ctrl, CTRL.PRODUCED)
      let handed = 0
      for (let s = 0; s < slots; s++) handed += reader.ring.count[s]
      expect(handed).toBe(10_000)
      expect(Atomics.load(ctrl, CTRL.LINES)).toBe(10_000)
      expect(Buffer.from(reader.ring.digest).toString('hex')).toBe(createHash('sha256').update(body).digest('hex'))
    } finally {
      Atomics.store(ctrl, CTRL.CANCEL, 1)
      reader.done()
    }
  }, 30_000)

  it('stops, CUT, when the upload stops short of a line', async () => {
    const body = feed(0, 100)
    const { arrival, reader, ctrl } = begin(body, Math.floor(body.length / 2))
    try {
      await delay(50)
      expect(Atomics.load(ctrl, CTRL.STATE)).toBe(READER.RUNNING)
      arrival.cut()
      await until(() => Atomics.load(ctrl, CTRL.STATE) !== READER.RUNNING, 'the reader to stop')
      expect(Atomics.load(ctrl, CTRL.STATE)).toBe(READER.CUT)
    } finally {
      Atomics.store(ctrl, CTRL.CANCEL, 1)
      reader.done()
    }
  }, 30_000)
})

describe('a feed imported while it is uploaded to the browser host', () => {
  let dir: string
  let app: Backend
  let cli: Backend
  let host: Host
  let token: string
  beforeAll(async () => {
    dir = tempDir('upload')
    for (const d of ['app', 'cli']) mkdirSync(join(dir, d))
    app = await openEmissionBackend(join(dir, 'app'))
    cli = await openEmissionBackend(join(dir, 'cli'))
    host = await createHost({ backend: app, staticDir: dir, importWhileUploading: true, onError: () => {} })
    token = (await app.services.users.login(USERS.operator, PASSWORD)).token
  })
  afterAll(async () => {
    await host?.close()
    await app?.closeGracefully()
    await cli?.closeGracefully()
    rmSync(dir, { recursive: true, force: true })
  })

  // a feed large enough to be streamed (read on the reader thread as it arrives), and a small one
  // (read carefully, once it is all in): each arriving slowly, stored as the command line stores it
  const big = feed(0, 7000)
  const small = feed(7000, 40)
  it.each([
    ['streamed', big, 64 * 1024, 15],
    ['careful', small, 1024, 5],
  ] as const)(
    '%s: a body that arrives slowly in chunks is imported as the command line imports the file',
    async (_way, body, chunk, pauseMs) => {
      if (body === big) expect(body.length).toBeGreaterThan(STREAM_FROM_BYTES)
      const viaHost = await upload(host, token, body, { chunk, pauseMs }).answer
      const viaCli = cli.services.importer.importHere(actor('operator'), body, 'slow.jsonl')
      expect(viaHost).toEqual({ ok: true, result: viaCli })
      expect(viaCli.imported).toBe(body.toString().trim().split('\n').length)
      expect(stored(app)).toEqual(stored(cli))
      // the same file's SHA-256 in both histories
      const hashes = (b: Backend) => b.services.importer.history({ page: 1, pageSize: 1 }).items.map((r) => r.sha256)
      expect(hashes(app)).toEqual(hashes(cli))
    },
    60_000,
  )

  it('a body cut short mid-way imports nothing, and the import says the upload was cut', async () => {
    const next = feed(7040, 7000)
    const before = stored(app)
    const audits = count(app, 'SELECT count(*) FROM audit')
    // the client goes away after 60 % of the file: the reader has handed over lines by then
    expect(
      await upload(host, token, next, { chunk: 64 * 1024, pauseMs: 15, cutAfter: Math.floor(next.length * 0.6) })
        .answer,
    ).toBeNull()
    // the same file whole, after it (imports run one after the other on the worker): every line new
    const whole = await upload(host, token, next, { chunk: 1 << 20, pauseMs: 0 }).answer
    expect(whole).toEqual({ ok: true, result: { lines: 7000, imported: 7000, alreadyImported: 0 } })
    expect(count(app, 'SELECT count(*) FROM sales')).toBe((before.sales as unknown[]).length + 7000)
    // one audit entry: the whole file's import; the cut one left none
    expect(count(app, 'SELECT count(*) FROM audit')).toBe(audits + 1)
  }, 60_000)

  it.each([
    ['streamed', 7000],
    ['careful', 40],
  ] as const)(
    '%s: the import of bytes whose upload stops says so, and writes nothing',
    async (_way, lines) => {
      const body = feed(14_040, lines)
      const arrival = FeedArrival.create(body.length)
      const bytes = Buffer.from(new SharedArrayBuffer(body.length))
      registerArrival(bytes, arrival)
      const half = Math.floor(body.length / 2)
      bytes.set(body.subarray(0, half))
      arrival.publish(half)
      const sales = count(app, 'SELECT count(*) FROM sales')
      const importing = app.services.importer.importContent(actor('operator'), bytes, 'cut.jsonl')
      await delay(300)
      arrival.cut()
      await expect(importing).rejects.toThrow(
        `the upload stopped after ${half.toLocaleString('en-US')} of its ${body.length.toLocaleString('en-US')} bytes: nothing imported; send the file again`,
      )
      expect(count(app, 'SELECT count(*) FROM sales')).toBe(sales)
    },
    60_000,
  )

  it.each([
    ['streamed', 7000],
    ['careful', 40],
  ] as const)(
    '%s: an upload sent with its SHA-256 is leased by it, and refused at once while another workstation imports that file',
    async (_way, lines) => {
      // the ledger's next unit, after what the tests before it imported
      const body = feed(count(app, 'SELECT units_sold FROM blocks WHERE emission = 1 AND block = 1'), lines)
      const sha256 = createHash('sha256').update(body).digest('hex')
      const now = Date.now()
      app.services.db
        .prepare(
          `INSERT INTO job_leases (kind, subject, holder, host, pid, started_at, heartbeat_at)
      VALUES ('import', ?, 'w7', 'workstation-7', 4242, ?, ?)`,
        )
        .run(`feed:${sha256}`, now, now)
      const sales = count(app, 'SELECT count(*) FROM sales')
      const held = (await upload(host, token, body, { chunk: 1 << 20, pauseMs: 0, sha256 }).answer) as {
        ok: boolean
        error: { reason: unknown }
      }
      expect(held.ok).toBe(false)
      expect(held.error.reason).toMatchObject({
        key: 'LEASE_HELD',
        params: { kind: 'import', subject: `feed:${sha256}`, host: 'workstation-7' },
      })
      expect(count(app, 'SELECT count(*) FROM sales')).toBe(sales)
      app.services.db.prepare('DELETE FROM job_leases').run()
      // sent with another file's hash: its bytes are not the ones announced, nothing is written
      const other = createHash('sha256').update('another file').digest('hex')
      const changed = (await upload(host, token, body, { chunk: 1 << 20, pauseMs: 0, sha256: other }).answer) as {
        ok: boolean
        error: { reason: unknown }
      }
      expect(changed.error.reason).toEqual({ key: 'FEED_HASH_MISMATCH', params: { announced: other, actual: sha256 } })
      expect(count(app, 'SELECT count(*) FROM sales')).toBe(sales)
      // with its own hash: imported, and recorded with it
      expect(await upload(host, token, body, { chunk: 1 << 20, pauseMs: 0, sha256 }).answer).toEqual({
        ok: true,
        result: { lines, imported: lines, alreadyImported: 0 },
      })
      expect(app.services.importer.history({ page: 1, pageSize: 1 }).items[0].sha256).toBe(sha256)
      expect(count(app, 'SELECT count(*) FROM job_leases')).toBe(0)
    },
    60_000,
  )

  it('a file given whole with another SHA-256 than its own is refused before anything is read', async () => {
    const body = feed(count(app, 'SELECT units_sold FROM blocks WHERE emission = 1 AND block = 1'), 40)
    const other = createHash('sha256').update('another file').digest('hex')
    const e = (() => {
      try {
        app.services.importer.importHere(actor('operator'), body, 'day.jsonl', other)
      } catch (err) {
        return err as { extras: { reason: unknown } }
      }
      throw new Error('imported')
    })()
    expect(e.extras.reason).toMatchObject({ key: 'FEED_HASH_MISMATCH', params: { announced: other } })
  })
})
