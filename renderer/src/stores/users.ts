import { defineStore } from 'pinia'
import { ref } from 'vue'
import { api } from '../api'
import { upsert } from './upsert'
import type { Role, UserAccount } from '../../../electron/contract'

export const useUsersStore = defineStore('users', () => {
  const list = ref<UserAccount[]>([])
  const loading = ref(false)

  async function load() {
    loading.value = true
    try {
      list.value = await api.call('users:list', {})
    } finally {
      loading.value = false
    }
  }

  const replace = (u: UserAccount) => upsert(list.value, u, (a, b) => a.id === b.id)

  const create = async (name: string, role: Role, password: string) =>
    replace(await api.call('users:create', { name, role, password }))
  const update = async (userId: number, change: { role?: Role; active?: boolean; password?: string }) =>
    replace(await api.call('users:update', { userId, ...change }))
  /** Lifts the account's sign-in lockout. */
  const unlock = async (userId: number) => replace(await api.call('users:unlock', { userId }))

  /** A second person confirms a privileged account. */
  const confirm = async (userId: number) => replace(await api.call('users:confirm', { userId }))

  return { list, loading, load, create, update, unlock, confirm }
})
