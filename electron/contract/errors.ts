/** Errors that cross the boundary: a stable code, a sentence for people, and the field at fault. */

export const ERROR_CODES = [
  'BAD_ARGUMENTS', // the arguments do not match the channel's schema
  'UNKNOWN_CHANNEL',
  'NOT_SIGNED_IN',
  'SETUP_REQUIRED', // no admin account yet
  'BAD_CREDENTIALS',
  'FORBIDDEN', // the caller's role may not do this
  'NOT_FOUND',
  'CONFLICT', // already exists, already done, same id with other content
  'ILLEGAL_STATE', // the object's state does not allow this step
  'INVALID_SERIAL',
  'REASON_REQUIRED',
  'IMPORT_REJECTED',
  'SOLD_OUT',
  'CANCELLED',
  'DATABASE', // the ledger file is unreadable, corrupt or from a newer version
  'INTERNAL',
] as const

export type ErrorCode = (typeof ERROR_CODES)[number]

export interface ApiErrorData {
  code: ErrorCode
  message: string
  /** The argument at fault, as a dotted path (`blocks`, `play.events.3.t`). */
  field?: string
  /** Structured detail, e.g. every bad line of a rejected import. */
  details?: unknown
}

export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly extras: { field?: string; details?: unknown } = {},
  ) {
    super(message)
    this.name = 'AppError'
  }

  toData(): ApiErrorData {
    return { code: this.code, message: this.message, ...this.extras }
  }
}

export type Envelope<R> = { ok: true; result: R } | { ok: false; error: ApiErrorData }
