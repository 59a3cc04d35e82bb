import { ref, useTemplateRef } from 'vue'
import { useI18n } from 'vue-i18n'
import type { FormInst } from 'naive-ui'
import { usePrefsStore } from '../../stores/prefs'
import { describeSignInError } from './signInError'

/**
 * Sign-in and first set-up: the form is checked, then `action` runs; a failure is said under the
 * form (not as a passing message) so the user sees it beside what to correct; a lockout says until
 * when. The screen's NForm carries `ref="authForm"`.
 */
export function useAuthForm(action: () => Promise<void>) {
  const { t } = useI18n()
  const prefs = usePrefsStore()
  const formRef = useTemplateRef<FormInst>('authForm')
  const busy = ref(false)
  const error = ref<string | null>(null)

  // The form's submit event is the only way in (its button is a submit button, Enter in a field
  // submits the form). One attempt at a time: a press while one is pending sends nothing, for
  // each attempt counts against the sign-in throttle.
  async function submit() {
    if (busy.value) return
    busy.value = true
    try {
      await formRef.value?.validate()
    } catch {
      busy.value = false
      return
    }
    error.value = null
    try {
      await action()
    } catch (e) {
      error.value = describeSignInError(e, t, prefs.locale)
    } finally {
      busy.value = false
    }
  }

  return { busy, error, submit }
}
