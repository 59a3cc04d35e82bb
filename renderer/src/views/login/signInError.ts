import { ApiError } from '../../api'
import { describeError, describeReason } from '../../composables/useErrors'
import type { AppLocale } from '../../format'

type Translate = (key: string, params?: Record<string, unknown>) => string

const INTL: Record<AppLocale, string> = { fr: 'fr-FR', en: 'en-GB' }

/**
 * When a sign-in lockout ends, as the screens say it: the minute from which a new attempt is taken
 * (rounded up: "10:43" for 10:42:30), with the day when it is not today.
 */
export function formatUntil(iso: string, locale: AppLocale, now: Date = new Date()): string {
  const ms = new Date(iso).getTime()
  if (Number.isNaN(ms)) return iso
  const d = new Date(Math.ceil(ms / 60_000) * 60_000)
  if (d.toDateString() === now.toDateString())
    return new Intl.DateTimeFormat(INTL[locale], { hour: '2-digit', minute: '2-digit' }).format(d)
  return new Intl.DateTimeFormat(INTL[locale], { dateStyle: 'medium', timeStyle: 'short' }).format(d)
}

/** Reasons of a sign-in or a password change that say all there is to say on their own. */
// ACCOUNT_NOT_SOUND: said only once the password is known right (the account's record was changed outside the app)
const OWN_SENTENCE = new Set(['CURRENT_PASSWORD_WRONG', 'PASSWORD_UNCHANGED', 'ACCOUNT_NOT_SOUND'])

/**
 * A refused sign-in or password change, in the user's language. A lockout says until when, and
 * nothing about the password (the server does not know more: it did not look at it).
 */
export function describeSignInError(e: unknown, t: Translate, locale: AppLocale, now?: Date): string {
  if (e instanceof ApiError && e.reason?.key === 'SIGN_IN_LOCKED')
    return t('auth.locked', { when: formatUntil(String(e.reason.params.until), locale, now) })
  if (e instanceof ApiError && e.reason && OWN_SENTENCE.has(e.reason.key)) {
    const s = describeReason(e, t)
    return `${s.charAt(0).toUpperCase()}${s.slice(1)}.`
  }
  return describeError(e, t)
}
