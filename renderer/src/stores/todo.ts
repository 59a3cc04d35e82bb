import { defineStore } from 'pinia'
import { computed, ref } from 'vue'
import type { TodoList } from '../../../electron/contract/todo-types'
import { api } from '../api'

/**
 * The signed-in person's to-do list (services/todo), shared by the menu's count and the to-do
 * screen. Read at sign-in and again whenever the ledger changes under it (AppLayout's useChanges).
 */
export const useTodoStore = defineStore('todo', () => {
  const list = ref<TodoList | null>(null)
  const count = computed(() => list.value?.count ?? 0)
  let asked = 0

  /** Reads the list again; the answer to the latest reading wins. A failed reading keeps the last one. */
  async function load(): Promise<void> {
    const mine = ++asked
    try {
      const l = await api.call('todo:list', {})
      if (mine === asked) list.value = l
    } catch {
      /* the screens say why a call fails; the count stays as it was */
    }
  }

  function forget(): void {
    asked++
    list.value = null
  }

  return { list, count, load, forget }
})
