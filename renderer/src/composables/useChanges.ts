import { onBeforeUnmount, onMounted } from 'vue'
import type { Change, ChangeTopic } from '../../../electron/contract/changes'
import { changes as feed } from '../api'

/** Changes arriving within this long are answered by one reading. */
export const CHANGE_SETTLE_MS = 100

/**
 * Whether `batch` touches what a screen shows: one of its topics, for its id (`id` absent or
 * null: any id; a change with no id concerns the whole topic).
 */
export function touches(batch: readonly Change[], topics: readonly ChangeTopic[], id?: string | null): boolean {
  return batch.some(
    (c) => topics.includes(c.topic) && (id === undefined || id === null || c.id === null || c.id === id),
  )
}

/**
 * Reads a screen again when the ledger changes under it (api/changes.ts): `reload` runs once per
 * burst of changes to `topics` (for the id `id()` gives, if any) while the component is mounted.
 */
export function useChanges(
  topics: readonly ChangeTopic[],
  reload: () => unknown,
  opts: { id?: () => string | null | undefined } = {},
): void {
  let timer: ReturnType<typeof setTimeout> | undefined
  let stop: (() => void) | null = null
  onMounted(() => {
    stop = feed.onChange((batch) => {
      if (!touches(batch, topics, opts.id?.())) return
      clearTimeout(timer)
      timer = setTimeout(() => void reload(), CHANGE_SETTLE_MS)
    })
  })
  onBeforeUnmount(() => {
    clearTimeout(timer)
    stop?.()
  })
}
