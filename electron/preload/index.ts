// Sandboxed preload: bundled to one CommonJS file whose only require is 'electron'.
import { contextBridge, ipcRenderer } from 'electron'
import { createBridge, INVOKE_CHANNEL } from './bridge'

contextBridge.exposeInMainWorld(
  'carats',
  createBridge((channel, args, token) => ipcRenderer.invoke(INVOKE_CHANNEL, channel, args, token)),
)
