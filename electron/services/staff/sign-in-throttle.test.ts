/** The sign-in throttle's states and what it writes in the audit log, without hashing any password. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openLedger, type Db } from '../../ledger/db'
import { openLedgerKey } from '../../ledger/keystore'
import { createAuditService, type AuditService } from '../audit'
import { testEngine } from '../../../test/support/ledger-engine'
import { freshLedgerLocation } from '../../../test/support/fresh-ledger'
import {
  createSignInThrottle,
  MINUTE_MS,
  type Attempt,
  type Failure,
  type SignInThrottle,
  type ThrottleOptions,
} from './sign-in-throttle'

const T0 = Date.parse('2026-03-02T09:00:00Z')
let dir: string
let path: string
let keyFile: string | undefined
let db: Db
let audit: AuditService
let now: number
const clock = () => new Date(now)

function open(options: ThrottleOptions = {}): SignInThrottle {
  db = openLedger(path)
  audit = createAuditService({ db, clock, keys: openLedgerKey(db, path, { keyFile }), dbPath: path, keyFile })
  return createSignInThrottle({ db, clock, audit, options })
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'throttle-'))
  const ledger = freshLedgerLocation(dir, 't')
  path = ledger.location
  keyFile = ledger.keyFile
  now = T0
})
afterEach(() => {
  if (db.open) db.close()
  rmSync(dir, { recursive: true, force: true })
})

function addUser(name: string): number {
  const zero = Buffer.from([0])
  return db
    .prepare(
      "INSERT INTO users (name, role, password_hash, password_salt, active, created_at) VALUES (?, 'support', ?, ?, 1, '2026-01-01T00:00:00.000Z') RETURNING id",
    )
    .pluck()
    .get(name, zero, zero) as number
}

/** One failed attempt (or one refused, when locked): what the failure was, in place of its ticket. */
function fail(
  t: SignInThrottle,
  name: string,
  reason = 'wrong name or password',
): Attempt | { locked: false; ticket: Failure } {
  const a = t.begin(name)
  return a.locked ? a : { locked: false, ticket: t.failed(a.ticket, reason) }
}

const entries = () =>
  audit
    .list({ page: 1, pageSize: 500 })
    .items.reverse()
    .filter((e) => e.action !== 'audit.keyed')
const actions = () => entries().map((e) => e.action)
const details = (i: number) => JSON.parse(entries()[i].details) as Record<string, unknown>

/** How many failed attempts the log accounts for: one per entry, or the count it gives. */
function accounted(): number {
  let n = 0
  for (const e of entries()) {
    if (e.action === 'auth.login-failed' || e.action === 'auth.locked') n += 1
    else if (e.action === 'auth.login-failures') n += (JSON.parse(e.details) as { count: number }).count
    else if (e.action === 'user.unlock') n += (JSON.parse(e.details) as { unlogged: number }).unlogged
  }
  return n
}
const unloggedInTable = () =>
  db.prepare('SELECT coalesce(sum(unlogged), 0) FROM sign_in_throttle').pluck().get() as number

describe('the sign-in throttle', () => {
  it('locks a name after 5 failures within 15 minutes, for 1, 2, 4 … 30 minutes, an account or not, whatever the case typed', () => {
    const t = open()
    addUser('ada')
    for (const [name, typed] of [
      ['ada', 'ADA'],
      ['nobody', 'NoBody'],
    ]) {
      now = T0
      for (let i = 0; i < 4; i++) {
        expect(fail(t, i % 2 ? typed : name).locked).toBe(false)
        now += 3 * MINUTE_MS
      }
      // the fifth failure, 12 minutes after the first, locks the name for a minute
      expect(fail(t, typed)).toMatchObject({ locked: false, ticket: { lock: { until: now + MINUTE_MS, lockout: 1 } } })
      const lockedAt = now
      now += 30_000
      expect(t.begin(name)).toEqual({ locked: true, until: lockedAt + MINUTE_MS })
      expect(t.begin(typed)).toEqual({ locked: true, until: lockedAt + MINUTE_MS })
      // each failure after a lockout locks again at once, twice as long, up to 30 minutes
      let until = lockedAt + MINUTE_MS
      for (const minutes of [2, 4, 8, 16, 30, 30]) {
        now = until
        expect(fail(t, name)).toMatchObject({ locked: false, ticket: { lock: { until: now + minutes * MINUTE_MS } } })
        until = now + minutes * MINUTE_MS
        now = until - 1
        expect(t.begin(typed)).toEqual({ locked: true, until })
      }
    }
    // the account and the unknown name left the same trace, but for the object
    const byName = (n: string) =>
      entries()
        .filter((e) => e.actor.toLowerCase() === n)
        .map((e) => e.action)
    expect(byName('ada')).toEqual(byName('nobody'))
    expect(byName('ada').slice(0, 2)).toEqual(['auth.login-failed', 'auth.locked'])
  })

  it('forgets a window without lockout 15 minutes after its first failure, and lockouts 24 hours after the last ended', () => {
    const t = open()
    for (let i = 0; i < 4; i++) fail(t, 'eve')
    now += 15 * MINUTE_MS
    for (let i = 0; i < 4; i++) expect(fail(t, 'eve').locked).toBe(false)
    expect(fail(t, 'eve')).toMatchObject({ ticket: { lock: { lockout: 1 } } })
    now += MINUTE_MS
    expect(fail(t, 'eve')).toMatchObject({ ticket: { lock: { lockout: 2 } } })
    now += 2 * MINUTE_MS + 24 * 60 * MINUTE_MS
    expect(fail(t, 'eve')).toMatchObject({ locked: false, ticket: { first: true, lock: null } })
  })

  it('lets no more attempts be in flight than the failures left, and counts an attempt only once it failed', () => {
    const t = open()
    const busy = /too many sign-ins with this name are being checked at once/
    const started = Array.from({ length: 5 }, () => t.begin('ada'))
    expect(started.every((a) => !a.locked)).toBe(true)
    // a sixth at once is busy, not counted; another name is not concerned
    expect(() => t.begin('ADA')).toThrow(busy)
    expect(t.row('ada')).toBeUndefined()
    expect(t.begin('bob').locked).toBe(false)
    // two failed: two failures left, and three still in flight, so none more
    for (const a of started.slice(0, 2)) if (!a.locked) t.failed(a.ticket, 'wrong name or password')
    expect(t.row('ada')).toMatchObject({ failures: 2, lockouts: 0 })
    expect(() => t.begin('ada')).toThrow(busy)
    // one succeeded (the right password): the failures forgotten, five places again, two in flight
    t.succeeded('ada')
    expect(t.row('ada')).toBeUndefined()
    const more = Array.from({ length: 3 }, () => t.begin('ada'))
    expect(() => t.begin('ada')).toThrow(busy)
    // the five left in flight fail: the fifth locks, nothing more is checked
    const outcomes = [...started.slice(3), ...more].map((a) =>
      a.locked ? null : t.failed(a.ticket, 'wrong name or password'),
    )
    expect(outcomes.map((f) => f?.lock?.lockout ?? null)).toEqual([null, null, null, null, 1])
    expect(t.begin('ada')).toMatchObject({ locked: true })
  })

  it('an attempt beyond the places waits for one to end, then is looked at afresh; too many waiting are busy', async () => {
    const t = open({ slots: { maxWaiting: 2, waitMs: 5_000 } })
    const wrong = 'wrong name or password'
    const started = Array.from({ length: 5 }, () => t.begin('ada'))
    const ticket = (a: Attempt) => (a.locked ? expect.fail('locked') : a.ticket)
    let entered = 0
    const waiting = [t.enter('ada'), t.enter('ada')].map((p) => p.then((a) => (entered++, a)))
    await expect(t.enter('ada')).rejects.toMatchObject({ extras: { reason: { key: 'SIGN_IN_BUSY' } } })
    // one succeeds: one waiting takes its place
    t.succeeded('ada')
    const first = await waiting[0]
    expect(entered).toBe(1)
    // one fails: one failure, four places left, four in flight: the other still waits
    t.failed(ticket(started[1]), wrong)
    await new Promise((r) => setTimeout(r, 20))
    expect(entered).toBe(1)
    // another succeeds: the failure forgotten, it enters
    t.succeeded('ada')
    const second = await waiting[1]
    // four in flight and one more; the next waits, and is refused once the five have failed and locked the name
    const fifth = await t.enter('ada')
    const late = t.enter('ada')
    for (const a of [started[3], started[4], first, second, fifth]) t.failed(ticket(a), wrong)
    expect(await late).toMatchObject({ locked: true })
  })

  it('logs the first failure and the lockout, counts the rest, and writes their count once the lockout has ended or at the next success', () => {
    const t = open()
    const id = addUser('ada')
    for (let i = 0; i < 5; i++) fail(t, 'ada')
    expect(actions()).toEqual(['auth.login-failed', 'auth.locked'])
    expect(entries()[0]).toMatchObject({ actor: 'ada', object: `user:${id}` })
    expect(details(1)).toEqual({
      reason: 'wrong name or password',
      until: new Date(now + MINUTE_MS).toISOString(),
      minutes: 1,
      lockout: 1,
      failures: 5,
    })
    // refused while locked: counted, not logged
    for (let i = 0; i < 20; i++) {
      now += 1000
      expect(fail(t, 'ada').locked).toBe(true)
    }
    expect(actions()).toHaveLength(2)
    expect(t.row('ada')).toMatchObject({ unlogged: 3 + 20 })
    // the lockout has ended: the next attempt writes the count, then its own lockout
    now += MINUTE_MS
    fail(t, 'ada')
    expect(actions()).toEqual(['auth.login-failed', 'auth.locked', 'auth.login-failures', 'auth.locked'])
    expect(details(2)).toMatchObject({ count: 23 })
    expect(details(3)).toMatchObject({ lockout: 2, minutes: 2 })
    // refused again, then a success (after the lockout) writes the count
    fail(t, 'ada')
    now += 2 * MINUTE_MS
    const ok = t.begin('ada')
    expect(ok.locked).toBe(false)
    expect(actions()).toHaveLength(5)
    t.succeeded('ada')
    expect(actions()).toHaveLength(5)
    expect(actions()[4]).toBe('auth.login-failures')
    expect(t.row('ada')).toBeUndefined()
    expect(accounted()).toBe(5 + 20 + 1 + 1)
    // failures within a window that never locked: their count at the next success
    for (let i = 0; i < 3; i++) fail(t, 'bob')
    expect(actions().slice(5)).toEqual(['auth.login-failed'])
    expect(t.begin('bob').locked).toBe(false)
    t.succeeded('bob')
    expect(actions().slice(5)).toEqual(['auth.login-failed', 'auth.login-failures'])
    expect(details(6)).toMatchObject({ count: 2 })
  })

  it('an administrator unlocks a name: the entry says what was forgotten', () => {
    const t = open()
    const id = addUser('ada')
    for (let i = 0; i < 7; i++) fail(t, 'ada')
    expect(t.lockedAccounts()).toEqual(new Map([[id, now + MINUTE_MS]]))
    expect(t.unlock('root', { id, name: 'ada' })).toBe(true)
    expect(actions().at(-1)).toBe('user.unlock')
    expect(entries().at(-1)).toMatchObject({ actor: 'root', object: `user:${id}` })
    expect(details(2)).toEqual({
      name: 'ada',
      lockedUntil: new Date(now + MINUTE_MS).toISOString(),
      lockouts: 1,
      failures: 5,
      unlogged: 5,
    })
    expect(t.lockedAccounts().size).toBe(0)
    expect(t.begin('ada').locked).toBe(false)
    // nothing left to forget: an attempt counts only once its password is known wrong
    expect(t.unlock('root', { id, name: 'ada' })).toBe(false)
  })

  // a day on SQLite; six hours on PostgreSQL, where each of the attempts' statements is a round trip
  const hours = testEngine() === 'postgres' ? 6 : 24
  it(`an attacker trying one name every 5 seconds for ${hours} hours writes a few entries an hour, and every attempt is accounted for`, () => {
    const t = open()
    addUser('ada')
    const attempts = (hours * 3600) / 5
    for (let i = 0; i < attempts; i++) {
      fail(t, 'ada')
      now += 5000
    }
    const n = entries().length
    // 1, 2, 4, 8, 16 then 30 minutes: 5 lockouts in the first half hour, then 2 an hour; two entries each
    expect(n).toBeLessThanOrEqual(2 * (5 + 2 * hours) + 3)
    expect(n).toBeGreaterThan(2 * hours)
    expect(accounted() + unloggedInTable()).toBe(attempts)
  }, 300_000)

  it('writes at most its budget of entries per 15 minutes whatever the number of names, and keeps only the most recent unknown names', () => {
    const t = open({ auditBudget: 10, maxUnknownNames: 50 })
    addUser('ada')
    for (let i = 0; i < 1000; i++) {
      fail(t, `random-${i}`)
      if (i % 100 === 0) for (let k = 0; k < 6; k++) fail(t, 'ada')
      now += 800 // 1000 names in under 14 minutes
    }
    expect(entries()).toHaveLength(10)
    // 50 unknown names, the account, and the global summary's row
    expect(db.prepare('SELECT count(*) FROM sign_in_throttle').pluck().get()).toBe(52)
    expect(t.row('random-999')).toBeDefined()
    expect(t.row('random-949')).toBeUndefined()
    // the account's row was never evicted
    expect(t.row('ada')).toMatchObject({ lockouts: expect.any(Number) })
    expect(accounted() + unloggedInTable()).toBe(1000 + 60)
    // once the quarter of an hour has passed, the next attempt writes the global count in one entry
    now = T0 + 15 * MINUTE_MS
    fail(t, 'someone')
    const summary = entries()[10]
    expect(summary).toMatchObject({ actor: 'system', action: 'auth.login-failures', object: 'sign-in' })
    expect(JSON.parse(summary.details)).toMatchObject({ count: expect.any(Number) })
    expect(accounted() + unloggedInTable()).toBe(1000 + 60 + 1)
  })

  it('keeps its state in the ledger: across a restart, and between two connections', () => {
    let t = open()
    for (let i = 0; i < 5; i++) fail(t, 'ada')
    audit.flushCheckpoint()
    db.close()
    t = open()
    expect(t.begin('ada')).toEqual({ locked: true, until: now + MINUTE_MS })
    const other = openLedger(path)
    try {
      const t2 = createSignInThrottle({
        db: other,
        clock,
        audit: createAuditService({
          db: other,
          clock,
          keys: openLedgerKey(other, path, { keyFile }),
          dbPath: path,
          keyFile,
        }),
      })
      expect(t2.begin('Ada')).toEqual({ locked: true, until: now + MINUTE_MS })
      now += MINUTE_MS
      fail(t2, 'ada')
      expect(t.begin('ada')).toEqual({ locked: true, until: now + 2 * MINUTE_MS })
    } finally {
      other.close()
    }
    expect(audit.verify()).toMatchObject({ ok: true })
  })
})
