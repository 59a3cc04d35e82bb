/**
 * Staff accounts and sessions. Passwords are stored as scrypt hashes with a random salt
 * (passwords.ts); a sign-in waits for its hash on libuv's thread pool, never on the event loop.
 * Failed sign-ins are throttled per name typed (sign-in-throttle.ts). A login returns a random
 * token; sessions live in memory and end after 8 hours without use, or 12 hours after the
 * sign-in whatever the use.
 */
import { randomBytes } from 'node:crypto'
import { AppError, because } from '../../contract/errors'
import type { Role } from '../../contract/define'
import type { Caller } from '../../contract/dispatch'
import type { Session, UserAccount, UserInfo } from '../../contract/types'
import type { Db } from '../../ledger/db'
import { lockSubject } from '../../ledger/row-locks'
import type { AuditService } from '../audit'
import { type Actor, type Clock, iso } from '../common'
import { hashPassword, hashPasswordSync, newSalt, passwordMatches } from './passwords'
import { ACCOUNTS, confirmAccount, isConfirmed, isPrivileged } from './confirmation'
import { samePerson, skeleton } from '../people'
import { createSignInThrottle, type SignInThrottle } from './sign-in-throttle'
import type { SessionEntry, UsersOptions } from './context'

export const SESSION_IDLE_MS = 8 * 60 * 60 * 1000
export const SESSION_MAX_MS = 12 * 60 * 60 * 1000

interface UserRow {
  id: number
  name: string
  role: Role
  password_hash: Buffer
  password_salt: Buffer
  active: number
  created_at: string
  last_login_at: string | null
  skeleton: string | null
  granted_by: string | null
  confirmed_by: string | null
  confirmed_at: string | null
}

/**
 * Names are compared without case ("Sophie" is taken by "sophie"), so the refusal names the account
 * that holds the name as it is spelled, and says what to do.
 */
function nameTaken(name: string, existing: string): AppError {
  if (existing.toLowerCase() !== name.toLowerCase()) {
    return new AppError(
      'CONFLICT',
      `the name "${name}" looks like the account "${existing}" (the same letters to the eye): choose a name nobody could take for another`,
      {
        field: 'name',
        ...because('USER_NAME_LOOKALIKE', { name, existing }),
      },
    )
  }
  const whose = existing === name ? '' : ` (by "${existing}": names ignore case)`
  return new AppError('CONFLICT', `the name "${name}" is already taken${whose}: choose another name`, {
    field: 'name',
    ...because('USER_NAME_TAKEN', { name, existing }),
  })
}

const toInfo = (r: UserRow): UserInfo => ({
  id: r.id,
  name: r.name,
  role: r.role,
  active: r.active === 1,
  createdAt: r.created_at,
  lastLoginAt: r.last_login_at,
})

export interface UsersService {
  needsSetup(): boolean
  /** The first admin account; refused once any user exists. */
  setup(name: string, password: string): Session
  /** Refused while the name is locked (SIGN_IN_LOCKED), saying until when, whatever the password. */
  login(name: string, password: string): Promise<Session>
  logout(token: string): void
  /** The signed-in caller's own password, the current one required; the caller's other sessions end. */
  changePassword(token: string, oldPassword: string, newPassword: string): Promise<{ ok: true }>
  /** The signed-in caller of a token, or null when it is unknown, expired or the user was deactivated. */
  resolve(token: string | null): Caller | null
  userOf(token: string | null): UserInfo | null
  /**
   * `resolve` in two halves, for a call answered on another thread: the user of a live session
   * from memory (the host's), then the caller as the ledger holds the account (the thread's), or
   * null, after which the host ends the session (`endSession`).
   */
  sessionUserId(token: string | null): number | null
  callerFor(userId: number, token: string): Caller | null
  /** Ends a session; false when there was none. */
  endSession(token: string): boolean
  /**
   * The role of a live session's active account, one statement: the browser host's check before
   * it reads a body. Not the account's record, which the call itself checks (resolve, callerFor).
   */
  sessionRole(token: string | null): { role: Role } | null
  /**
   * The account and role of a live session, as sessionRole, without counting as activity: a
   * screen's stream of changes (host/host-events.ts) must not keep an idle session alive.
   */
  sessionPeek(token: string | null): { userId: number; role: Role } | null
  /** A thread holds the host's session for the one call it answers (a sign-out ends it there). */
  lendSession(userId: number, token: string): void
  list(): UserAccount[]
  create(actor: Actor, input: { name: string; role: Role; password: string }): UserAccount
  update(
    actor: Actor,
    input: { userId: number; role?: Role; active?: boolean; password?: string },
  ): Promise<UserAccount>
  /** Lifts the account's sign-in lockout and forgets its failures (audited when there was any). */
  unlock(actor: Actor, userId: number): UserAccount
  /** A second person confirms a privileged account (confirmation.ts). */
  confirm(actor: Actor, userId: number): UserAccount
  readonly throttle: SignInThrottle
}

/** What the users' functions share: the ledger, the sessions in memory, the statements prepared once. */
interface UsersContext {
  db: Db
  clock: Clock
  audit: AuditService
  idleMs: number
  maxMs: number
  throttle: SignInThrottle
  sessions: Map<string, SessionEntry>
  statements: ReturnType<typeof prepareUserStatements>
  /** The hash an unknown name's login is checked against. */
  dummy: { salt: Buffer; hash: () => Promise<Buffer> }
}

function prepareUserStatements(db: Db) {
  return {
    byName: db.prepare('SELECT * FROM users WHERE name = ?'),
    bySkeleton: db.prepare('SELECT * FROM users WHERE skeleton = ?'),
    byId: db.prepare('SELECT * FROM users WHERE id = ?'),
    count: db.prepare('SELECT count(*) AS n FROM users'),
    insert: db
      .prepare(
        `INSERT INTO users (name, role, password_hash, password_salt, active, created_at, skeleton, granted_by, confirmed_by, confirmed_at)
      VALUES (?, ?, ?, ?, 1, ?, ?, ?, ?, ?) RETURNING id`,
      )
      .pluck(),
    activeAdmins: db.prepare("SELECT count(*) AS n FROM users WHERE role = 'admin' AND active = 1"),
    setLastLogin: db.prepare('UPDATE users SET last_login_at = ? WHERE id = ?'),
    setPassword: db.prepare('UPDATE users SET password_hash = ?, password_salt = ? WHERE id = ?'),
  }
}

function buildContext({
  db,
  clock,
  audit,
  idleMs = SESSION_IDLE_MS,
  maxMs = SESSION_MAX_MS,
  throttle: throttleOptions,
}: UsersOptions): UsersContext {
  const throttle = createSignInThrottle({ db, clock, audit, options: throttleOptions })
  // A login for an unknown name still pays for one scrypt, so timing does not reveal which names exist.
  // Made at the first login, not when the backend opens (one scrypt, about 0.1 s).
  const dummySalt = newSalt()
  let dummy: Promise<Buffer> | null = null
  const dummyHash = () => (dummy ??= hashPassword('not a password', dummySalt))
  return {
    db,
    clock,
    audit,
    idleMs,
    maxMs,
    throttle,
    sessions: new Map(),
    statements: prepareUserStatements(db),
    dummy: { salt: dummySalt, hash: dummyHash },
  }
}

function toAccount({ throttle, audit }: UsersContext, r: UserRow, locked = throttle.lockedAccounts()): UserAccount {
  const until = locked.get(r.id)
  const confirmation = {
    grantedBy: r.granted_by,
    confirmedBy: r.confirmed_by,
    confirmedAt: r.confirmed_at,
    awaitingConfirmation: !isConfirmed(r),
  }
  return {
    ...toInfo(r),
    lockedUntil: until === undefined ? null : iso(new Date(until)),
    ...confirmation,
    recordProblem: audit.accountProblem(r.id),
  }
}

function newSession(ctx: UsersContext, user: UserRow): Session {
  const token = randomBytes(32).toString('base64url')
  newSessionEntry(ctx, user.id, token)
  return { token, user: toInfo(user) }
}

function newSessionEntry({ clock, sessions, idleMs, maxMs }: UsersContext, userId: number, token: string): void {
  const now = clock().getTime()
  sessions.set(token, { userId, expiresAt: now + idleMs, endsAt: now + maxMs })
}

/**
 * The first auditor of a ledger is the second person of the house: while no active auditor is
 * confirmed, an auditor account is confirmed by the system (the installation is witnessed, and
 * the audit entry says so). Every later privileged account waits for a second person.
 */
function isFirstAuditor({ db }: UsersContext, role: Role): boolean {
  return (
    role === 'auditor' &&
    (db
      .prepare("SELECT count(*) FROM users WHERE role = 'auditor' AND active = 1 AND confirmed_by IS NOT NULL")
      .pluck()
      .get() as number) === 0
  )
}

/**
 * A new account, unique by its skeleton (people.ts): "аdmin" with a Cyrillic а, or "admin\u200b",
 * is refused beside "admin", deactivated or not. `grantedBy` null: the first administrator, confirmed by the system.
 */
function insertUser(ctx: UsersContext, name: string, role: Role, password: string, grantedBy: string | null): UserRow {
  const {
    clock,
    statements: { byName, bySkeleton, byId, insert },
  } = ctx
  const holder = (byName.get(name) ?? bySkeleton.get(skeleton(name))) as UserRow | undefined
  if (holder) throw nameTaken(name, holder.name)
  const salt = newSalt()
  const now = iso(clock())
  const confirmed = grantedBy === null || isFirstAuditor(ctx, role) ? ['', now] : [null, null]
  const id = insert.get(
    name,
    role,
    hashPasswordSync(password, salt),
    salt,
    now,
    skeleton(name),
    grantedBy,
    ...confirmed,
  ) as number
  return byId.get(id) as UserRow
}

function endSessionsOf({ sessions }: UsersContext, userId: number, except?: string): void {
  for (const [t, s] of sessions) if (s.userId === userId && t !== except) sessions.delete(t)
}

function unsoundAccount(name: string, problem: string): AppError {
  return new AppError(
    'BAD_CREDENTIALS',
    `the account ${name} cannot sign in: ${problem}. An administrator and an auditor look at it (carats ledger check)`,
    because('ACCOUNT_NOT_SOUND', { name }),
  )
}

function lockedError(until: number): AppError {
  const at = iso(new Date(until))
  return new AppError(
    'BAD_CREDENTIALS',
    `too many failed sign-ins with this name: try again after ${at}`,
    because('SIGN_IN_LOCKED', { until: at }),
  )
}

function userById({ statements: { byId } }: UsersContext, userId: number): UserRow {
  const row = byId.get(userId) as UserRow | undefined
  if (!row)
    throw new AppError('NOT_FOUND', `no user with id ${userId}`, {
      field: 'userId',
      ...because('USER_NOT_FOUND', { userId }),
    })
  return row
}

const needsSetup = ({ statements: { count } }: UsersContext) => (count.get() as { n: number }).n === 0

function setup(ctx: UsersContext, name: string, password: string): Session {
  const { db, audit } = ctx
  const user = db
    .transaction(() => {
      lockSubject(db, ACCOUNTS)
      if (!needsSetup(ctx))
        throw new AppError(
          'CONFLICT',
          'the administrator account already exists: sign in instead',
          because('ADMIN_EXISTS'),
        )
      const u = insertUser(ctx, name, 'admin', password, null)
      audit.record(name, 'auth.setup', `user:${u.id}`, { name, role: 'admin' })
      return u
    })
    .immediate()
  return newSession(ctx, user)
}

async function login(ctx: UsersContext, name: string, password: string): Promise<Session> {
  const {
    db,
    clock,
    audit,
    throttle,
    dummy,
    statements: { byName, byId, setLastLogin },
  } = ctx
  if (needsSetup(ctx))
    throw new AppError(
      'SETUP_REQUIRED',
      'no account exists yet: create the administrator account first',
      because('SETUP_FIRST'),
    )
  // A locked name is refused before its password is looked at, whether or not it is an account's.
  const attempt = await throttle.enter(name)
  if (attempt.locked) throw lockedError(attempt.until)
  // made before looking at the name, so the first login costs the same whoever asks
  const dummyExpected = await dummy.hash()
  const row = byName.get(name) as UserRow | undefined
  const matches = await passwordMatches(
    password,
    row ? row.password_salt : dummy.salt,
    row ? row.password_hash : dummyExpected,
  )
  const ok = matches && row !== undefined
  const unsound = ok && row.active === 1 ? audit.accountProblem(row.id) : null
  if (ok && unsound) {
    throttle.failed(attempt.ticket, 'account record not sound')
    throw unsoundAccount(row.name, unsound)
  }
  if (!ok || row.active !== 1) {
    throttle.failed(attempt.ticket, !ok ? 'wrong name or password' : 'account deactivated')
    if (ok)
      throw new AppError(
        'BAD_CREDENTIALS',
        'this account is deactivated: ask an administrator',
        because('ACCOUNT_DEACTIVATED'),
      )
    throw new AppError('BAD_CREDENTIALS', 'wrong name or password', because('WRONG_CREDENTIALS'))
  }
  const signedIn = db
    .transaction(() => {
      throttle.succeeded(name)
      setLastLogin.run(iso(clock()), row.id)
      audit.record(row.name, 'auth.login', `user:${row.id}`)
      return byId.get(row.id) as UserRow
    })
    .immediate()
  return newSession(ctx, signedIn)
}

function logout({ sessions, audit, statements: { byId } }: UsersContext, token: string): void {
  const s = sessions.get(token)
  if (!s) return
  sessions.delete(token)
  const row = byId.get(s.userId) as UserRow | undefined
  if (row) audit.record(row.name, 'auth.logout', `user:${row.id}`)
}

async function changePassword(
  ctx: UsersContext,
  token: string,
  oldPassword: string,
  newPassword: string,
): Promise<{ ok: true }> {
  const {
    db,
    audit,
    throttle,
    statements: { setPassword },
  } = ctx
  const user = userOf(ctx, token)
  if (!user) throw new AppError('NOT_SIGNED_IN', 'your session has ended: sign in again', because('SESSION_ENDED'))
  if (oldPassword === newPassword) {
    throw new AppError('BAD_ARGUMENTS', 'newPassword: the new password is the current one: choose another', {
      field: 'newPassword',
      ...because('PASSWORD_UNCHANGED'),
    })
  }
  const row = userById(ctx, user.id)
  // The current password is guessed no faster here than at sign-in: same throttle, same name.
  const attempt = await throttle.enter(row.name)
  if (attempt.locked) throw lockedError(attempt.until)
  if (!(await passwordMatches(oldPassword, row.password_salt, row.password_hash))) {
    throttle.failed(attempt.ticket, 'wrong current password at a password change')
    throw new AppError('BAD_CREDENTIALS', 'the current password is wrong', {
      field: 'oldPassword',
      ...because('CURRENT_PASSWORD_WRONG'),
    })
  }
  const salt = newSalt()
  const hash = await hashPassword(newPassword, salt)
  db.transaction(() => {
    throttle.succeeded(row.name)
    setPassword.run(hash, salt, row.id)
    audit.record(row.name, 'auth.password-change', `user:${row.id}`, { name: row.name })
  }).immediate()
  // the other sessions of the account end; this one goes on
  endSessionsOf(ctx, row.id, token)
  return { ok: true as const }
}

const callerOf = (user: UserInfo | null, token: string | null): Caller | null =>
  user && token ? { userId: user.id, name: user.name, role: user.role, token } : null

const resolve = (ctx: UsersContext, token: string | null): Caller | null => callerOf(userOf(ctx, token), token)

/**
 * The user of a live session, from the host's memory alone (its idle and absolute limits), or
 * null. Whether the account is still sound is the ledger's to say (`soundUser`).
 */
function sessionUserId({ clock, sessions, idleMs }: UsersContext, token: string | null): number | null {
  if (!token) return null
  const s = sessions.get(token)
  if (!s) return null
  const now = clock().getTime()
  if (now >= s.expiresAt || now >= s.endsAt) {
    sessions.delete(token)
    return null
  }
  s.expiresAt = now + idleMs
  return s.userId
}

/** The account as the ledger holds it, or null when it is gone, deactivated or changed outside the app. */
function soundUser({ audit, statements: { byId } }: UsersContext, userId: number): UserInfo | null {
  const row = byId.get(userId) as UserRow | undefined
  // an account changed outside the app (its role raised with the database) loses its sessions
  if (!row || row.active !== 1 || audit.accountProblem(row.id) !== null) return null
  return toInfo(row)
}

/** A live session's account and role, its idle limit left as it was (sessionPeek). */
function sessionPeek(ctx: UsersContext, token: string | null): { userId: number; role: Role } | null {
  const s = token ? ctx.sessions.get(token) : undefined
  if (!s) return null
  const now = ctx.clock().getTime()
  if (now >= s.expiresAt || now >= s.endsAt) return null
  const row = ctx.statements.byId.get(s.userId) as UserRow | undefined
  return row && row.active === 1 ? { userId: s.userId, role: row.role } : null
}

function sessionRole(ctx: UsersContext, token: string | null): { role: Role } | null {
  const userId = sessionUserId(ctx, token)
  if (userId === null) return null
  const row = ctx.statements.byId.get(userId) as UserRow | undefined
  if (row && row.active === 1) return { role: row.role }
  ctx.sessions.delete(token!)
  return null
}

function userOf(ctx: UsersContext, token: string | null): UserInfo | null {
  const userId = sessionUserId(ctx, token)
  if (userId === null) return null
  const user = soundUser(ctx, userId)
  if (user === null) ctx.sessions.delete(token!)
  return user
}

function listAccounts(ctx: UsersContext): UserAccount[] {
  const locked = ctx.throttle.lockedAccounts()
  return (ctx.db.prepare('SELECT * FROM users ORDER BY name').all() as UserRow[]).map((r) => toAccount(ctx, r, locked))
}

function createAccount(
  ctx: UsersContext,
  actor: Actor,
  { name, role, password }: { name: string; role: Role; password: string },
): UserAccount {
  return ctx.db
    .transaction(() => {
      lockSubject(ctx.db, ACCOUNTS)
      const u = insertUser(ctx, name, role, password, actor.name)
      const confirmation = !isPrivileged(role)
        ? {}
        : { confirmation: u.confirmed_by === '' ? 'the first auditor: by the system' : 'awaited' }
      ctx.audit.record(actor.name, 'user.create', `user:${u.id}`, { name, role, ...confirmation })
      return toAccount(ctx, u)
    })
    .immediate()
}

type AccountUpdate = Parameters<UsersService['update']>[1]

async function updateAccount(ctx: UsersContext, actor: Actor, input: AccountUpdate): Promise<UserAccount> {
  const { userId, active, password } = input
  // the new password's hash first, off the event loop; then the change in one transaction
  const salt = password !== undefined ? newSalt() : null
  const hash = password !== undefined ? await hashPassword(password, salt!) : null
  const updated = ctx.db
    .transaction(() => applyUpdate(ctx, actor, input, salt && hash ? { salt, hash } : null))
    .immediate()
  // A deactivated user or a new password ends the user's sessions; a new role applies at the next call.
  if (active === false || password !== undefined) endSessionsOf(ctx, userId)
  return toAccount(ctx, updated)
}

/** The update's changes and their audit entry (inside the caller's transaction); the last active administrator stays one. */
function applyUpdate(
  ctx: UsersContext,
  actor: Actor,
  { userId, role, active }: AccountUpdate,
  newPassword: { salt: Buffer; hash: Buffer } | null,
): UserRow {
  const {
    db,
    audit,
    statements: { activeAdmins, setPassword, byId },
  } = ctx
  lockSubject(db, ACCOUNTS)
  const row = userById(ctx, userId)
  const losesAdmin =
    row.role === 'admin' && row.active === 1 && ((role !== undefined && role !== 'admin') || active === false)
  if (losesAdmin && (activeAdmins.get() as { n: number }).n <= 1) {
    throw new AppError(
      'ILLEGAL_STATE',
      `${row.name} is the last active administrator: make another user an administrator first`,
      because('LAST_ADMIN', { name: row.name }),
    )
  }
  const changes: Record<string, unknown> = {}
  if (role !== undefined && role !== row.role) {
    db.prepare('UPDATE users SET role = ? WHERE id = ?').run(role, userId)
    changes.role = { from: row.role, to: role }
  }
  // raised to a privileged role, or given a password by someone else: a second person confirms it again
  if (
    (role !== undefined && role !== row.role && isPrivileged(role)) ||
    (newPassword && !samePerson(actor.name, row.name))
  ) {
    const first = isFirstAuditor(ctx, role ?? row.role)
    db.prepare('UPDATE users SET granted_by = ?, confirmed_by = ?, confirmed_at = ? WHERE id = ?').run(
      actor.name,
      first ? '' : null,
      first ? iso(ctx.clock()) : null,
      userId,
    )
    if (isPrivileged(role ?? row.role)) changes.confirmation = first ? 'the first auditor: by the system' : 'awaited'
  }
  if (active !== undefined && active !== (row.active === 1)) {
    db.prepare('UPDATE users SET active = ? WHERE id = ?').run(active ? 1 : 0, userId)
    changes.active = active
  }
  if (newPassword) {
    setPassword.run(newPassword.hash, newPassword.salt, userId)
    changes.password = 'changed'
  }
  audit.record(actor.name, 'user.update', `user:${userId}`, { name: row.name, ...changes })
  return byId.get(userId) as UserRow
}

function unlockAccount(ctx: UsersContext, actor: Actor, userId: number): UserAccount {
  const row = userById(ctx, userId)
  ctx.throttle.unlock(actor.name, { id: row.id, name: row.name })
  return toAccount(ctx, row)
}

export function createUsersService(options: UsersOptions): UsersService {
  const ctx = buildContext(options)
  return {
    throttle: ctx.throttle,
    needsSetup: () => needsSetup(ctx),
    setup: (name, password) => setup(ctx, name, password),
    login: (name, password) => login(ctx, name, password),
    logout: (token) => logout(ctx, token),
    changePassword: (token, oldPassword, newPassword) => changePassword(ctx, token, oldPassword, newPassword),
    resolve: (token) => resolve(ctx, token),
    userOf: (token) => userOf(ctx, token),
    sessionUserId: (token) => sessionUserId(ctx, token),
    callerFor: (userId, token) => callerOf(soundUser(ctx, userId), token),
    endSession: (token) => ctx.sessions.delete(token),
    sessionRole: (token) => sessionRole(ctx, token),
    sessionPeek: (token) => sessionPeek(ctx, token),
    lendSession: (userId, token) => void newSessionEntry(ctx, userId, token),
    list: () => listAccounts(ctx),
    create: (actor, input) => createAccount(ctx, actor, input),
    update: (actor, input) => updateAccount(ctx, actor, input),
    unlock: (actor, userId) => unlockAccount(ctx, actor, userId),
    confirm: (actor, userId) => {
      confirmAccount(ctx, actor, userId)
      return toAccount(ctx, userById(ctx, userId))
    },
  }
}
