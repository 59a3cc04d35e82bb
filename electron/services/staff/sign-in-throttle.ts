/**
 * The sign-in throttle: failed attempts counted per name typed, kept in the ledger (table
 * sign_in_throttle) so that it holds across restarts and across processes on the same ledger.
 *
 * ## Throttling
 *
 * A row per name, compared case-insensitively as the users table compares names, whether or not
 * an account has that name: an unknown name is refused exactly as an account is, so a refusal
 * never tells whether the account exists.
 *
 * - 5 failed attempts within 15 minutes of the first lock the name for 1 minute.
 * - Once a lockout has ended, each further failure locks it again at once, for twice as long as
 *   the previous one: 1, 2, 4, 8, 16, then 30 minutes each time.
 * - While locked, every attempt is refused, the right password included, before any password is
 *   looked at: the refusal says until when, and nothing about the password (nor costs a scrypt).
 * - A successful sign-in (or password change), or an administrator's unlock, forgets the name's
 *   row; so does time: a window with no lockout ends 15 minutes after its first failure, and the
 *   count of lockouts is forgotten 24 hours after the last one ended.
 * - An attempt counts as failed once its password is known to be wrong (`failed`), never while it
 *   is checked: many right passwords sent at once for one name all sign in. Guesses sent at once
 *   cannot get past the count either: no more attempts of a name are in flight (their hashes being
 *   computed) than its failures left before the lockout (5 at first; 1 once it has been locked),
 *   counted in this process (sign-in-slots.ts). An attempt beyond them waits for one to end
 *   (`enter`), then is looked at afresh (refused if the name got locked meanwhile); when 32 wait
 *   already, or after 15 s, it is refused as busy (SIGN_IN_BUSY, try again), not counted.
 *   The bound holds per process: each process on the ledger (the desktop app, the browser host,
 *   a `carats` command) lets its own few attempts be in flight, and the count they add to is shared.
 *
 * The rows of names that are no account are bounded: only the `maxUnknownNames` (1000) most
 * recently tried are kept, the older ones are forgotten (their unlogged counts go to the global
 * summary below). Rows of names that are accounts are never evicted. The price: someone who types
 * 1000 other names between two attempts on one name can tell whether it was an account (its count
 * was kept), at the cost of 1000 sign-ins of a scrypt each and of a summary in the log.
 *
 * ## What the audit log records
 *
 * Nobody can grow the log without signing in faster than a bounded rate:
 *
 * - per name, the first failure of a window (`auth.login-failed`) and each lockout
 *   (`auth.locked`, with until when and the lockout's number). Further failures within the window,
 *   and attempts refused while locked, are only counted (`unlogged`, from `unlogged_since`); their
 *   count is written as one `auth.login-failures` entry when the lockout has ended (at the next
 *   attempt on the name), at the next success, when the window is forgotten, or in the
 *   administrator's `user.unlock` entry. So a name gives at most two entries per lockout, and
 *   lockouts last longer and longer: after the first quarter of an hour, about four entries an hour.
 * - globally, entries written for attempts that did not sign in (the ones above but those at a
 *   success) are at most `auditBudget` (100) per 15 minutes, whatever the number of names; beyond
 *   it, the failures they stand for are counted in the row named '' (no name typed at sign-in can
 *   be empty) and written as one `auth.login-failures` entry by `system` when that quarter of an
 *   hour has passed (at the next attempt). At most 101 entries per 15 minutes, without signing in.
 */
import type { Db } from '../../ledger/db'
import { lockSubject } from '../../ledger/row-locks'
import { NO_LIMIT } from '../../ledger/dialect'
import type { AuditAction } from '../../contract/types'
import type { AuditService } from '../audit'
import { type Clock, iso } from '../common'
import { AppError, because } from '../../contract/errors'
import { SignInSlots, SlotBusy, SLOT_DEFAULTS, type SlotOptions } from './sign-in-slots'

export interface ThrottleOptions {
  /** Failed attempts within `windowMs` that lock a name (5). */
  maxFailures?: number
  windowMs?: number
  /** How long the n-th lockout of a name lasts (1, 2, 4 … 30 minutes). */
  lockMs?: (n: number) => number
  /** How long after the last lockout ended its count is forgotten (24 hours). */
  forgetMs?: number
  /** Names that are no account kept at most (1000). */
  maxUnknownNames?: number
  /** Entries written per `windowMs` for attempts that did not sign in (100). */
  auditBudget?: number
  /** Attempts waiting for one in flight to end (sign-in-slots.ts). */
  slots?: Partial<SlotOptions>
}

export const MINUTE_MS = 60_000
export const THROTTLE_DEFAULTS: Required<ThrottleOptions> = {
  maxFailures: 5,
  windowMs: 15 * MINUTE_MS,
  lockMs: (n) => Math.min(30, 2 ** (n - 1)) * MINUTE_MS,
  forgetMs: 24 * 60 * MINUTE_MS,
  maxUnknownNames: 1000,
  auditBudget: 100,
  slots: {},
}

/** The row of the global summary: a name no one can type at sign-in. */
const GLOBAL = ''

export interface ThrottleRow {
  name: string
  failures: number
  window_start: number
  lockouts: number
  locked_until: number | null
  unlogged: number
  unlogged_since: number | null
  last_at: number
}

/** What `begin` gives back to the attempt that may go on (its place in flight), for `failed` or `succeeded` to end. */
export interface Ticket {
  name: string
}

/** What a failure was: the first of its window (logged on its own), or the one that set a lockout. */
export interface Failure {
  first: boolean
  lock: { until: number; lockout: number } | null
}

export type Attempt = { locked: true; until: number } | { locked: false; ticket: Ticket }

export interface SignInThrottle {
  /** Before the password is checked: a locked name is refused; otherwise the attempt is in flight until `failed` or `succeeded`. Busy (thrown) when the name has no place left in flight. */
  begin(name: string): Attempt
  /** `begin`, waiting for a place in flight when the name has none left; busy (thrown) when too many wait, or after waiting too long. */
  enter(name: string): Promise<Attempt>
  /** The attempt failed (the password was wrong, or the account deactivated): counted, and logged or summed up; locks the name at the fifth. */
  failed(ticket: Ticket, reason: string): Failure
  /** The name proved its password: its row is forgotten, its unlogged failures written in one entry. Call it in the success's transaction. */
  succeeded(name: string): void
  /** An administrator's unlock, audited with what it forgot; false when the name had no row. */
  unlock(actor: string, account: { id: number; name: string }): boolean
  /** Accounts locked now, by user id: until when (ms). */
  lockedAccounts(): Map<number, number>
  /** The row of a name, as it is (tests, diagnostics). */
  row(name: string): ThrottleRow | undefined
}

/** What the throttle's functions share: the ledger, the options in force, the statements prepared once. */
interface ThrottleContext {
  db: Db
  clock: Clock
  audit: AuditService
  o: Required<ThrottleOptions>
  slots: SignInSlots
  statements: ReturnType<typeof prepareThrottleStatements>
}

function prepareThrottleStatements(db: Db) {
  return {
    get: db.prepare('SELECT * FROM sign_in_throttle WHERE name = ?'),
    del: db.prepare('DELETE FROM sign_in_throttle WHERE name = ?'),
    insert: db.prepare(
      'INSERT INTO sign_in_throttle (name, failures, window_start, lockouts, locked_until, unlogged, unlogged_since, last_at) VALUES (?, 0, ?, 0, NULL, 0, NULL, ?)',
    ),
    reserve: db.prepare(
      'UPDATE sign_in_throttle SET failures = ?, lockouts = ?, locked_until = ?, last_at = ? WHERE name = ?',
    ),
    countUnlogged:
      db.prepare(`UPDATE sign_in_throttle SET unlogged = unlogged + ?, unlogged_since = coalesce(unlogged_since, ?),
    last_at = CASE WHEN last_at > ? THEN last_at ELSE ? END WHERE name = ?`),
    clearUnlogged: db.prepare('UPDATE sign_in_throttle SET unlogged = 0, unlogged_since = NULL WHERE name = ?'),
    userId: db.prepare('SELECT id FROM users WHERE name = ?').pluck(),
    beyondUnknown: db.prepare(`
    SELECT name, unlogged FROM sign_in_throttle t
    WHERE t.name <> '' AND NOT EXISTS (SELECT 1 FROM users u WHERE u.name = t.name)
    ORDER BY t.last_at DESC, t.window_start DESC, t.name DESC ${NO_LIMIT} OFFSET ?`),
    locked: db.prepare(
      'SELECT u.id AS id, t.locked_until AS until FROM sign_in_throttle t JOIN users u ON u.name = t.name WHERE t.locked_until > ?',
    ),
  }
}

const rowOf = ({ statements: { get } }: ThrottleContext, name: string) => get.get(name) as ThrottleRow | undefined
/** `count` more failures of the name counted, not logged, the last of them at `now`. */
const addUnlogged = ({ statements: { countUnlogged } }: ThrottleContext, count: number, now: number, name: string) =>
  countUnlogged.run(count, now, now, now, name)
const objectOf = ({ statements: { userId } }: ThrottleContext, name: string) => {
  const id = userId.get(name) as number | undefined
  return id === undefined ? 'user:unknown' : `user:${id}`
}

/**
 * An entry for an attempt that did not sign in, within the global budget; beyond it, the
 * `count` failures it stands for go to the global summary.
 */
function recordUnsigned(
  ctx: ThrottleContext,
  now: number,
  actor: string,
  action: AuditAction,
  object: string,
  details: Record<string, unknown>,
  count: number,
): void {
  const {
    audit,
    o,
    statements: { del, insert, reserve },
  } = ctx
  let g = rowOf(ctx, GLOBAL)
  if (g && now >= g.window_start + o.windowMs) {
    del.run(GLOBAL)
    if (g.unlogged > 0) {
      audit.record('system', 'auth.login-failures', 'sign-in', {
        count: g.unlogged,
        from: iso(new Date(g.unlogged_since ?? g.window_start)),
        to: iso(new Date(g.last_at)),
        reason: `more failed sign-ins than the log records one by one (${o.auditBudget} entries per ${o.windowMs / MINUTE_MS} minutes)`,
      })
    }
    g = undefined
  }
  if (!g) {
    insert.run(GLOBAL, now, now)
    g = rowOf(ctx, GLOBAL)!
  }
  if (g.failures < o.auditBudget) {
    reserve.run(g.failures + 1, 0, null, now, GLOBAL)
    audit.record(actor, action, object, details)
  } else {
    addUnlogged(ctx, count, now, GLOBAL)
  }
}

/** The name's counted failures, in one entry (then zero). */
function summarise(ctx: ThrottleContext, row: ThrottleRow, now: number, signedIn: boolean): void {
  if (row.unlogged <= 0) return
  const details = {
    count: row.unlogged,
    from: iso(new Date(row.unlogged_since ?? row.window_start)),
    to: iso(new Date(row.last_at)),
    reason: 'failed or refused sign-ins counted, not logged one by one',
  }
  if (signedIn) ctx.audit.record(row.name, 'auth.login-failures', objectOf(ctx, row.name), details)
  else recordUnsigned(ctx, now, row.name, 'auth.login-failures', objectOf(ctx, row.name), details, row.unlogged)
  ctx.statements.clearUnlogged.run(row.name)
}

const stale = ({ o }: ThrottleContext, r: ThrottleRow, now: number) =>
  r.lockouts === 0 || r.locked_until === null ? now >= r.window_start + o.windowMs : now >= r.locked_until + o.forgetMs

/** Keeps the most recently tried names that are no account; the others' counts go to the global summary. */
function evictUnknown(ctx: ThrottleContext, now: number): void {
  const {
    o,
    statements: { beyondUnknown, del, insert },
  } = ctx
  const gone = beyondUnknown.all(o.maxUnknownNames) as { name: string; unlogged: number }[]
  let unlogged = 0
  for (const r of gone) {
    del.run(r.name)
    unlogged += r.unlogged
  }
  if (unlogged > 0) {
    if (!rowOf(ctx, GLOBAL)) insert.run(GLOBAL, now, now)
    addUnlogged(ctx, unlogged, now, GLOBAL)
  }
}

/** Attempts of a name that may be in flight at once: its failures left before the lockout. */
const placesOf = ({ o }: ThrottleContext, row: ThrottleRow | undefined) =>
  !row ? o.maxFailures : row.lockouts > 0 ? 1 : Math.max(0, o.maxFailures - row.failures)

/** The body of `begin`, inside its transaction: the attempt, or null when the name has no place left in flight. */
function beginAttempt(ctx: ThrottleContext, name: string): Attempt | null {
  const {
    clock,
    slots,
    statements: { del },
  } = ctx
  const now = clock().getTime()
  let row = rowOf(ctx, name)
  if (row && stale(ctx, row, now)) {
    summarise(ctx, row, now, false)
    del.run(name)
    row = undefined
  }
  if (row && row.locked_until !== null && now < row.locked_until) {
    addUnlogged(ctx, 1, now, name)
    return { locked: true, until: row.locked_until }
  }
  if (row && row.locked_until !== null && row.unlogged > 0) {
    // the lockout has ended: what it refused, in one entry
    summarise(ctx, row, now, false)
    row = rowOf(ctx, name)!
  }
  if (slots.inFlight(name) >= placesOf(ctx, row)) return null
  slots.take(name)
  return { locked: false, ticket: { name } }
}

/** The name's row as a failure finds it: forgotten when stale, made when there is none. */
function rowToFail(ctx: ThrottleContext, name: string, now: number): ThrottleRow {
  const {
    statements: { del, insert },
  } = ctx
  let row = rowOf(ctx, name)
  if (row && stale(ctx, row, now)) {
    summarise(ctx, row, now, false)
    del.run(name)
    row = undefined
  }
  if (row) return row
  insert.run(name, now, now)
  // the same work whether or not the name is an account's
  evictUnknown(ctx, now)
  return rowOf(ctx, name)!
}

/** The body of `failed`, inside its transaction: the failure counted, the fifth (or any after a lockout) locking the name. */
function failedAttempt(ctx: ThrottleContext, ticket: Ticket, reason: string): Failure {
  const {
    clock,
    o,
    statements: { reserve },
  } = ctx
  const now = clock().getTime()
  const row = rowToFail(ctx, ticket.name, now)
  const object = objectOf(ctx, row.name)
  if (row.locked_until !== null && now < row.locked_until) {
    // locked meanwhile (by another process's attempts): counted, the lockout left as it is
    addUnlogged(ctx, 1, now, row.name)
    return { first: false, lock: null }
  }
  const failures = row.failures + 1
  const lock = row.lockouts > 0 || failures >= o.maxFailures
  const lockouts = lock ? row.lockouts + 1 : row.lockouts
  const until = lock ? now + o.lockMs(lockouts) : row.locked_until
  reserve.run(failures, lockouts, until, now, row.name)
  if (lock) {
    const details = {
      reason,
      until: iso(new Date(until!)),
      minutes: o.lockMs(lockouts) / MINUTE_MS,
      lockout: lockouts,
      failures,
    }
    recordUnsigned(ctx, now, row.name, 'auth.locked', object, details, 1)
    return { first: false, lock: { until: until!, lockout: lockouts } }
  }
  const first = failures === 1 && row.lockouts === 0
  if (first) recordUnsigned(ctx, now, row.name, 'auth.login-failed', object, { reason }, 1)
  else addUnlogged(ctx, 1, now, row.name)
  return { first, lock: null }
}

/** The body of `succeeded`, inside its transaction. */
function succeededAttempt(ctx: ThrottleContext, name: string): void {
  const row = rowOf(ctx, name)
  if (!row) return
  summarise(ctx, row, ctx.clock().getTime(), true)
  ctx.statements.del.run(name)
}

/** The body of `unlock`, inside its transaction. */
function unlockName(ctx: ThrottleContext, actor: string, account: { id: number; name: string }): boolean {
  const row = rowOf(ctx, account.name)
  if (!row) return false
  const now = ctx.clock().getTime()
  const lockedUntil = row.locked_until !== null && row.locked_until > now ? iso(new Date(row.locked_until)) : null
  ctx.audit.record(actor, 'user.unlock', `user:${account.id}`, {
    name: account.name,
    lockedUntil,
    lockouts: row.lockouts,
    failures: row.failures,
    unlogged: row.unlogged,
  })
  ctx.statements.del.run(row.name)
  return true
}

/** Too many attempts of one name at once: refused, not counted. */
export function signInBusy(): AppError {
  return new AppError(
    'CONFLICT',
    'too many sign-ins with this name are being checked at once: try again in a few seconds',
    because('SIGN_IN_BUSY'),
  )
}

/** `begin`, waiting for a place in flight while the name has none, until `waitMs` has passed. */
async function enterAttempt(
  slots: SignInSlots,
  begin: (name: string) => Attempt | null,
  name: string,
): Promise<Attempt> {
  const until = performance.now() + slots.waitMs
  for (;;) {
    const attempt = begin(name)
    if (attempt) return attempt
    try {
      await slots.wait(name, until)
    } catch (e) {
      if (e instanceof SlotBusy) throw signInBusy()
      throw e
    }
  }
}

export function createSignInThrottle({
  db,
  clock,
  audit,
  options = {},
}: {
  db: Db
  clock: Clock
  audit: AuditService
  options?: ThrottleOptions
}): SignInThrottle {
  const o = { ...THROTTLE_DEFAULTS, ...options }
  const slots = new SignInSlots({ ...SLOT_DEFAULTS, ...o.slots })
  const ctx: ThrottleContext = { db, clock, audit, o, slots, statements: prepareThrottleStatements(db) }
  // each made once; IMMEDIATE at each call
  // the counts (a name's, and the log's budget across names) are read then written: on a team
  // ledger the throttle's transactions take turns (row-locks.ts)
  const turn = () => lockSubject(db, 'sign-in throttle')
  const begin = db.transaction((name: string) => (turn(), beginAttempt(ctx, name)))
  const failed = db.transaction((ticket: Ticket, reason: string) => (turn(), failedAttempt(ctx, ticket, reason)))
  const succeeded = db.transaction((name: string) => (turn(), succeededAttempt(ctx, name)))
  const unlock = db.transaction(
    (actor: string, account: { id: number; name: string }) => (turn(), unlockName(ctx, actor, account)),
  )
  const tryBegin = (name: string) => begin.immediate(name)
  // an attempt leaves its place in flight whatever its outcome's transaction does
  const ended = <T>(name: string, fn: () => T): T => {
    try {
      return fn()
    } finally {
      slots.release(name)
    }
  }
  return {
    begin: (name) =>
      tryBegin(name) ??
      (() => {
        throw signInBusy()
      })(),
    enter: (name) => enterAttempt(slots, tryBegin, name),
    failed: (ticket, reason) => ended(ticket.name, () => failed.immediate(ticket, reason)),
    succeeded: (name) => ended(name, () => succeeded.immediate(name)),
    unlock: (actor, account) => unlock.immediate(actor, account),
    lockedAccounts: () =>
      new Map(
        (ctx.statements.locked.all(clock().getTime()) as { id: number; until: number }[]).map((r) => [r.id, r.until]),
      ),
    row: (name) => rowOf(ctx, name),
  }
}
