/**
 * A host's reading threads (app/read-pool.ts): the contract's reading calls answered by worker
 * threads with connections of their own must answer exactly as the host's thread would, see what
 * the host has just written, keep the host's sessions and roles, and end with the backend. On a
 * team ledger they also answer the writing calls that need nothing of the host's memory.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { rmSync } from 'node:fs'
import type { Backend } from '../../electron/app/backend'
import { feedLine } from '../../electron/services/import'
import { formatSerial } from '../../game-core/serial'
import { testEngine } from '../support/ledger-engine'
import { outsideSql } from '../support/outside-sql'
import { ledgerOf, openEmissionBackend, PASSWORD, samplePlay, T0, tempDir, USERS } from './ledger-fixture'
import { call, signIn } from './staff-calls'

describe('reading threads', () => {
  let dir: string
  let pooled: Backend
  let now = T0
  beforeAll(async () => {
    dir = tempDir('read-threads')
    pooled = await openEmissionBackend(dir, { readThreads: 2, clock: () => new Date(now) })
  }, 60_000)
  afterAll(async () => {
    await pooled.closeGracefully()
    rmSync(dir, { recursive: true, force: true })
  })

  it('answers reading calls as the host would, with what the host has just written', async () => {
    const operator = await signIn(pooled, USERS.operator)
    const support = await signIn(pooled, USERS.support)
    const serial = formatSerial({ emission: 1, block: 1, unit: 0 })
    const feed = feedLine({
      saleId: 'R-1',
      serial,
      player: 'P-READ-1',
      soldAt: now,
      stakeCents: 500,
      play: samplePlay(1),
    })
    const imported = await call(pooled, 'sales:import', { content: `${feed}\n`, fileName: 'one.jsonl' }, operator)
    expect(imported, JSON.stringify(imported)).toMatchObject({ ok: true })
    // the host wrote the sale; a reading thread answers the player's last game and the ticket
    const last = await call(pooled, 'players:last', { player: 'P-READ-1' }, support)
    expect(last).toMatchObject({ ok: true, result: { lastUnits: [{ serial }] } })
    expect(await call(pooled, 'tickets:get', { serial }, support)).toMatchObject({
      ok: true,
      result: { serial, sold: true },
    })
    // the same answers as the host's own services give
    const here = pooled.services.players.last('P-READ-1')
    expect((last as { result: unknown }).result).toEqual(JSON.parse(JSON.stringify(here)))
  })

  it("keeps the host's sessions, roles and argument checks", async () => {
    const support = await signIn(pooled, USERS.support)
    expect(await call(pooled, 'audit:list', {}, null)).toMatchObject({ ok: false, error: { code: 'NOT_SIGNED_IN' } })
    expect(await call(pooled, 'audit:list', {}, support)).toMatchObject({ ok: false, error: { code: 'FORBIDDEN' } })
    expect(await call(pooled, 'tickets:get', { serial: 42 }, support)).toMatchObject({
      ok: false,
      error: { code: 'BAD_ARGUMENTS', field: 'serial' },
    })
    expect(await call(pooled, 'tickets:get', { serial: 'not a serial' }, support)).toMatchObject({
      ok: false,
      error: { code: 'INVALID_SERIAL' },
    })
    await call(pooled, 'auth:logout', {}, support)
    expect(await call(pooled, 'players:search', { query: '' }, support)).toMatchObject({
      ok: false,
      error: { code: 'NOT_SIGNED_IN' },
    })
  })

  it("reads with the host's clock", async () => {
    now = Date.parse('2026-03-05T12:00:00Z')
    const manager = await signIn(pooled, USERS.manager)
    const board = await call(pooled, 'reports:dashboard', {}, manager)
    expect(board, JSON.stringify(board)).toMatchObject({ ok: true })
    expect(JSON.stringify(board)).toContain('2026-03-05')
  })

  it('sees an audit entry the host has just written', async () => {
    const admin = await signIn(pooled, USERS.admin)
    const before = (await call(pooled, 'audit:list', {}, admin)) as { ok: true; result: { total: number } }
    expect((await call(pooled, 'auth:login', { name: USERS.admin, password: PASSWORD }, null)).ok).toBe(true)
    const after = (await call(pooled, 'audit:list', {}, admin)) as { ok: true; result: { total: number } }
    expect(after.result.total).toBe(before.result.total + 1)
  })

  it('ends a session whose account was changed outside the app, on a reading call, and the host forgets it', async () => {
    const auditor = await signIn(pooled, USERS.auditor)
    expect((await call(pooled, 'players:search', { query: '' }, auditor)).ok).toBe(true)
    // the thread checks the account on its connection: a role raised with the database ends the session
    outsideSql(ledgerOf(pooled).location, `UPDATE users SET role = 'admin' WHERE name = '${USERS.auditor}'`)
    expect(await call(pooled, 'players:search', { query: '' }, auditor)).toMatchObject({
      ok: false,
      error: { code: 'NOT_SIGNED_IN' },
    })
    // and the host holds the session no more, even once the row is put back as it was
    outsideSql(ledgerOf(pooled).location, `UPDATE users SET role = 'auditor' WHERE name = '${USERS.auditor}'`)
    expect(pooled.services.users.sessionUserId(auditor)).toBeNull()
    expect(await call(pooled, 'auth:status', {}, auditor)).toMatchObject({ ok: true, result: { user: null } })
  })

  it("takes a team ledger's writing calls off the host's thread, and a SQLite ledger's in its turn on the host", async () => {
    const admin = await signIn(pooled, USERS.admin)
    const onHost = vi.spyOn(pooled.services.parties, 'add')
    try {
      const args = { player: 'P-WRITE-1', relation: 'staff', linkedTo: 'Otto', reason: 'works the retail desk' }
      expect(await call(pooled, 'parties:add', args, admin)).toMatchObject({
        ok: true,
        result: { player: 'P-WRITE-1' },
      })
      expect(onHost).toHaveBeenCalledTimes(testEngine() === 'postgres' ? 0 : 1)
    } finally {
      onHost.mockRestore()
    }
    // written, whoever wrote it: the host's own services and a reading thread see it
    expect(pooled.services.parties.list(false).map((p) => p.player)).toContain('P-WRITE-1')
    expect(JSON.stringify(await call(pooled, 'parties:list', {}, admin))).toContain('P-WRITE-1')
    expect(pooled.services.audit.verify().ok).toBe(true)
  })

  it('signs out: the host forgets the session at once and the log records the sign-out, once', async () => {
    const support = await signIn(pooled, USERS.support)
    const userId = pooled.services.users.sessionUserId(support)
    expect(await call(pooled, 'auth:logout', {}, support)).toMatchObject({ ok: true })
    expect(pooled.services.users.sessionUserId(support)).toBeNull()
    expect(await call(pooled, 'players:search', { query: '' }, support)).toMatchObject({
      ok: false,
      error: { code: 'NOT_SIGNED_IN' },
    })
    const last = pooled.services.db.prepare('SELECT actor, action, object FROM audit ORDER BY seq DESC LIMIT 1').get()
    expect(last).toEqual({ actor: USERS.support, action: 'auth.logout', object: `user:${userId}` })
    // a second sign-out with the ended session is refused and writes nothing
    expect(await call(pooled, 'auth:logout', {}, support)).toMatchObject({
      ok: false,
      error: { code: 'NOT_SIGNED_IN' },
    })
    expect(pooled.services.db.prepare('SELECT action FROM audit ORDER BY seq DESC LIMIT 1').pluck().get()).toBe(
      'auth.logout',
    )
  })
})
