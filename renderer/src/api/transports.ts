import type { Transport } from '../../../electron/contract/client'
import type { Envelope } from '../../../electron/contract/errors'
import { BYTES_ARGS_HEADER, BYTES_BODIES, BYTES_CONTENT_TYPE } from '../../../electron/contract/feed'

/**
 * A call whose argument of bytes (a feed file's) travels as it is, apart from the others: over
 * IPC by structured clone, over HTTP as the request's body. Null for any other call.
 */
export function splitBytes(
  channel: string,
  args: unknown,
): { bytes: Uint8Array; field: string; rest: Record<string, unknown> } | null {
  const field = BYTES_BODIES[channel]
  if (!field || args === null || typeof args !== 'object') return null
  const { [field]: bytes, ...rest } = args as Record<string, unknown>
  return bytes instanceof Uint8Array ? { bytes, field, rest } : null
}

/** The server could not be reached or answered something that is not an envelope. */
export class TransportError extends Error {
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message)
    this.name = 'TransportError'
  }
}

export const ipcTransport: Transport = {
  invoke(channel, args, token) {
    if (!window.carats) throw new TransportError('the Electron bridge is missing')
    // The bridge copies its arguments with structured clone, which refuses Vue's reactive
    // proxies; the contract's arguments are JSON data, so a JSON copy loses nothing.
    // A file's bytes go as they are: structured clone copies a Uint8Array whole (JSON would make it an object).
    const split = splitBytes(channel, args)
    if (split)
      return window.carats.invoke(
        channel,
        { ...JSON.parse(JSON.stringify(split.rest)), [split.field]: split.bytes },
        token,
      )
    return window.carats.invoke(channel, JSON.parse(JSON.stringify(args ?? {})), token)
  },
}

export const httpTransport: Transport = {
  async invoke(channel, args, token) {
    const headers: Record<string, string> = { 'content-type': 'application/json' }
    if (token) headers.authorization = `Bearer ${token}`
    let body: BodyInit = JSON.stringify({ args })
    // a file's bytes as the request's body, the other arguments in a header (the host's bytes route)
    const split = splitBytes(channel, args)
    if (split) {
      headers['content-type'] = BYTES_CONTENT_TYPE
      headers[BYTES_ARGS_HEADER] = encodeURIComponent(JSON.stringify(split.rest))
      // in a Blob: Chromium uploads an ArrayBuffer body many times slower than a Blob's (measured
      // for 177 MB: 16–23 s against 3 s, electron/services/import/README.md)
      body = new Blob([split.bytes as Uint8Array<ArrayBuffer>])
    }
    let res: Response
    try {
      res = await fetch(`/api/${channel}`, { method: 'POST', headers, body })
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
