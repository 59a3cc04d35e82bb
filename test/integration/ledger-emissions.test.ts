import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { rmSync } from 'node:fs'
import { AppError, type ErrorReason } from '../../electron/contract/errors'
import type { Backend } from '../../electron/app/backend'
import { completeCeremony } from '../support/ceremony'
import { actor, emptyBackend, tempDir } from './ledger-fixture'

let dir: string
let b: Backend
beforeEach(() => {
  dir = tempDir('emissions')
  b = emptyBackend(dir)
})
afterEach(async () => {
  await b.closeGracefully()
  rmSync(dir, { recursive: true, force: true })
})

function expectAppError(fn: () => unknown, code: string, pattern?: RegExp, reason?: ErrorReason): void {
  try {
    fn()
  } catch (e) {
    expect(e).toBeInstanceOf(AppError)
    expect((e as AppError).code).toBe(code)
    if (pattern) expect((e as AppError).message).toMatch(pattern)
    // the reason that the screens say in the user's language
    if (reason) expect((e as AppError).extras.reason).toEqual(reason)
    return
  }
  throw new Error(`expected ${code}`)
}

const op = actor('operator')

describe('the life of an emission', () => {
  it('goes created → generating → generated → verified → open → closed, refusing every step out of order', async () => {
    const s = b.services
    const e = s.emissions.create(op, { blocks: 1, code: 'SPRING', startsOn: '2026-04-01' })
    expect(e).toMatchObject({
      emission: 1,
      code: 'SPRING',
      startsOn: '2026-04-01',
      status: 'created',
      blocks: 1,
      unitsTotal: 8_016_000,
      unitsSold: 0,
      blocksGenerated: 0,
    })
    expectAppError(
      () => s.emissions.create(op, { blocks: 1, code: 'SPRING' }),
      'CONFLICT',
      /code "SPRING" already exists/,
      { key: 'EMISSION_CODE_TAKEN', params: { code: 'SPRING' } },
    )
    expectAppError(
      () => s.emissions.open(op, 1),
      'ILLEGAL_STATE',
      /cannot open for sale: it is created but not generated; every block must be verified/,
      {
        key: 'EMISSION_STEP',
        params: { emission: 1, action: 'open', status: 'created', hint: 'verifyFirst' },
      },
    )
    expectAppError(() => s.emissions.verify(op, 1), 'ILLEGAL_STATE', /generate its blocks first/, {
      key: 'EMISSION_STEP',
      params: { emission: 1, action: 'verify', status: 'created', hint: 'generateFirst' },
    })
    expectAppError(() => s.emissions.close(op, 1), 'ILLEGAL_STATE', /only an open emission closes/, {
      key: 'EMISSION_STEP',
      params: { emission: 1, action: 'close', status: 'created', hint: 'onlyOpenCloses' },
    })
    expectAppError(() => s.emissions.generate(op, 1), 'ILLEGAL_STATE', /no key ceremony yet/, {
      key: 'CEREMONY_REQUIRED',
      params: { emission: 1 },
    })
    completeCeremony(s.ceremony, 1, { starter: op, custodian: actor('auditor') })

    const job = s.emissions.generate(op, 1)
    expect(job).toMatchObject({ kind: 'generate', emission: 1, state: 'running', total: 8_016_000 })
    expect(s.emissions.summary(1)).toMatchObject({ status: 'generating', jobId: job.id })
    expectAppError(() => s.emissions.generate(op, 1), 'ILLEGAL_STATE', /a generate task is running on it/, {
      key: 'EMISSION_BUSY',
      params: { emission: 1, action: 'generate', kind: 'generate' },
    })
    expectAppError(() => s.emissions.withdraw(op, 1, 'changed our mind'), 'ILLEGAL_STATE', /cancel it/)
    const done = await s.jobs.wait(job.id)
    expect(done).toMatchObject({ state: 'done', done: 8_016_000, message: '1 block generated' })
    const g = s.emissions.get(1)
    expect(g).toMatchObject({ status: 'generated', blocksGenerated: 1, blocksVerified: 0, jobId: null })
    expect(g.blockList[0]).toMatchObject({ commitment: expect.stringMatching(/^[0-9a-f]{64}$/), seeding: 'two-person' })
    expectAppError(() => s.emissions.generate(op, 1), 'ILLEGAL_STATE', /generated once, never again/)
    expectAppError(() => s.emissions.open(op, 1), 'ILLEGAL_STATE', /generated but not verified/)
    // the database holds the secret sealed, never in the clear
    const secret = s.db.prepare('SELECT secret FROM blocks').pluck().get() as Buffer
    expect(secret.length).toBe(1 + 12 + 16 + 32)

    const v = await s.jobs.wait(s.emissions.verify(actor('auditor'), 1).id)
    expect(v).toMatchObject({ state: 'done', message: '1 block verified: every commitment reproduced' })
    expect(s.emissions.get(1)).toMatchObject({ status: 'verified', blocksVerified: 1 })
    expect(s.emissions.block(1, 1)).toMatchObject({ status: 'verified', unitsSold: 0, losingRemaining: 5_960_536 })
    expect(s.emissions.open(op, 1).status).toBe('open')
    expectAppError(() => s.emissions.open(op, 1), 'ILLEGAL_STATE', /open for sale: it is open for sale/)
    expect(s.emissions.close(op, 1).status).toBe('closed')
    expectAppError(
      () => s.emissions.withdraw(op, 1, 'too late now'),
      'ILLEGAL_STATE',
      /closed or withdrawn emission is final/,
    )

    const cert = s.emissions.certificate(1)
    expect(cert).toMatchObject({
      code: 'SPRING',
      prizesPerBlock: 2_055_464,
      prizeTotalCents: 2_885_750_000,
      losingUnits: 5_960_536,
      salesPerBlockCents: 4_008_000_000,
    })
    expect(cert.blocks[0]).toMatchObject({
      block: 1,
      status: 'verified',
      commitment: g.blockList[0].commitment,
      seeding: 'two-person',
    })
    expect(cert).toMatchObject({
      singleControl: false,
      ceremony: { state: 'complete', startedBy: 'otto', custodian: 'aude' },
    })

    const actions = s.audit
      .list({ page: 1, pageSize: 100 })
      .items.map((a) => a.action)
      .reverse()
    expect(actions).toEqual([
      'audit.keyed',
      'emission.create',
      'ceremony.start',
      'ceremony.commit',
      'ceremony.reveal',
      'emission.generate-start',
      'block.generate',
      'emission.generate-done',
      'emission.verify-start',
      'block.verify',
      'emission.verify-done',
      'emission.open',
      'emission.close',
    ])
    expect(s.audit.verify().ok).toBe(true)
  }, 180_000)

  it('cancels a generation: back to created, no half-made block', async () => {
    const s = b.services
    s.emissions.create(op, { blocks: 2 })
    completeCeremony(s.ceremony, 1)
    const job = s.emissions.generate(op, 1)
    // cancel while the first block is under way
    while (s.jobs.get(job.id).done === 0) await new Promise((r) => setTimeout(r, 20))
    s.jobs.cancel(job.id)
    const end = await s.jobs.wait(job.id)
    expect(end.state).toBe('cancelled')
    const blocks = s.db
      .prepare(
        'SELECT block, status, secret IS NOT NULL AS has_secret, commitment IS NOT NULL AS has_commitment FROM blocks ORDER BY block',
      )
      .all()
    expect(blocks).toEqual([
      { block: 1, status: 'pending', has_secret: 0, has_commitment: 0 },
      { block: 2, status: 'pending', has_secret: 0, has_commitment: 0 },
    ])
    expect(s.emissions.summary(1).status).toBe('created')
    expect(s.audit.list({ page: 1, pageSize: 5, action: 'emission.generate-cancelled' }).total).toBe(1)
  }, 180_000)

  it('withdraws with a reason from any state before the end, and puts a stuck generation back after a crash', () => {
    const s = b.services
    s.emissions.create(op, { blocks: 1 })
    expectAppError(() => s.emissions.withdraw(op, 1, '  '), 'REASON_REQUIRED')
    const w = s.emissions.withdraw(op, 1, 'the artwork was rejected')
    expect(w).toMatchObject({ status: 'withdrawn', withdrawnReason: 'the artwork was rejected' })
    expectAppError(() => s.emissions.generate(op, 1), 'ILLEGAL_STATE', /it is withdrawn/)
    expectAppError(() => s.emissions.withdraw(op, 1, 'again'), 'ILLEGAL_STATE', /final/)

    s.emissions.create(op, { blocks: 1 })
    s.db.prepare("UPDATE emissions SET status = 'generating' WHERE emission = 2").run() // as a killed process leaves it
    expect(s.emissions.recoverInterrupted()).toEqual([2])
    expect(s.emissions.summary(2).status).toBe('created')
    expect(s.audit.list({ page: 1, pageSize: 5, action: 'emission.generate-interrupted' }).items[0]).toMatchObject({
      actor: 'system',
      object: 'emission:2',
    })
    expectAppError(() => s.emissions.get(3), 'NOT_FOUND', /emission 3 does not exist/)
    expectAppError(() => s.emissions.block(1, 2), 'NOT_FOUND', /no block 2 \(it has 1\)/)
  })

  it('leaves alone a generation that another live process is running (the CLI opened while the app generates)', async () => {
    const s = b.services
    s.emissions.create(op, { blocks: 1 })
    s.emissions.create(op, { blocks: 1 })
    s.emissions.create(op, { blocks: 1 })
    const { spawnSync } = await import('node:child_process')
    const { hostname } = await import('node:os')
    const deadPid = spawnSync(process.execPath, ['-e', '0']).pid!
    const now = Date.now()
    const lease = s.db.prepare(`INSERT INTO job_leases (kind, subject, holder, host, pid, started_at, heartbeat_at)
      VALUES ('generate', ?, 'elsewhere', ?, ?, ?, ?)`)
    s.db.prepare("UPDATE emissions SET status = 'generating'").run()
    lease.run('emission:1', hostname(), process.ppid, now, now) // alive, another process, heard from just now
    lease.run('emission:2', hostname(), deadPid, now, now) // its process is gone
    lease.run('emission:3', hostname(), process.ppid, now - 120_000, now - 120_000) // alive, but silent for two minutes
    expect(s.emissions.recoverInterrupted()).toEqual([2, 3])
    expect(s.emissions.summary(1).status).toBe('generating')
    expect(s.emissions.summary(2).status).toBe('created')
    expect(s.emissions.summary(3).status).toBe('created')
    expect(s.db.prepare('SELECT subject FROM job_leases').pluck().all()).toEqual(['emission:1'])
    // each dead lease's job recorded as interrupted
    expect(
      s.audit
        .list({ page: 1, pageSize: 5, action: 'job.interrupted' })
        .items.map((e) => e.object)
        .sort(),
    ).toEqual(['generate:emission:2', 'generate:emission:3'])
  })
})
