import { ref, useTemplateRef } from 'vue'
import { useI18n } from 'vue-i18n'
import type { FormInst } from 'naive-ui'
import { describeError } from '../../composables/useErrors'

/**
 * Sign-in and first set-up: the form is checked, then `action` runs; a failure is said under the
 * form (not as a passing message) so the user sees it beside what to correct. The screen's NForm
 * carries `ref="authForm"`.
 */
export function useAuthForm(action: () => Promise<void>) {
  const { t } = useI18n()
  const formRef = useTemplateRef<FormInst>('authForm')
  const busy = ref(false)
  const error = ref<string | null>(null)

  async function submit() {
    try {
      await formRef.value?.validate()
    } catch {
      return
    }
    busy.value = true
    error.value = null
    try {
      await action()
    } catch (e) {
      error.value = describeError(e, t)
    } finally {
      busy.value = false
    }
  }

  return { busy, error, submit }
}
