// Sandboxed preload: bundled to one CommonJS file whose only require is 'electron'.
import { contextBridge, ipcRenderer } from 'electron'
import { CHANGES_CHANNEL, WATCH_CHANNEL } from '../contract/changes'
import { createBridge, INVOKE_CHANNEL } from './bridge'

contextBridge.exposeInMainWorld(
  'carats',
  createBridge((channel, args, token) => ipcRenderer.invoke(INVOKE_CHANNEL, channel, args, token), {
    ask: (token) => ipcRenderer.invoke(WATCH_CHANNEL, token),
    listen(fn) {
      // the event itself (its sender, ports) never reaches the page: only the message, checked
      const onMessage = (_event: unknown, message: unknown) => fn(message)
      ipcRenderer.on(CHANGES_CHANNEL, onMessage)
      return () => void ipcRenderer.off(CHANGES_CHANNEL, onMessage)
    },
  }),
)
