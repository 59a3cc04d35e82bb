import type { Transport } from '../../../electron/contract/client'
import type { Envelope } from '../../../electron/contract/errors'

/** The server could not be reached or answered something that is not an envelope. */
export class TransportError extends Error {
  constructor(message: string, readonly status?: number) {
    super(message)
    this.name = 'TransportError'
  }
}

export const ipcTransport: Transport = {
  invoke(channel, args, token) {
    if (!window.carats) throw new TransportError('the Electron bridge is missing')
    // The bridge copies its arguments with structured clone, which refuses Vue's reactive
    // proxies; the contract's arguments are JSON data, so a JSON copy loses nothing.
    return window.carats.invoke(channel, JSON.parse(JSON.stringify(args ?? {})), token)
  },
}

export const httpTransport: Transport = {
  async invoke(channel, args, token) {
    const headers: Record<string, string> = { 'content-type': 'application/json' }
    if (token) headers.authorization = `Bearer ${token}`
    let res: Response
    try {
      res = await fetch(`/api/${channel}`, { method: 'POST', headers, body: JSON.stringify({ args }) })
    } catch {
      throw new TransportError('the back-office server cannot be reached')
    }
    // The host answers every error as an envelope too; anything else comes from something in between.
    try {
      const body = (await res.json()) as Envelope<unknown>
      if (body && typeof body === 'object' && 'ok' in body) return body
    } catch {
      /* not JSON: fall through */
    }
    throw new TransportError(`the server answered ${res.status} without a readable reply`, res.status)
  },
}

export function pickTransport(): Transport {
  return typeof window !== 'undefined' && window.carats ? ipcTransport : httpTransport
}
