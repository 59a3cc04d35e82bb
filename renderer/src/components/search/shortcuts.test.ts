// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest'
import { createAppI18n } from '../../i18n'
import { globalShortcut, isTextField, keyLabel, SHORTCUTS, type KeyPress } from './shortcuts'

const press = (key: string, mods: Partial<KeyPress> = {}): KeyPress => ({
  key,
  ctrlKey: false,
  metaKey: false,
  altKey: false,
  isComposing: false,
  defaultPrevented: false,
  repeat: false,
  ...mods,
})

function element(html: string): Element {
  const host = document.createElement('div')
  host.innerHTML = html
  document.body.append(host)
  return host.firstElementChild!
}

describe('the app-wide shortcuts', () => {
  const button = element('<button>Go</button>')
  const field = element('<input type="text">')
  const area = element('<textarea></textarea>')

  it('go to the search with Ctrl+K or ⌘K, even from a text field', () => {
    expect(globalShortcut(press('k', { ctrlKey: true }), button, false)).toBe('focus-search')
    expect(globalShortcut(press('K', { metaKey: true }), field, false)).toBe('focus-search')
    expect(globalShortcut(press('k', { ctrlKey: true, altKey: true }), button, false)).toBeNull()
    expect(globalShortcut(press('k'), button, false)).toBeNull()
  })

  it('read / and ? outside text fields only', () => {
    expect(globalShortcut(press('/'), button, false)).toBe('focus-search')
    expect(globalShortcut(press('/'), document.body, false)).toBe('focus-search')
    expect(globalShortcut(press('/'), null, false)).toBe('focus-search')
    expect(globalShortcut(press('?'), button, false)).toBe('show-shortcuts')
    expect(globalShortcut(press('/'), field, false)).toBeNull()
    expect(globalShortcut(press('?'), area, false)).toBeNull()
    expect(globalShortcut(press('/', { ctrlKey: true }), button, false)).toBeNull()
    expect(globalShortcut(press('x'), button, false)).toBeNull()
  })

  it('leave the keys to an open dialog, to a screen that handled them, and to a composition', () => {
    expect(globalShortcut(press('k', { ctrlKey: true }), button, true)).toBeNull()
    expect(globalShortcut(press('?'), button, true)).toBeNull()
    expect(globalShortcut(press('/', { defaultPrevented: true }), button, false)).toBeNull()
    expect(globalShortcut(press('/', { isComposing: true }), button, false)).toBeNull()
    expect(globalShortcut(press('?', { repeat: true }), button, false)).toBeNull()
  })

  it('know a text field when they see one', () => {
    expect(isTextField(field)).toBe(true)
    expect(isTextField(area)).toBe(true)
    expect(isTextField(element('<input>'))).toBe(true)
    expect(isTextField(element('<input type="search">'))).toBe(true)
    expect(isTextField(element('<select><option>a</option></select>'))).toBe(true)
    expect(isTextField(element('<div role="combobox" tabindex="0"></div>'))).toBe(true)
    expect(isTextField(element('<input type="checkbox">'))).toBe(false)
    expect(isTextField(element('<input type="radio">'))).toBe(false)
    expect(isTextField(button)).toBe(false)
    expect(isTextField(element('<div class="replay" tabindex="0"></div>'))).toBe(false)
    expect(isTextField(null)).toBe(false)
  })
})

describe('the list of shortcuts', () => {
  it('names every key and says every action, in both languages', () => {
    for (const locale of ['fr', 'en'] as const) {
      const { t, te } = createAppI18n(locale).global
      for (const group of SHORTCUTS) {
        expect(te(`search.shortcuts.where.${group.where}`), group.where).toBe(true)
        for (const s of group.shortcuts) {
          expect(te(`search.shortcuts.does.${s.does}`), s.does).toBe(true)
          for (const key of s.keys.flat()) expect(keyLabel(key, t)).not.toMatch(/^search\./)
        }
      }
    }
    const { t } = createAppI18n('fr').global
    expect(keyLabel('escape', t)).toBe('Échap')
    expect(keyLabel('K', t)).toBe('K')
  })

  it('lists the shortcuts the app has: the search, the replay, the forms', () => {
    const all = SHORTCUTS.flatMap((g) =>
      g.shortcuts.map((s) => `${g.where}:${s.keys.map((k) => k.join('+')).join(',')}`),
    )
    expect(all).toEqual(
      expect.arrayContaining([
        'everywhere:ctrl+K,meta+K',
        'everywhere:/',
        'everywhere:?',
        'everywhere:escape',
        'search:down,up',
        'search:enter',
        'forms:ctrl+enter,meta+enter',
        'replay:space',
        'replay:right',
        'replay:left',
        'replay:home',
      ]),
    )
  })
})
