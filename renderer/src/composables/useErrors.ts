import { useMessage } from 'naive-ui'
import { useI18n } from 'vue-i18n'
import { useRouter } from 'vue-router'
import { ApiError, TransportError } from '../api'
import { useAuthStore } from '../stores/auth'

type Translate = (key: string, params?: Record<string, unknown>) => string

/** An error as a sentence that says what to do, in the user's language. */
export function describeError(e: unknown, t: Translate): string {
  if (e instanceof ApiError) {
    const detail = e.message.replace(/\.$/, '')
    if (e.code === 'BAD_ARGUMENTS' && e.field) return t('errors.BAD_ARGUMENTS_FIELD', { field: e.field, detail })
    return t(`errors.${e.code}`, { detail })
  }
  if (e instanceof TransportError) return t('errors.unreachable')
  return t('errors.unexpected', { detail: e instanceof Error ? e.message : String(e) })
}

/** Shows an api error as a message; an expired session sends the user back to sign in. */
export function useErrors() {
  const message = useMessage()
  const { t } = useI18n()
  const router = useRouter()
  const auth = useAuthStore()

  function report(e: unknown) {
    message.error(describeError(e, t), { duration: 8000, closable: true })
    if (e instanceof ApiError && e.code === 'NOT_SIGNED_IN') {
      auth.forgetSession()
      void router.push({ name: 'login' })
    }
  }

  /** Runs an action, reporting its error; returns undefined when it failed. */
  async function attempt<T>(action: () => Promise<T>): Promise<T | undefined> {
    try {
      return await action()
    } catch (e) {
      report(e)
      return undefined
    }
  }

  return { report, attempt }
}
