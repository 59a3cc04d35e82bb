/** What a refused call throws, for the services' tests. */
import { AppError, type ApiErrorData } from '../../electron/contract/errors'

/** The AppError that `fn` throws (anything else is thrown on); fails the test when `fn` returns. */
export function refusal(fn: () => unknown): AppError {
  try {
    fn()
  } catch (e) {
    if (e instanceof AppError) return e
    throw e
  }
  throw new Error('expected a refusal')
}

/** The same refusal as the contract sends it (code, message, field, reason, details): what a screen receives. */
export const refusalData = (fn: () => unknown): ApiErrorData => refusal(fn).toData()
