import { computed, reactive, ref } from 'vue'
import type { DataTableColumns, DataTableFilterState } from 'naive-ui'

/**
 * Search and column filters of a list the screen holds whole (emissions, users): the rows shown
 * are filtered here, so that the count said above the table is the count of the rows in it. The
 * columns say which values they filter by (`filter: true` and `filterOptions` in columns.ts);
 * `bind` hands them the values chosen, and `onFilters` takes the table's changes.
 */
export function useListFilters<T>(
  rows: () => T[],
  rules: { search?: (row: T, query: string) => boolean; filters?: Record<string, (row: T, value: string) => boolean> },
) {
  const query = ref('')
  const values = reactive<Record<string, string[]>>({})

  const active = computed(() => Object.entries(values).filter(([k, v]) => v.length > 0 && rules.filters?.[k]))
  const filtered = computed(() => query.value.trim() !== '' || active.value.length > 0)
  const shown = computed(() => {
    const q = query.value.trim().toLowerCase()
    return rows().filter(
      (r) =>
        (!q || !rules.search || rules.search(r, q)) &&
        active.value.every(([k, v]) => v.some((x) => rules.filters![k](r, x))),
    )
  })

  function onFilters(state: DataTableFilterState) {
    for (const [k, v] of Object.entries(state)) values[k] = v === null ? [] : (Array.isArray(v) ? v : [v]).map(String)
  }

  function clear() {
    query.value = ''
    for (const k of Object.keys(values)) values[k] = []
  }

  return {
    query,
    values,
    shown,
    filtered,
    total: computed(() => rows().length),
    onFilters,
    clear,
    bind: (columns: DataTableColumns<T>) => bindFilters<T>(columns, values),
  }
}

/** The columns with the filter values chosen (Naive UI's controlled filters). */
export function bindFilters<T>(columns: DataTableColumns<T>, values: Record<string, string[]>): DataTableColumns<T> {
  return columns.map((c) =>
    'filter' in c && c.filter && 'key' in c ? { ...c, filterOptionValues: values[String(c.key)] ?? [] } : c,
  )
}
