/** What a refused call throws, for the services' tests. */
import { AppError, type ApiErrorData } from '../../electron/contract/errors'
import { brokenConstraint, type ConstraintKind } from '../../electron/ledger/constraint'

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

/**
 * The kind of constraint the ledger's own schema refused `fn`'s statement with (ledger/constraint.ts,
 * the same on both engines whatever their wording); fails the test when `fn` returns or throws
 * anything else.
 */
export function brokenBy(fn: () => unknown): ConstraintKind {
  try {
    fn()
  } catch (e) {
    const broken = brokenConstraint(e)
    if (broken) return broken.kind
    throw e
  }
  throw new Error('expected the ledger to refuse the statement')
}
