/**
 * The app's keyboard shortcuts: which key press asks for what, and the list the `?` dialog shows
 * (every shortcut of the app, those of the replay and the forms included, so that the list and
 * the handlers are read side by side).
 */

export type GlobalAction = 'focus-search' | 'show-shortcuts'

/** The part of a key press the shortcuts read. */
export type KeyPress = Pick<
  KeyboardEvent,
  'key' | 'ctrlKey' | 'metaKey' | 'altKey' | 'isComposing' | 'defaultPrevented' | 'repeat'
>

const TYPING_ROLES = new Set(['textbox', 'searchbox', 'combobox', 'spinbutton'])
const NOT_TYPED_IN = new Set(['button', 'checkbox', 'radio', 'range', 'color', 'file', 'image', 'reset', 'submit'])

/** Whether what is typed goes into this element: there `/` and `?` are characters, not shortcuts. */
export function isTextField(el: Element | null): boolean {
  if (!el) return false
  const tag = el.tagName.toLowerCase()
  if (tag === 'textarea' || tag === 'select') return true
  if (tag === 'input') return !NOT_TYPED_IN.has((el.getAttribute('type') ?? 'text').toLowerCase())
  if (el instanceof HTMLElement && el.isContentEditable) return true
  return TYPING_ROLES.has(el.getAttribute('role') ?? '')
}

/**
 * The app-wide shortcut a key press asks for, or null: Ctrl+K (⌘K) wherever the focus is, `/` and
 * `?` outside text fields. None while a modal dialog is open (its own keys are its), nor for a key
 * a screen already handled (the replay's Space) or one being composed.
 */
export function globalShortcut(e: KeyPress, focus: Element | null, modalOpen: boolean): GlobalAction | null {
  if (modalOpen || e.isComposing || e.defaultPrevented) return null
  if ((e.ctrlKey || e.metaKey) && !e.altKey && e.key.toLowerCase() === 'k') return 'focus-search'
  if (e.ctrlKey || e.metaKey || e.altKey || e.repeat || isTextField(focus)) return null
  if (e.key === '/') return 'focus-search'
  if (e.key === '?') return 'show-shortcuts'
  return null
}

/** A key as the dialog names it: a message key under search.shortcuts.keys, or the character itself. */
export type KeyName =
  'ctrl' | 'meta' | 'shift' | 'enter' | 'escape' | 'space' | 'home' | 'tab' | 'up' | 'down' | 'left' | 'right'

export interface Shortcut {
  /** Each way of giving it, as the keys pressed together: [['ctrl', 'K'], ['meta', 'K']]. */
  keys: (KeyName | string)[][]
  /** What it does: a message key under search.shortcuts.does. */
  does: string
}

export interface ShortcutGroup {
  /** Where it applies: a message key under search.shortcuts.where. */
  where: string
  shortcuts: Shortcut[]
}

export const SHORTCUTS: ShortcutGroup[] = [
  {
    where: 'everywhere',
    shortcuts: [
      {
        keys: [
          ['ctrl', 'K'],
          ['meta', 'K'],
        ],
        does: 'search',
      },
      { keys: [['/']], does: 'searchOutside' },
      { keys: [['?']], does: 'shortcuts' },
      { keys: [['tab'], ['shift', 'tab']], does: 'tab' },
      { keys: [['escape']], does: 'close' },
    ],
  },
  {
    where: 'search',
    shortcuts: [
      { keys: [['down'], ['up']], does: 'choose' },
      { keys: [['enter']], does: 'open' },
      { keys: [['escape']], does: 'leave' },
    ],
  },
  {
    where: 'forms',
    shortcuts: [
      { keys: [['enter']], does: 'submit' },
      {
        keys: [
          ['ctrl', 'enter'],
          ['meta', 'enter'],
        ],
        does: 'submitText',
      },
    ],
  },
  {
    where: 'replay',
    shortcuts: [
      { keys: [['space']], does: 'play' },
      { keys: [['right']], does: 'stepForward' },
      { keys: [['left']], does: 'stepBack' },
      { keys: [['home']], does: 'restart' },
    ],
  },
]

const NAMED = new Set<string>([
  'ctrl',
  'meta',
  'shift',
  'enter',
  'escape',
  'space',
  'home',
  'tab',
  'up',
  'down',
  'left',
  'right',
])

/** The label of one key: its name in the user's language, or the character as printed on the key. */
export const keyLabel = (key: string, t: (k: string) => string) =>
  NAMED.has(key) ? t(`search.shortcuts.keys.${key}`) : key
