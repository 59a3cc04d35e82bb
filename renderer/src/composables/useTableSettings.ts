import { computed, ref, watch, type Ref } from 'vue'
import type { DataTableColumns } from 'naive-ui'
import { useAuthStore } from '../stores/auth'

/**
 * Which columns a table shows, and in what order, kept per signed-in user on this workstation
 * (localStorage, keyed by the table and the user's name: docs/ui.md says why not the ledger).
 * A column without a title (a row's buttons) is always shown and is not offered.
 */
export interface TableSettings {
  /** Keys of the columns hidden. */
  hidden: string[]
  /** Keys in the order chosen; columns it does not name keep their place after them. */
  order: string[]
}

export interface ColumnChoice {
  key: string
  title: string
  shown: boolean
}

const DEFAULTS: TableSettings = { hidden: [], order: [] }
const PREFIX = 'carats.table.'

/** Names are unique ignoring case (users.name COLLATE NOCASE): "Ada" and "ada" are one account. */
export const settingsKey = (table: string, user: string) => `${PREFIX}${table}.${user.toLowerCase()}`

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [])

export function readTableSettings(storage: Storage, table: string, user: string): TableSettings {
  try {
    const raw = JSON.parse(storage.getItem(settingsKey(table, user)) ?? 'null') as Partial<TableSettings> | null
    return raw && typeof raw === 'object' ? { hidden: strings(raw.hidden), order: strings(raw.order) } : { ...DEFAULTS }
  } catch {
    return { ...DEFAULTS } // another program's value, or storage refused: the defaults
  }
}

export function writeTableSettings(storage: Storage, table: string, user: string, s: TableSettings): void {
  try {
    if (s.hidden.length === 0 && s.order.length === 0) storage.removeItem(settingsKey(table, user))
    else storage.setItem(settingsKey(table, user), JSON.stringify(s))
  } catch {
    /* private mode or full: the settings last until the window closes */
  }
}

type Column<T> = DataTableColumns<T>[number]
const keyOf = <T>(c: Column<T>): string => ('key' in c && c.key !== undefined ? String(c.key) : '')
const titleOf = <T>(c: Column<T>): string => ('title' in c && typeof c.title === 'string' ? c.title : '')

/** The columns to show: the chosen order first, hidden ones left out, untitled ones always kept. */
export function applyTableSettings<T>(columns: DataTableColumns<T>, s: TableSettings): DataTableColumns<T> {
  const rank = (c: Column<T>) => {
    const i = s.order.indexOf(keyOf(c))
    return i === -1 ? s.order.length : i
  }
  const kept = columns.map((c, i) => ({ c, i })).filter(({ c }) => !titleOf(c) || !s.hidden.includes(keyOf(c)))
  // a column the order does not name (the app's own, added later) stays where the defaults put it
  return kept.sort((a, b) => rank(a.c) - rank(b.c) || a.i - b.i).map(({ c }) => c)
}

export function useTableSettings<T>(
  table: string,
  columns: () => DataTableColumns<T>,
  user: Ref<string | null> = computed(() => useAuthStore().user?.name ?? null),
  storage: Storage = localStorage,
) {
  const settings = ref<TableSettings>({ ...DEFAULTS })
  watch(user, (u) => (settings.value = u ? readTableSettings(storage, table, u) : { ...DEFAULTS }), { immediate: true })

  function save(next: TableSettings) {
    settings.value = next
    if (user.value) writeTableSettings(storage, table, user.value, next)
  }

  const offered = computed(() =>
    applyTableSettings(columns(), { hidden: [], order: settings.value.order }).filter((c) => titleOf(c) && keyOf(c)),
  )
  const choices = computed<ColumnChoice[]>(() =>
    offered.value.map((c) => ({ key: keyOf(c), title: titleOf(c), shown: !settings.value.hidden.includes(keyOf(c)) })),
  )
  const shown = computed(() => applyTableSettings(columns(), settings.value))

  function setShown(key: string, show: boolean) {
    const hidden = settings.value.hidden.filter((k) => k !== key)
    // at least one column stays: a table of nothing cannot be set back from itself
    if (!show && choices.value.filter((c) => c.shown && c.key !== key).length === 0) return
    save({ ...settings.value, hidden: show ? hidden : [...hidden, key] })
  }

  /** One place up (-1) or down (+1) among the columns offered. */
  function move(key: string, by: -1 | 1) {
    const order = choices.value.map((c) => c.key)
    const i = order.indexOf(key)
    const j = i + by
    if (i === -1 || j < 0 || j >= order.length) return
    ;[order[i], order[j]] = [order[j], order[i]]
    save({ ...settings.value, order })
  }

  const reset = () => save({ ...DEFAULTS })
  const customised = computed(() => settings.value.hidden.length > 0 || settings.value.order.length > 0)

  /** The same choices applied to another table of the same columns (the player's last units beside the history). */
  const apply = (other: DataTableColumns<T>) => applyTableSettings(other, settings.value)

  return { columns: shown, choices, setShown, move, reset, customised, apply }
}

export type TableSettingsHandle = Pick<
  ReturnType<typeof useTableSettings>,
  'choices' | 'setShown' | 'move' | 'reset' | 'customised'
>
