import { defineStore } from 'pinia'
import { ref } from 'vue'
import { api } from '../api'
import { upsert } from './upsert'
import type { EmissionSummary } from '../../../electron/contract'

export const useEmissionsStore = defineStore('emissions', () => {
  const list = ref<EmissionSummary[]>([])
  const loaded = ref(false)
  const loading = ref(false)

  async function load() {
    loading.value = true
    try {
      list.value = await api.call('emissions:list', {})
      loaded.value = true
    } finally {
      loading.value = false
    }
  }

  const replace = (e: EmissionSummary) => upsert(list.value, e, (a, b) => a.emission === b.emission)

  async function create(args: {
    blocks: number
    code?: string
    startsOn?: string
    demo?: boolean
    claimThresholdCents?: number
    claimDays?: number
  }) {
    const e = await api.call('emissions:create', args)
    replace(e)
    return e
  }
  const generate = (emission: number) => api.call('emissions:generate', { emission })
  const verify = (emission: number) => api.call('emissions:verify', { emission })
  const demo = (sales?: number) => api.call('emissions:demo', sales ? { sales } : {})

  async function open(emission: number) {
    replace(await api.call('emissions:open', { emission }))
  }
  async function close(emission: number) {
    replace(await api.call('emissions:close', { emission }))
  }
  async function withdraw(emission: number, reason: string) {
    replace(await api.call('emissions:withdraw', { emission, reason }))
  }

  return { list, loaded, loading, load, create, generate, verify, demo, open, close, withdraw }
})
