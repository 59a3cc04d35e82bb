import { onBeforeUnmount, onMounted } from 'vue'
import { globalShortcut, type GlobalAction } from './shortcuts'

/** Whether a modal dialog is open (Naive UI's modals say aria-modal): its keys are its own. */
const modalOpen = () => document.querySelector('[aria-modal="true"]') !== null

/**
 * The app-wide shortcuts (shortcuts.ts) while the signed-in layout is shown: one listener on the
 * window, after the screens' own (a key they handled is left to them).
 */
export function useGlobalKeys(actions: Record<GlobalAction, () => void>): void {
  function onKeydown(e: KeyboardEvent) {
    const action = globalShortcut(e, document.activeElement, modalOpen())
    if (!action) return
    e.preventDefault()
    actions[action]()
  }
  onMounted(() => window.addEventListener('keydown', onKeydown))
  onBeforeUnmount(() => window.removeEventListener('keydown', onKeydown))
}
