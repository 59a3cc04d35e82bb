import { AppError, because, type ErrorCode, type ErrorReason } from '../contract/errors'

/** A request the host refuses itself: the HTTP status, and the error the page reads. */
export class HttpFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly headers: Record<string, string> = {},
    readonly reason?: ErrorReason,
  ) {
    super(message)
  }
}

/**
 * The dispatcher's own refusal of a call that needs a session (contract/dispatch.ts), with the
 * HTTP status the endpoint answers it with: 200 and the error for the api's calls, 401 for the
 * stream of changes.
 */
export function notSignedIn(status: number): HttpFailure {
  const { message, reason } = new AppError(
    'NOT_SIGNED_IN',
    'your session has ended: sign in again',
    because('SESSION_ENDED'),
  ).toData()
  return new HttpFailure(status, 'NOT_SIGNED_IN', message, {}, reason)
}
