import { createApiClient, type ApiClient } from '../../../electron/contract/client'
import { pickTransport } from './transports'

/** The renderer's one way to the backend. */
export const api: ApiClient = createApiClient(pickTransport())

export { ApiError } from '../../../electron/contract/client'
export { TransportError } from './transports'
