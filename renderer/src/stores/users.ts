import { defineStore } from 'pinia'
import { ref } from 'vue'
import { api } from '../api'
import { upsert } from './upsert'
import type { Role, UserInfo } from '../../../electron/contract'

export const useUsersStore = defineStore('users', () => {
  const list = ref<UserInfo[]>([])
  const loading = ref(false)

  async function load() {
    loading.value = true
    try {
      list.value = await api.call('users:list', {})
    } finally {
      loading.value = false
    }
  }

  const replace = (u: UserInfo) => upsert(list.value, u, (a, b) => a.id === b.id)

  const create = async (name: string, role: Role, password: string) => replace(await api.call('users:create', { name, role, password }))
  const update = async (userId: number, change: { role?: Role; active?: boolean; password?: string }) => replace(await api.call('users:update', { userId, ...change }))

  return { list, loading, load, create, update }
})
