/**
 * Staff accounts and sessions. Passwords are stored as scrypt hashes with a random salt; a login
 * returns a random token; sessions live in memory and expire after a period without use.
 */
import { randomBytes, scryptSync, timingSafeEqual } from 'node:crypto'
import { AppError, because } from '../contract/errors'
import type { Role } from '../contract/define'
import type { Caller } from '../contract/dispatch'
import type { Session, UserInfo } from '../contract/types'
import type { Db } from '../ledger/db'
import type { AuditService } from './audit'
import { type Actor, type Clock, iso } from './common'

const SCRYPT = { N: 16384, r: 8, p: 1, keyLength: 64 }
export const SESSION_IDLE_MS = 8 * 60 * 60 * 1000

interface UserRow {
  id: number
  name: string
  role: Role
  password_hash: Buffer
  password_salt: Buffer
  active: number
  created_at: string
}

const toInfo = (r: UserRow): UserInfo => ({ id: r.id, name: r.name, role: r.role, active: r.active === 1, createdAt: r.created_at })

function hashPassword(password: string, salt: Buffer): Buffer {
  return scryptSync(password.normalize('NFC'), salt, SCRYPT.keyLength, { N: SCRYPT.N, r: SCRYPT.r, p: SCRYPT.p })
}

export interface UsersService {
  needsSetup(): boolean
  /** The first admin account; refused once any user exists. */
  setup(name: string, password: string): Session
  login(name: string, password: string): Session
  logout(token: string): void
  /** The signed-in caller of a token, or null when it is unknown, expired or the user was deactivated. */
  resolve(token: string | null): Caller | null
  userOf(token: string | null): UserInfo | null
  list(): UserInfo[]
  create(actor: Actor, input: { name: string; role: Role; password: string }): UserInfo
  update(actor: Actor, input: { userId: number; role?: Role; active?: boolean; password?: string }): UserInfo
}

export function createUsersService({ db, clock, audit, idleMs = SESSION_IDLE_MS }: { db: Db; clock: Clock; audit: AuditService; idleMs?: number }): UsersService {
  const sessions = new Map<string, { userId: number; expiresAt: number }>()
  const byName = db.prepare('SELECT * FROM users WHERE name = ?')
  const byId = db.prepare('SELECT * FROM users WHERE id = ?')
  const count = db.prepare('SELECT count(*) AS n FROM users')
  const insert = db.prepare('INSERT INTO users (name, role, password_hash, password_salt, active, created_at) VALUES (?, ?, ?, ?, 1, ?)')
  const activeAdmins = db.prepare("SELECT count(*) AS n FROM users WHERE role = 'admin' AND active = 1")
  // A login for an unknown name still pays for one scrypt, so timing does not reveal which names exist.
  // Made at the first login, not when the backend opens (one scrypt, about 0.1 s).
  const dummySalt = randomBytes(16)
  let dummy: Buffer | null = null
  const dummyHash = () => (dummy ??= hashPassword('not a password', dummySalt))

  function newSession(user: UserRow): Session {
    const token = randomBytes(32).toString('base64url')
    sessions.set(token, { userId: user.id, expiresAt: clock().getTime() + idleMs })
    return { token, user: toInfo(user) }
  }

  function insertUser(name: string, role: Role, password: string): UserRow {
    if (byName.get(name)) throw new AppError('CONFLICT', `a user named "${name}" already exists`, { field: 'name', ...because('USER_NAME_TAKEN', { name }) })
    const salt = randomBytes(16)
    const id = Number(insert.run(name, role, hashPassword(password, salt), salt, iso(clock())).lastInsertRowid)
    return byId.get(id) as UserRow
  }

  function endSessionsOf(userId: number): void {
    for (const [t, s] of sessions) if (s.userId === userId) sessions.delete(t)
  }

  const service: UsersService = {
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

    login(name, password) {
      if (service.needsSetup()) throw new AppError('SETUP_REQUIRED', 'no account exists yet: create the administrator account first', because('SETUP_FIRST'))
      // made before looking at the name, so the first login costs the same whoever asks
      const dummyExpected = dummyHash()
      const row = byName.get(name) as UserRow | undefined
      const expected = row ? row.password_hash : dummyExpected
      const given = hashPassword(password, row ? row.password_salt : dummySalt)
      const ok = timingSafeEqual(expected, given) && row !== undefined
      if (!ok || row.active !== 1) {
        audit.record(name, 'auth.login-failed', row ? `user:${row.id}` : 'user:unknown', { reason: !ok ? 'wrong name or password' : 'account deactivated' })
        if (ok) throw new AppError('BAD_CREDENTIALS', 'this account is deactivated: ask an administrator', because('ACCOUNT_DEACTIVATED'))
        throw new AppError('BAD_CREDENTIALS', 'wrong name or password', because('WRONG_CREDENTIALS'))
      }
      audit.record(row.name, 'auth.login', `user:${row.id}`)
      return newSession(row)
    },

    logout(token) {
      const s = sessions.get(token)
      if (!s) return
      sessions.delete(token)
      const row = byId.get(s.userId) as UserRow | undefined
      if (row) audit.record(row.name, 'auth.logout', `user:${row.id}`)
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
      if (now >= s.expiresAt) {
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

    list: () => (db.prepare('SELECT * FROM users ORDER BY name').all() as UserRow[]).map(toInfo),

    create(actor, { name, role, password }) {
      return db.transaction(() => {
        const u = insertUser(name, role, password)
        audit.record(actor.name, 'user.create', `user:${u.id}`, { name, role })
        return toInfo(u)
      }).immediate()
    },

    update(actor, { userId, role, active, password }) {
      const updated = db.transaction(() => {
        const row = byId.get(userId) as UserRow | undefined
        if (!row) throw new AppError('NOT_FOUND', `no user with id ${userId}`, { field: 'userId', ...because('USER_NOT_FOUND', { userId }) })
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
        if (password !== undefined) {
          const salt = randomBytes(16)
          db.prepare('UPDATE users SET password_hash = ?, password_salt = ? WHERE id = ?').run(hashPassword(password, salt), salt, userId)
          changes.password = 'changed'
        }
        audit.record(actor.name, 'user.update', `user:${userId}`, { name: row.name, ...changes })
        return byId.get(userId) as UserRow
      }).immediate()
      // A deactivated user or a new password ends the user's sessions; a new role applies at the next call.
      if (active === false || password !== undefined) endSessionsOf(userId)
      return toInfo(updated)
    },
  }
  return service
}
