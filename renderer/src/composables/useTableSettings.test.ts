// @vitest-environment happy-dom
import { beforeEach, describe, expect, it } from 'vitest'
import { nextTick, ref } from 'vue'
import type { DataTableColumns } from 'naive-ui'
import { applyTableSettings, readTableSettings, settingsKey, useTableSettings } from './useTableSettings'

interface Row {
  a: number
  b: number
  c: number
}
const COLUMNS: DataTableColumns<Row> = [
  { title: 'A', key: 'a' },
  { title: 'B', key: 'b' },
  { title: 'C', key: 'c' },
  { title: '', key: 'actions' }, // a row's buttons: always there
]
const keys = (cols: DataTableColumns<Row>) => cols.map((c) => ('key' in c ? c.key : ''))

beforeEach(() => localStorage.clear())

describe('table settings', () => {
  it('hide and order columns for the signed-in user, and come back at the next sign-in', async () => {
    const user = ref<string | null>('Ada')
    const s = useTableSettings('emissions', () => COLUMNS, user)
    expect(keys(s.columns.value)).toEqual(['a', 'b', 'c', 'actions'])
    expect(s.choices.value.map((c) => c.key)).toEqual(['a', 'b', 'c'])
    s.setShown('b', false)
    s.move('c', -1)
    expect(keys(s.columns.value)).toEqual(['a', 'c', 'actions'])
    expect(s.choices.value).toEqual([
      { key: 'a', title: 'A', shown: true },
      { key: 'c', title: 'C', shown: true },
      { key: 'b', title: 'B', shown: false },
    ])
    // signed out: the defaults; signed in again, under the same name in any case: the choices
    user.value = null
    await nextTick()
    expect(keys(s.columns.value)).toEqual(['a', 'b', 'c', 'actions'])
    user.value = 'ada'
    await nextTick()
    expect(keys(s.columns.value)).toEqual(['a', 'c', 'actions'])
    // a new screen opened later reads them too
    expect(keys(useTableSettings('emissions', () => COLUMNS, ref('ADA')).columns.value)).toEqual(['a', 'c', 'actions'])
  })

  it('are not inherited by another user, nor by another table', async () => {
    const user = ref<string | null>('ada')
    const s = useTableSettings('users', () => COLUMNS, user)
    s.setShown('a', false)
    user.value = 'otto'
    await nextTick()
    expect(keys(s.columns.value)).toEqual(['a', 'b', 'c', 'actions'])
    expect(keys(useTableSettings('audit', () => COLUMNS, ref('ada')).columns.value)).toEqual(['a', 'b', 'c', 'actions'])
    expect(readTableSettings(localStorage, 'users', 'ada')).toEqual({ hidden: ['a'], order: [] })
    expect(localStorage.getItem(settingsKey('users', 'otto'))).toBeNull()
  })

  it('reset to the defaults, and forget what was stored', () => {
    const s = useTableSettings('users', () => COLUMNS, ref('ada'))
    s.setShown('c', false)
    s.move('b', -1)
    expect(s.customised.value).toBe(true)
    s.reset()
    expect(keys(s.columns.value)).toEqual(['a', 'b', 'c', 'actions'])
    expect(s.customised.value).toBe(false)
    expect(localStorage.getItem(settingsKey('users', 'ada'))).toBeNull()
  })

  it('keep one column at least, and read damaged or foreign values as the defaults', () => {
    const s = useTableSettings('users', () => COLUMNS, ref('ada'))
    s.setShown('a', false)
    s.setShown('b', false)
    s.setShown('c', false)
    expect(keys(s.columns.value)).toEqual(['c', 'actions'])
    localStorage.setItem(settingsKey('users', 'zoe'), '{not json')
    expect(readTableSettings(localStorage, 'users', 'zoe')).toEqual({ hidden: [], order: [] })
    localStorage.setItem(settingsKey('users', 'zoe'), JSON.stringify({ hidden: 'a', order: [1, 'b'] }))
    expect(readTableSettings(localStorage, 'users', 'zoe')).toEqual({ hidden: [], order: ['b'] })
  })

  it('put a column that a later version adds where the defaults have it', () => {
    const later: DataTableColumns<Row> = [COLUMNS[0], { title: 'New', key: 'new' }, ...COLUMNS.slice(1)]
    expect(keys(applyTableSettings(later, { hidden: [], order: ['c', 'a', 'b'] }))).toEqual([
      'c',
      'a',
      'b',
      'new',
      'actions',
    ])
  })
})
