/**
 * The types the staff's parts share (README.md beside this file).
 */
import type { Db } from '../../ledger/db'
import type { AuditService } from '../audit'
import type { Clock } from '../common'
import type { ThrottleOptions } from './sign-in-throttle'

/** What the staff service takes: the ledger, the clock, the audit log, and its limits (tests shorten them). */
export interface UsersOptions {
  db: Db
  clock: Clock
  audit: AuditService
  /** a session ends after this long without a call (ms) */
  idleMs?: number
  /** and after this long whatever happens (ms) */
  maxMs?: number
  throttle?: ThrottleOptions
}

/** A session in this process's memory: whose, and when it ends. */
export interface SessionEntry {
  userId: number
  expiresAt: number
  endsAt: number
}
