/**
 * Long jobs leased across workstations (electron/services/leases.ts): two backends opened on one
 * ledger (two workstations on a team ledger; on SQLite, two processes on one file) never run the
 * same generate, verify, simulate or import at once; a workstation that closes mid-job, or whose
 * heartbeat went stale, leaves its job to the other, and the interruption is in the audit log.
 * Runs on both engines: `npx vitest run --project sqlite|postgres <this file>`.
 */
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { rmSync } from 'node:fs'
import { AppError } from '../../electron/contract/errors'
import { refusal } from '../support/refusal'
import { formatSerial } from '../../game-core/serial'
import { openBackend, type Backend } from '../../electron/app/backend'
import type { Clock } from '../../electron/services/common'
import type { VerifyBlockFn } from '../../electron/services/emissions'
import { feedLine, sha256Of } from '../../electron/services/import'
import { LEASE_HEARTBEAT_MS, LEASE_TIMEOUT_MS } from '../../electron/services/leases'
import { actor, ledgerOf, openEmissionBackend, samplePlay, T0, templatePath, tempDir } from './ledger-fixture'

const op = actor('operator')

/** A block pool that reports progress when told and ends only when its job is cancelled. */
function stalledPool() {
  const calls: { tick: () => void }[] = []
  const verifyBlock: VerifyBlockFn = (def, _ref, opts) =>
    new Promise((_resolve, reject) => {
      let done = 0
      const tick = () => opts?.onProgress?.((done += 1), def.blockSize)
      calls.push({ tick })
      tick()
      const stop = () => reject(new AppError('CANCELLED', 'the task was cancelled'))
      if (opts?.signal?.aborted) stop()
      opts?.signal?.addEventListener('abort', stop, { once: true })
    })
  return { verifyBlock, tick: () => calls.forEach((c) => c.tick()), started: () => calls.length }
}

/** A clock the test moves. */
function testClock(start = T0): Clock & { advance(ms: number): void } {
  let now = start
  return Object.assign(() => new Date(now), { advance: (ms: number) => void (now += ms) })
}

let dir: string
let a: Backend
let b: Backend
const pool = { a: stalledPool(), b: stalledPool() }

async function twoWorkstations(clocks: { a?: Clock; b?: Clock } = {}): Promise<void> {
  pool.a = stalledPool()
  pool.b = stalledPool()
  a = await openEmissionBackend(dir, { verifyBlock: pool.a.verifyBlock, clock: clocks.a })
  const at = ledgerOf(a)
  b = openBackend({
    dbPath: at.location,
    keyFile: at.keyFile,
    threads: 1,
    verifyBlock: pool.b.verifyBlock,
    clock: clocks.b,
  })
}

beforeAll(async () => {
  await templatePath()
}, 600_000)
beforeEach(() => {
  dir = tempDir('leases')
})
afterEach(async () => {
  for (const x of [a, b]) {
    if (!x) continue
    for (const j of x.services.jobs.list()) if (j.state === 'running') x.services.jobs.cancel(j.id)
    await x.closeGracefully()
  }
  rmSync(dir, { recursive: true, force: true })
})

const auditOf = (x: Backend, action: 'job.interrupted' | 'emission.generate-interrupted') =>
  x.services.audit
    .list({ page: 1, pageSize: 10, action })
    .items.map((e) => ({ ...e, details: JSON.parse(e.details) as Record<string, unknown> }))

describe('a verification leased across workstations', () => {
  it('is refused on the second workstation while the first runs it, and taken over once the first closes mid-way', async () => {
    await twoWorkstations()
    const first = a.services.emissions.verify(op, 1)
    const held = refusal(() => b.services.emissions.verify(op, 1))
    expect(held.code).toBe('CONFLICT')
    expect(held.message).toMatch(
      /a verify task on emission:1 is already running on workstation .+ \(process \d+\) since .+; wait for it to end/,
    )
    expect(held.extras.reason).toMatchObject({
      key: 'LEASE_HELD',
      params: { kind: 'verify', subject: 'emission:1', pid: process.pid },
    })
    // nor may anything else start on that emission there
    expect(refusal(() => b.services.simulator.start(op, { emission: 1, sales: 10 })).extras.reason?.key).toBe(
      'LEASE_HELD',
    )
    expect(refusal(() => b.services.emissions.withdraw(op, 1, 'a reason')).extras.reason?.key).toBe('LEASE_HELD')

    a.close() // the first workstation closes mid-verification
    expect((await a.services.jobs.wait(first.id)).state).not.toBe('done')
    const second = b.services.emissions.verify(op, 1)
    expect(second).toMatchObject({ kind: 'verify', state: 'running' })
    expect(auditOf(b, 'job.interrupted')[0]).toMatchObject({ actor: 'system', object: 'verify:emission:1' })
    // the first's verification is closed, as interrupted; the second's is open
    const runs = b.services.db.prepare('SELECT outcome, error FROM verifications ORDER BY id DESC LIMIT 2').all()
    expect(runs).toEqual([
      { outcome: null, error: null },
      { outcome: 'failed', error: expect.stringMatching(/^interrupted/) },
    ])
  })
})

describe('a generation leased across workstations', () => {
  it('is refused elsewhere while it runs; after its workstation closes the emission goes back to created and the other generates it', async () => {
    await twoWorkstations()
    a.services.emissions.create(op, { blocks: 1, demo: true })
    a.services.emissions.generate(op, 2)
    const held = refusal(() => b.services.emissions.generate(op, 2))
    expect(held.extras.reason).toMatchObject({ key: 'LEASE_HELD', params: { kind: 'generate', subject: 'emission:2' } })
    expect(b.services.emissions.summary(2).status).toBe('generating')

    a.close()
    const job = b.services.emissions.generate(op, 2)
    expect(job).toMatchObject({ kind: 'generate', state: 'running' })
    expect(b.services.emissions.summary(2)).toMatchObject({ status: 'generating', jobId: job.id })
    expect(auditOf(b, 'emission.generate-interrupted')[0]).toMatchObject({ object: 'emission:2' })
    expect(auditOf(b, 'job.interrupted')[0]).toMatchObject({ object: 'generate:emission:2' })
    b.services.jobs.cancel(job.id)
    expect(await b.services.jobs.wait(job.id)).toMatchObject({ state: 'cancelled' })
    expect(b.services.emissions.summary(2).status).toBe('created')
  })

  it('is taken over when its heartbeat is stale, and the first workstation stops without touching the emission', async () => {
    const clockA = testClock()
    const clockB = testClock(T0 + LEASE_TIMEOUT_MS + 1_000)
    await twoWorkstations({ a: clockA, b: clockB })
    a.services.emissions.create(op, { blocks: 1, demo: true })
    const first = a.services.emissions.generate(op, 2)
    await Promise.resolve()
    const second = b.services.emissions.generate(op, 2) // a's lease was last heard from 61 s ago
    expect(auditOf(b, 'job.interrupted')[0]).toMatchObject({
      object: 'generate:emission:2',
      details: expect.objectContaining({ pid: process.pid }),
    })

    clockA.advance(LEASE_HEARTBEAT_MS + 1_000)
    pool.a.tick() // a's next heartbeat finds its lease gone
    const end = await a.services.jobs.wait(first.id)
    expect(end).toMatchObject({
      state: 'failed',
      reason: { key: 'LEASE_LOST', params: { kind: 'generate', subject: 'emission:2' } },
    })
    expect(b.services.emissions.summary(2)).toMatchObject({ status: 'generating', jobId: second.id })
  })

  it('of a workstation killed on another host is taken over only once its heartbeat is stale', async () => {
    const clock = testClock()
    await twoWorkstations({ b: clock })
    b.services.emissions.create(op, { blocks: 1, demo: true })
    b.services.db.prepare("UPDATE emissions SET status = 'generating' WHERE emission = 2").run()
    b.services.db
      .prepare(
        `INSERT INTO job_leases (kind, subject, holder, host, pid, started_at, heartbeat_at)
      VALUES ('generate', 'emission:2', 'gone', 'workstation-7', 4242, ?, ?)`,
      )
      .run(T0 - 10_000, T0)
    const held = refusal(() => b.services.emissions.generate(op, 2))
    expect(held.extras.reason).toMatchObject({
      key: 'LEASE_HELD',
      params: { host: 'workstation-7', pid: 4242, since: new Date(T0 - 10_000).toISOString() },
    })
    expect(b.services.emissions.recoverInterrupted()).toEqual([])

    clock.advance(LEASE_TIMEOUT_MS + 1)
    expect(b.services.emissions.recoverInterrupted()).toEqual([2])
    expect(auditOf(b, 'job.interrupted')[0]).toMatchObject({
      object: 'generate:emission:2',
      details: expect.objectContaining({ host: 'workstation-7', pid: 4242 }),
    })
    expect(b.services.emissions.generate(op, 2)).toMatchObject({ state: 'running' })
  })
})

describe('a simulation leased across workstations', () => {
  it('is refused elsewhere while it runs, and starts there once the first workstation closed', async () => {
    await twoWorkstations()
    a.services.simulator.start(op, { emission: 1, sales: 400_000 })
    const held = refusal(() => b.services.simulator.start(op, { emission: 1, sales: 10 }))
    expect(held.extras.reason).toMatchObject({ key: 'LEASE_HELD', params: { kind: 'simulate', subject: 'emission:1' } })
    expect(refusal(() => b.services.emissions.verify(op, 1)).extras.reason?.key).toBe('LEASE_HELD')
    await a.closeGracefully()
    const job = b.services.simulator.start(op, { emission: 1, sales: 10 })
    expect(await b.services.jobs.wait(job.id)).toMatchObject({ state: 'done' })
    expect(b.services.db.prepare("SELECT count(*) FROM job_leases WHERE kind = 'simulate'").pluck().get()).toBe(0)
  })
})

describe('an import leased across workstations, by the file’s SHA-256', () => {
  function feed(count: number, tag: string): Buffer {
    const day = T0 + 3_600_000
    const next = b.services.sales.nextUnit(1)!
    const lines = Array.from({ length: count }, (_, i) =>
      feedLine({
        saleId: `${tag}-${i}`,
        serial: formatSerial({ emission: 1, block: next.block, unit: next.unit + i }),
        player: `player-${i % 13}`,
        soldAt: day + i * 1000,
        stakeCents: 500,
        play: samplePlay(i),
      }),
    )
    return Buffer.from(lines.join('\n') + '\n')
  }
  const sold = () => b.services.db.prepare('SELECT count(*) FROM sales').pluck().get() as number
  const otherLease = (file: Buffer, heartbeatAt: number) =>
    b.services.db
      .prepare(
        `INSERT INTO job_leases (kind, subject, holder, host, pid, started_at, heartbeat_at) VALUES ('import', ?, 'w7', 'workstation-7', 4242, ?, ?)`,
      )
      .run(`feed:${sha256Of(file)}`, heartbeatAt, heartbeatAt)

  it('is refused while another workstation imports the same file; a stale one is taken over', async () => {
    const clock = testClock(T0 + 86_400_000)
    await twoWorkstations({ b: clock })
    const file = feed(50, 'L')
    const before = sold()
    otherLease(file, clock().getTime() - 1_000)
    const held = refusal(() => b.services.importer.importHere(op, file, 'day.jsonl'))
    expect(held.extras.reason).toMatchObject({
      key: 'LEASE_HELD',
      params: { kind: 'import', subject: `feed:${sha256Of(file)}`, host: 'workstation-7' },
    })
    expect(held.message).toMatch(
      /^an import task on feed:[0-9a-f]{64} is already running on workstation workstation-7 /,
    )
    expect(sold()).toBe(before)

    clock.advance(LEASE_TIMEOUT_MS)
    expect(b.services.importer.importHere(op, file, 'day.jsonl')).toMatchObject({ imported: 50 })
    expect(auditOf(b, 'job.interrupted')[0]).toMatchObject({ object: `import:feed:${sha256Of(file)}` })
    expect(b.services.db.prepare('SELECT count(*) FROM job_leases').pluck().get()).toBe(0)
  })

  it('of the same file on two workstations at once writes its sales once', async () => {
    await twoWorkstations()
    const file = feed(3000, 'T')
    const before = sold()
    // a's import on its worker thread, b's on this thread meanwhile
    const onWorker = a.services.importer.importContent(op, file, 't.jsonl')
    const here = Promise.resolve().then(() => b.services.importer.importHere(op, file, 't.jsonl'))
    const outcomes = await Promise.allSettled([onWorker, here])
    expect(sold()).toBe(before + 3000)
    const imported = outcomes.map((o) => (o.status === 'fulfilled' ? o.value.imported : 0))
    expect(imported.sort()).toEqual([0, 3000])
    const other = outcomes.find((o) => o.status === 'rejected' || o.value.imported === 0)!
    // refused while the first ran, or run after it and found every sale there already
    if (other.status === 'rejected')
      expect({
        message: (other.reason as AppError).message,
        key: (other.reason as AppError).extras.reason?.key,
      }).toMatchObject({ key: 'LEASE_HELD' })
    else expect(other.value.alreadyImported).toBe(3000)
  })
})
