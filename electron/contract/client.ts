/**
 * The one typed api client. It knows nothing of how messages travel: a transport (the preload
 * bridge in Electron, HTTP to the browser host) moves an envelope, the client types it.
 */
import type { ApiErrorData, Envelope, ErrorCode, ErrorReason } from './errors'
import type { ArgsOf, ResultOf } from './define'
import type { Contract, ChannelName } from './index'

export interface Transport {
  invoke(channel: string, args: unknown, token: string | null): Promise<Envelope<unknown>>
}

export class ApiError extends Error {
  readonly code: ErrorCode
  readonly field?: string
  readonly details?: unknown
  readonly reason?: ErrorReason
  constructor(data: ApiErrorData) {
    super(data.message)
    this.name = 'ApiError'
    this.code = data.code
    this.field = data.field
    this.details = data.details
    this.reason = data.reason
  }
}

export interface ApiClient {
  call<K extends ChannelName>(channel: K, args: ArgsOf<Contract[K]>): Promise<ResultOf<Contract[K]>>
  setToken(token: string | null): void
  readonly token: string | null
}

export function createApiClient(transport: Transport, initialToken: string | null = null): ApiClient {
  let token = initialToken
  return {
    async call(channel, args) {
      const envelope = await transport.invoke(channel, args, token)
      if (!envelope.ok) throw new ApiError(envelope.error)
      return envelope.result as never
    },
    setToken(t) {
      token = t
    },
    get token() {
      return token
    },
  }
}
