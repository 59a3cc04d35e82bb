import { defineStore } from 'pinia'
import { ref } from 'vue'
import { api } from '../api'
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

  function replace(u: UserInfo) {
    const i = list.value.findIndex((x) => x.id === u.id)
    if (i >= 0) list.value.splice(i, 1, u)
    else list.value.push(u)
    return u
  }

  const create = async (name: string, role: Role, password: string) => replace(await api.call('users:create', { name, role, password }))
  const update = async (userId: number, change: { role?: Role; active?: boolean; password?: string }) => replace(await api.call('users:update', { userId, ...change }))

  return { list, loading, load, create, update }
})
