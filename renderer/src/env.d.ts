/// <reference types="vite/client" />
import type { Envelope } from '../../electron/contract/errors'

declare global {
  interface Window {
    /** The preload bridge, present only inside the Electron window. */
    carats?: {
      invoke(channel: string, args: unknown, token: string | null): Promise<Envelope<unknown>>
      /** The ledger's changes for this session (electron/preload/bridge.ts); null stops them. */
      watch?(
        token: string | null,
        listener: ((notice: { event: 'change'; changes: unknown[] } | { event: 'ended' }) => void) | null,
      ): Promise<Envelope<unknown>>
    }
  }
}

declare module '*.vue' {
  import type { DefineComponent } from 'vue'
  const component: DefineComponent<object, object, unknown>
  export default component
}

export {}
