/**
 * Staff accounts and sessions. Passwords are stored as scrypt hashes with a random salt
 * (passwords.ts); a sign-in waits for its hash on libuv's thread pool, never on the event loop.
 * Failed sign-ins are throttled per name typed (sign-in-throttle.ts). A login returns a random
 * token; sessions live in memory and end after 8 hours without use, or 12 hours after the
 * sign-in whatever the use.
 */
import { randomBytes } from 'node:crypto'
import { AppError, because } from '../contract/errors'
import type { Role } from '../contract/define'
import type { Caller } from '../contract/dispatch'
import type { Session, UserAccount, UserInfo } from '../contract/types'
import type { Db } from '../ledger/db'
import type { AuditService } from './audit'
import { type Actor, type Clock, iso } from './common'
import { hashPassword, hashPasswordSync, newSalt, passwordMatches } from './passwords'
import { createSignInThrottle, type SignInThrottle, type ThrottleOptions } from './sign-in-throttle'

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
}

/**
 * Names are compared without case ("Sophie" is taken by "sophie"), so the refusal names the account
 * that holds the name as it is spelled, and says what to do.
 */
function nameTaken(name: string, existing: string): AppError {
  const whose = existing === name ? '' : ` (by "${existing}": names ignore case)`
  return new AppError('CONFLICT', `the name "${name}" is already taken${whose}: choose another name`, {
    field: 'name',
    ...because('USER_NAME_TAKEN', { name, existing }),
  })
}

const toInfo = (r: UserRow): UserInfo => ({ id: r.id, name: r.name, role: r.role, active: r.active === 1, createdAt: r.created_at, lastLoginAt: r.last_login_at })

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
  list(): UserAccount[]
  create(actor: Actor, input: { name: string; role: Role; password: string }): UserAccount
  update(actor: Actor, input: { userId: number; role?: Role; active?: boolean; password?: string }): Promise<UserAccount>
  /** Lifts the account's sign-in lockout and forgets its failures (audited when there was any). */
  unlock(actor: Actor, userId: number): UserAccount
  readonly throttle: SignInThrottle
}

export function createUsersService({
  db,
  clock,
  audit,
  idleMs = SESSION_IDLE_MS,
  maxMs = SESSION_MAX_MS,
  throttle: throttleOptions,
}: {
  db: Db
  clock: Clock
  audit: AuditService
  idleMs?: number
  maxMs?: number
  throttle?: ThrottleOptions
}): UsersService {
  const sessions = new Map<string, { userId: number; expiresAt: number; endsAt: number }>()
  const throttle = createSignInThrottle({ db, clock, audit, options: throttleOptions })
  const byName = db.prepare('SELECT * FROM users WHERE name = ?')
  const byId = db.prepare('SELECT * FROM users WHERE id = ?')
  const count = db.prepare('SELECT count(*) AS n FROM users')
  const insert = db.prepare('INSERT INTO users (name, role, password_hash, password_salt, active, created_at) VALUES (?, ?, ?, ?, 1, ?) RETURNING id').pluck()
  const activeAdmins = db.prepare("SELECT count(*) AS n FROM users WHERE role = 'admin' AND active = 1")
  const setLastLogin = db.prepare('UPDATE users SET last_login_at = ? WHERE id = ?')
  const setPassword = db.prepare('UPDATE users SET password_hash = ?, password_salt = ? WHERE id = ?')
  // A login for an unknown name still pays for one scrypt, so timing does not reveal which names exist.
  // Made at the first login, not when the backend opens (one scrypt, about 0.1 s).
  const dummySalt = newSalt()
  let dummy: Promise<Buffer> | null = null
  const dummyHash = () => (dummy ??= hashPassword('not a password', dummySalt))

  function toAccount(r: UserRow, locked = throttle.lockedAccounts()): UserAccount {
    const until = locked.get(r.id)
    return { ...toInfo(r), lockedUntil: until === undefined ? null : iso(new Date(until)) }
  }

  function newSession(user: UserRow): Session {
    const token = randomBytes(32).toString('base64url')
    const now = clock().getTime()
    sessions.set(token, { userId: user.id, expiresAt: now + idleMs, endsAt: now + maxMs })
    return { token, user: toInfo(user) }
  }

  function insertUser(name: string, role: Role, password: string): UserRow {
    const holder = byName.get(name) as UserRow | undefined
    if (holder) throw nameTaken(name, holder.name)
    const salt = newSalt()
    const id = insert.get(name, role, hashPasswordSync(password, salt), salt, iso(clock())) as number
    return byId.get(id) as UserRow
  }

  function endSessionsOf(userId: number, except?: string): void {
    for (const [t, s] of sessions) if (s.userId === userId && t !== except) sessions.delete(t)
  }

  function lockedError(until: number): AppError {
    const at = iso(new Date(until))
    return new AppError('BAD_CREDENTIALS', `too many failed sign-ins with this name: try again after ${at}`, because('SIGN_IN_LOCKED', { until: at }))
  }

  function userById(userId: number): UserRow {
    const row = byId.get(userId) as UserRow | undefined
    if (!row) throw new AppError('NOT_FOUND', `no user with id ${userId}`, { field: 'userId', ...because('USER_NOT_FOUND', { userId }) })
    return row
  }

  const service: UsersService = {
    throttle,

    needsSetup: () => (count.get() as { n: number }).n === 0,

    setup(name, password) {
      const user = db.transaction(() => {
        if (!service.needsSetup()) throw new AppError('CONFLICT', 'the administrator account already exists: sign in instead', because('ADMIN_EXISTS'))
        const u = insertUser(name, 'admin', password)
        audit.record(name, 'auth.setup', `user:${u.id}`, { name, role: 'admin' })
        return u
      }).immediate()
      return newSession(user)
    },

    async login(name, password) {
      if (service.needsSetup()) throw new AppError('SETUP_REQUIRED', 'no account exists yet: create the administrator account first', because('SETUP_FIRST'))
      // A locked name is refused before its password is looked at, whether or not it is an account's.
      const attempt = throttle.begin(name)
      if (attempt.locked) throw lockedError(attempt.until)
      // made before looking at the name, so the first login costs the same whoever asks
      const dummyExpected = await dummyHash()
      const row = byName.get(name) as UserRow | undefined
      const matches = await passwordMatches(password, row ? row.password_salt : dummySalt, row ? row.password_hash : dummyExpected)
      const ok = matches && row !== undefined
      if (!ok || row.active !== 1) {
        throttle.failed(attempt.ticket, !ok ? 'wrong name or password' : 'account deactivated')
        if (ok) throw new AppError('BAD_CREDENTIALS', 'this account is deactivated: ask an administrator', because('ACCOUNT_DEACTIVATED'))
        throw new AppError('BAD_CREDENTIALS', 'wrong name or password', because('WRONG_CREDENTIALS'))
      }
      const signedIn = db.transaction(() => {
        throttle.succeeded(name)
        setLastLogin.run(iso(clock()), row.id)
        audit.record(row.name, 'auth.login', `user:${row.id}`)
        return byId.get(row.id) as UserRow
      }).immediate()
      return newSession(signedIn)
    },

    logout(token) {
      const s = sessions.get(token)
      if (!s) return
      sessions.delete(token)
      const row = byId.get(s.userId) as UserRow | undefined
      if (row) audit.record(row.name, 'auth.logout', `user:${row.id}`)
    },

    async changePassword(token, oldPassword, newPassword) {
      const user = service.userOf(token)
      if (!user) throw new AppError('NOT_SIGNED_IN', 'your session has ended: sign in again', because('SESSION_ENDED'))
      if (oldPassword === newPassword) {
        throw new AppError('BAD_ARGUMENTS', 'newPassword: the new password is the current one: choose another', { field: 'newPassword', ...because('PASSWORD_UNCHANGED') })
      }
      const row = userById(user.id)
      // The current password is guessed no faster here than at sign-in: same throttle, same name.
      const attempt = throttle.begin(row.name)
      if (attempt.locked) throw lockedError(attempt.until)
      if (!(await passwordMatches(oldPassword, row.password_salt, row.password_hash))) {
        throttle.failed(attempt.ticket, 'wrong current password at a password change')
        throw new AppError('BAD_CREDENTIALS', 'the current password is wrong', { field: 'oldPassword', ...because('CURRENT_PASSWORD_WRONG') })
      }
      const salt = newSalt()
      const hash = await hashPassword(newPassword, salt)
      db.transaction(() => {
        throttle.succeeded(row.name)
        setPassword.run(hash, salt, row.id)
        audit.record(row.name, 'auth.password-change', `user:${row.id}`, { name: row.name })
      }).immediate()
      // the other sessions of the account end; this one goes on
      endSessionsOf(row.id, token)
      return { ok: true as const }
    },

    resolve(token) {
      const user = service.userOf(token)
      return user && token ? { userId: user.id, name: user.name, role: user.role, token } : null
    },

    userOf(token) {
      if (!token) return null
      const s = sessions.get(token)
      if (!s) return null
      const now = clock().getTime()
      if (now >= s.expiresAt || now >= s.endsAt) {
        sessions.delete(token)
        return null
      }
      const row = byId.get(s.userId) as UserRow | undefined
      if (!row || row.active !== 1) {
        sessions.delete(token)
        return null
      }
      s.expiresAt = now + idleMs
      return toInfo(row)
    },

    list() {
      const locked = throttle.lockedAccounts()
      return (db.prepare('SELECT * FROM users ORDER BY name').all() as UserRow[]).map((r) => toAccount(r, locked))
    },

    create(actor, { name, role, password }) {
      return db.transaction(() => {
        const u = insertUser(name, role, password)
        audit.record(actor.name, 'user.create', `user:${u.id}`, { name, role })
        return toAccount(u)
      }).immediate()
    },

    async update(actor, { userId, role, active, password }) {
      // the new password's hash first, off the event loop; then the change in one transaction
      const salt = password !== undefined ? newSalt() : null
      const hash = password !== undefined ? await hashPassword(password, salt!) : null
      const updated = db.transaction(() => {
        const row = userById(userId)
        const losesAdmin = row.role === 'admin' && row.active === 1 && ((role !== undefined && role !== 'admin') || active === false)
        if (losesAdmin && (activeAdmins.get() as { n: number }).n <= 1) {
          throw new AppError('ILLEGAL_STATE', `${row.name} is the last active administrator: make another user an administrator first`, because('LAST_ADMIN', { name: row.name }))
        }
        const changes: Record<string, unknown> = {}
        if (role !== undefined && role !== row.role) {
          db.prepare('UPDATE users SET role = ? WHERE id = ?').run(role, userId)
          changes.role = { from: row.role, to: role }
        }
        if (active !== undefined && active !== (row.active === 1)) {
          db.prepare('UPDATE users SET active = ? WHERE id = ?').run(active ? 1 : 0, userId)
          changes.active = active
        }
        if (hash && salt) {
          setPassword.run(hash, salt, userId)
          changes.password = 'changed'
        }
        audit.record(actor.name, 'user.update', `user:${userId}`, { name: row.name, ...changes })
        return byId.get(userId) as UserRow
      }).immediate()
      // A deactivated user or a new password ends the user's sessions; a new role applies at the next call.
      if (active === false || password !== undefined) endSessionsOf(userId)
      return toAccount(updated)
    },

    unlock(actor, userId) {
      const row = userById(userId)
      throttle.unlock(actor.name, { id: row.id, name: row.name })
      return toAccount(row)
    },
  }
  return service
}
