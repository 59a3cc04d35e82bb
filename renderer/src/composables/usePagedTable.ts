import { reactive, ref, type Ref } from 'vue'
import type { Page } from '../../../electron/contract'
import { useErrors } from './useErrors'
import { useFormat } from './useFormat'

export interface PageRequest {
  page: number
  pageSize: number
}

/**
 * The rows and pagination of a remote NDataTable: the backend sends one page at a time, and
 * turning the page or changing its size fetches again. `fetch` returns undefined when there is
 * nothing to ask for yet.
 */
export function usePagedTable<T>(fetch: (at: PageRequest) => Promise<Page<T>> | undefined, pageSizes: number[]) {
  const { attempt } = useErrors()
  const fmt = useFormat()

  const rows = ref([]) as Ref<T[]>
  const loading = ref(false)
  const pagination = reactive({
    page: 1,
    pageSize: pageSizes[0],
    itemCount: 0,
    showSizePicker: true,
    pageSizes,
    prefix: ({ itemCount }: { itemCount?: number }) => fmt.int(itemCount ?? 0),
  })

  async function load() {
    const request = fetch({ page: pagination.page, pageSize: pagination.pageSize })
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

  return { rows, loading, pagination, load, reload, onPage, onPageSize }
}
