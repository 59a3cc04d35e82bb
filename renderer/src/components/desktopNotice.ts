/**
 * Desktop notifications when a task of mine ends: the browser's Notification
 * (in Electron the window's own, which the main process allows for the app's page only). Never
 * asked for by itself: the person turns it on from the to-do screen (a click asks the permission
 * once); then a task that ends is shown on the desktop only while this window is not in front,
 * since the header says it already when it is.
 */
const KEY = 'carats.notify'

export type NotifyState = 'on' | 'off' | 'denied' | 'unsupported'

function supported(): boolean {
  return typeof window !== 'undefined' && 'Notification' in window
}

function wanted(): boolean {
  try {
    return localStorage.getItem(KEY) === 'on'
  } catch {
    return false
  }
}

function remember(on: boolean): void {
  try {
    if (on) localStorage.setItem(KEY, 'on')
    else localStorage.removeItem(KEY)
  } catch {
    /* private mode: for this window only */
  }
}

/** Whether notifications are on, and if not, why. */
export function notifyState(): NotifyState {
  if (!supported()) return 'unsupported'
  if (Notification.permission === 'denied') return 'denied'
  return wanted() && Notification.permission === 'granted' ? 'on' : 'off'
}

/** Turns notifications on (asking the permission if it was never asked: call it from a click) or off. */
export async function setNotify(on: boolean): Promise<NotifyState> {
  if (!supported()) return 'unsupported'
  if (!on) {
    remember(false)
    return notifyState()
  }
  const permission =
    Notification.permission === 'default' ? await Notification.requestPermission() : Notification.permission
  remember(permission === 'granted')
  return notifyState()
}

/** Shows `body` on the desktop if notifications are on and this window is not in front; whether it did. */
export function desktopNotice(title: string, body: string, tag: string): boolean {
  if (notifyState() !== 'on') return false
  if (document.visibilityState === 'visible' && document.hasFocus()) return false
  try {
    new Notification(title, { body, tag })
    return true
  } catch {
    return false
  }
}
