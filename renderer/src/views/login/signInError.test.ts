// @vitest-environment happy-dom
import { describe, expect, it, vi } from 'vitest'
import { flushPromises, mount } from '@vue/test-utils'
import { createPinia, setActivePinia } from 'pinia'
import { createMemoryHistory, createRouter } from 'vue-router'
import { ApiError } from '../../api'
import { createAppI18n } from '../../i18n'
import { useAuthStore } from '../../stores/auth'
import { usePrefsStore } from '../../stores/prefs'
import LoginView from './LoginView.vue'
import { describeSignInError, formatUntil } from './signInError'

const tr = (locale: 'fr' | 'en') => {
  const { t } = createAppI18n(locale).global
  return (k: string, p?: Record<string, unknown>) => t(k, p ?? {})
}
// local times, whatever the time zone the tests run in
const now = new Date(2026, 2, 2, 10, 41, 50)
const until = new Date(2026, 2, 2, 10, 42, 30).toISOString()
const locked = new ApiError({
  code: 'BAD_CREDENTIALS',
  message: `too many failed sign-ins with this name: try again after ${until}`,
  reason: { key: 'SIGN_IN_LOCKED', params: { until } },
})

describe('a refused sign-in', () => {
  it('says until when a lockout lasts, to the minute a new attempt is taken, with the day when it is not today', () => {
    expect(formatUntil(until, 'fr', now)).toBe('10:43')
    expect(formatUntil(new Date(2026, 2, 2, 10, 43, 0).toISOString(), 'en', now)).toBe('10:43')
    expect(formatUntil(new Date(2026, 2, 3, 0, 10, 5).toISOString(), 'en', now)).toMatch(/^3 Mar 2026, 00:11$/)
  })

  it('says the lockout in French and English, and nothing about the password', () => {
    expect(describeSignInError(locked, tr('fr'), 'fr', now)).toBe(
      'Trop de tentatives de connexion infructueuses avec cet identifiant : réessayez à partir de 10:43.',
    )
    expect(describeSignInError(locked, tr('en'), 'en', now)).toBe(
      'Too many failed sign-in attempts with this name: try again after 10:43.',
    )
    const wrongCurrent = new ApiError({
      code: 'BAD_CREDENTIALS',
      message: 'the current password is wrong',
      field: 'oldPassword',
      reason: { key: 'CURRENT_PASSWORD_WRONG', params: {} },
    })
    expect(describeSignInError(wrongCurrent, tr('fr'), 'fr')).toBe('Le mot de passe actuel est incorrect.')
    const wrong = new ApiError({
      code: 'BAD_CREDENTIALS',
      message: 'wrong name or password',
      reason: { key: 'WRONG_CREDENTIALS', params: {} },
    })
    expect(describeSignInError(wrong, tr('en'), 'en')).toMatch(/^Wrong user name or password/)
  })

  it('is shown under the sign-in form', async () => {
    const router = createRouter({
      history: createMemoryHistory(),
      routes: [{ path: '/:any(.*)*', name: 'login', component: { render: () => null } }],
    })
    const pinia = createPinia()
    setActivePinia(pinia)
    usePrefsStore().locale = 'en'
    const auth = useAuthStore()
    auth.ready = true
    const soon = new Date(Date.now() + 60_000).toISOString()
    auth.login = vi.fn(async () => {
      throw new ApiError({
        code: 'BAD_CREDENTIALS',
        message: 'too many failed sign-ins',
        reason: { key: 'SIGN_IN_LOCKED', params: { until: soon } },
      })
    })
    const w = mount(LoginView, { global: { plugins: [pinia, createAppI18n('en'), router] } })
    const [name, password] = w.findAll('input')
    await name.setValue('suzy')
    await password.setValue('whatever it is')
    await w.get('form').trigger('submit')
    await flushPromises()
    expect(auth.login).toHaveBeenCalledTimes(1)
    expect(auth.login).toHaveBeenCalledWith('suzy', 'whatever it is')
    expect(w.get('[role="alert"]').text()).toBe(
      `Too many failed sign-in attempts with this name: try again after ${formatUntil(soon, 'en')}.`,
    )
  })
})
