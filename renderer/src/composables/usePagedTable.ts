import { reactive, ref, type Ref } from 'vue'
import type { DataTableColumns, DataTableFilterState, DataTableSortState } from 'naive-ui'
import type { Page, SortOrder } from '../../../electron/contract'
import { useErrors } from './useErrors'
import { useFormat } from './useFormat'
import { bindFilters } from './useListFilters'

export interface PageRequest {
  page: number
  pageSize: number
}

/** The column a remote table is sorted by, as the contract takes it. */
export interface SortRequest<K extends string> {
  sort: K
  order: SortOrder
}

/**
 * The rows and pagination of a remote NDataTable: the backend sends one page at a time, and
 * turning the page or changing its size fetches again. `fetch` returns undefined when there is
 * nothing to ask for yet. With `sorting`, a click on a sortable column's header (`sorter: true`)
 * sorts on the server from the first page; column filters (`filter: true`) likewise.
 */
export function usePagedTable<T, K extends string = string>(
  fetch: (
    at: PageRequest & Partial<SortRequest<K>> & { filters: Record<string, string[]> },
  ) => Promise<Page<T>> | undefined,
  pageSizes: number[],
  sorting?: { default: SortRequest<K> },
) {
  const { attempt } = useErrors()
  const fmt = useFormat()

  const rows = ref([]) as Ref<T[]>
  const loading = ref(false)
  const sort = ref(sorting?.default ?? null) as Ref<SortRequest<K> | null>
  const filters = reactive<Record<string, string[]>>({})
  const pagination = reactive({
    page: 1,
    pageSize: pageSizes[0],
    itemCount: 0,
    showSizePicker: true,
    pageSizes,
    prefix: ({ itemCount }: { itemCount?: number }) => fmt.int(itemCount ?? 0),
  })

  async function load() {
    const request = fetch({
      page: pagination.page,
      pageSize: pagination.pageSize,
      ...(sort.value ?? {}),
      filters: { ...filters },
    })
    if (!request) return
    loading.value = true
    const p = await attempt(() => request)
    loading.value = false
    if (p) {
      rows.value = p.items
      pagination.itemCount = p.total
    }
  }

  /** From the first page again, when what is listed changed (new filters, another player). */
  function reload() {
    pagination.page = 1
    return load()
  }

  function onPage(page: number) {
    pagination.page = page
    void load()
  }

  function onPageSize(size: number) {
    pagination.pageSize = size
    pagination.page = 1
    void load()
  }

  /** A header clicked: its column ascending, descending, then the default sort again. */
  function onSorter(s: DataTableSortState | DataTableSortState[] | null) {
    const one = Array.isArray(s) ? s[0] : s
    const key = one ? (String(one.columnKey) as K) : null
    if (one && one.order) sort.value = { sort: key!, order: one.order === 'ascend' ? 'asc' : 'desc' }
    // the default sort's own column turns the other way rather than back to itself
    else if (key !== null && sort.value?.sort === key && sorting?.default.sort === key)
      sort.value = { sort: key, order: sort.value.order === 'asc' ? 'desc' : 'asc' }
    else sort.value = sorting?.default ?? null
    void reload()
  }

  function onFilters(state: DataTableFilterState) {
    for (const [k, v] of Object.entries(state)) filters[k] = v === null ? [] : (Array.isArray(v) ? v : [v]).map(String)
    void reload()
  }

  /** The columns with the sort and filters in force (Naive UI's controlled sort and filters). */
  function bind(columns: DataTableColumns<T>): DataTableColumns<T> {
    const s = sort.value
    const sorted = columns.map((c) =>
      'sorter' in c && c.sorter && 'key' in c
        ? {
            ...c,
            sortOrder:
              s && s.sort === c.key
                ? s.order === 'asc'
                  ? ('ascend' as const)
                  : ('descend' as const)
                : (false as const),
          }
        : c,
    )
    return bindFilters<T>(sorted, filters)
  }

  return { rows, loading, pagination, sort, filters, load, reload, onPage, onPageSize, onSorter, onFilters, bind }
}
