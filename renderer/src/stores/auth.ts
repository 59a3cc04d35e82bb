import { defineStore } from 'pinia'
import { computed, ref } from 'vue'
import { api, changes } from '../api'
import type { ChannelName, UserInfo } from '../../../electron/contract'

/**
 * Who may call what comes from the contract's access lists, which come with its argument schemas
 * (zod): about 90 kB that the sign-in screen does not need. They are loaded once someone is
 * signed in, before the screens that ask `can()` are shown.
 */
type Access = typeof import('../access')
let access: Access | null = null
const loadAccess = async (): Promise<Access> => (access ??= await import('../access'))

// The token lives for the window's session only: closing the app signs out.
const TOKEN_KEY = 'carats.token'

function readToken(): string | null {
  try {
    return sessionStorage.getItem(TOKEN_KEY)
  } catch {
    return null
  }
}

function writeToken(token: string | null) {
  try {
    if (token) sessionStorage.setItem(TOKEN_KEY, token)
    else sessionStorage.removeItem(TOKEN_KEY)
  } catch {
    /* private mode: the session lasts until reload */
  }
}

export const useAuthStore = defineStore('auth', () => {
  const user = ref<UserInfo | null>(null)
  const needsSetup = ref(false)
  const ready = ref(false)

  const role = computed(() => user.value?.role ?? null)

  /** Asks the backend who we are (the remembered token may have expired) and whether set-up is due. */
  async function init() {
    api.setToken(readToken())
    changes.setToken(api.token)
    const status = await api.call('auth:status', {})
    if (status.user) await loadAccess()
    needsSetup.value = status.needsSetup
    user.value = status.user
    if (!status.user) forgetSession()
    ready.value = true
  }

  function startSession(token: string, u: UserInfo) {
    api.setToken(token)
    changes.setToken(token)
    writeToken(token)
    user.value = u
    needsSetup.value = false
  }

  function forgetSession() {
    api.setToken(null)
    changes.setToken(null)
    writeToken(null)
    user.value = null
  }

  async function login(name: string, password: string) {
    const s = await api.call('auth:login', { name, password })
    await loadAccess()
    startSession(s.token, s.user)
  }

  async function setup(name: string, password: string) {
    const s = await api.call('auth:setup', { name, password })
    await loadAccess()
    startSession(s.token, s.user)
  }

  async function logout() {
    try {
      if (user.value) await api.call('auth:logout', {})
    } finally {
      forgetSession()
    }
  }

  /** The signed-in user's own password; the server ends their other sessions, this one goes on. */
  async function changePassword(oldPassword: string, newPassword: string) {
    await api.call('auth:changePassword', { oldPassword, newPassword })
  }

  /**
   * Reads the session again (its account changed: a new role, deactivated, another session's
   * password change): the menus and rights follow the role at once; a session that ended is forgotten.
   */
  async function refresh() {
    if (!user.value) return
    const status = await api.call('auth:status', {})
    if (status.user) user.value = status.user
    else forgetSession()
  }

  function can(channel: ChannelName) {
    return access !== null && access.canUse(channel, role.value)
  }

  return { user, role, needsSetup, ready, init, login, setup, logout, changePassword, forgetSession, refresh, can }
})
