import { defineStore } from 'pinia'
import { ref } from 'vue'
import { api } from '../api'
import { upsert } from './upsert'
import type { Relation, RelatedParty } from '../../../electron/contract/claims-types'

/** The register of related parties, with or without the entries removed. */
export const usePartiesStore = defineStore('parties', () => {
  const list = ref<RelatedParty[]>([])
  const includeRemoved = ref(false)
  const loading = ref(false)

  async function load() {
    loading.value = true
    try {
      list.value = await api.call('parties:list', { includeRemoved: includeRemoved.value })
    } finally {
      loading.value = false
    }
  }

  /** A new entry goes first, as the register lists them (newest first). */
  async function add(input: { player: string; relation: Relation; linkedTo: string; reason: string }) {
    const entry = await api.call('parties:add', input)
    list.value.unshift(entry)
    return entry
  }

  /** A removed entry leaves the list, unless the list shows removed entries too. */
  async function remove(id: number, reason: string) {
    const entry = await api.call('parties:remove', { id, reason })
    if (includeRemoved.value) upsert(list.value, entry, (a, b) => a.id === b.id)
    else list.value = list.value.filter((p) => p.id !== id)
    return entry
  }

  return { list, includeRemoved, loading, load, add, remove }
})
