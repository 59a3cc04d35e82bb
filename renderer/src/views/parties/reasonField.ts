import { ApiError } from '../../api'
import { describeReason } from '../../composables/useErrors'

type Translate = (key: string, params?: Record<string, unknown>) => string

/** A reason of fewer characters than this is refused (the contract's `reason`). */
export const MIN_REASON = 3

/** What to say under a reason field: nothing while empty, then until it is long enough. */
export const reasonProblem = (reason: string, t: Translate): string | null =>
  reason !== '' && reason.trim().length < MIN_REASON ? t('parties.reasonTooShort') : null

/**
 * A refusal the server tied to one of the form's fields with a reason it explains (the register
 * already links this account to this person): said under that field rather than in a message.
 */
export function fieldRefusal(
  e: unknown,
  fields: readonly string[],
  t: Translate,
): { field: string; text: string } | null {
  if (!(e instanceof ApiError) || !e.reason || !e.field || !fields.includes(e.field)) return null
  const text = describeReason(e, t)
  return { field: e.field, text: text.charAt(0).toUpperCase() + text.slice(1) }
}
