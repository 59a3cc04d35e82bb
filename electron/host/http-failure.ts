import type { ErrorCode, ErrorReason } from '../contract/errors'

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
