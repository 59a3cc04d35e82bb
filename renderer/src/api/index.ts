import { createApiClient, type ApiClient } from '../../../electron/contract/client'
import { createChangeFeedClient, type ChangeFeedClient } from './changes'
import { pickTransport } from './transports'

/** The renderer's one way to the backend. */
export const api: ApiClient = createApiClient(pickTransport())

/** What changes in the ledger, pushed to the open screens, whichever the transport (changes.ts). */
export const changes: ChangeFeedClient = createChangeFeedClient()

export { ApiError } from '../../../electron/contract/client'
export { TransportError } from './transports'
