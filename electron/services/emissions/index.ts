/**
 * Emissions and their blocks, from the key ceremony to publication (README.md beside this file):
 * the only entrance from outside the folder.
 */
export { createEmissionsService, describeStatus, type EmissionsService } from './service'
export type { EmissionsDeps } from './context'
export { createCeremonyService, type CeremonyService } from './ceremony'
export { createVerifications, type Verifications } from './verifications'
export { createPublicationService, type PublicationService } from './publication'
export { definitionJson } from './definition-json'
// blocks generated and verified on the worker pool, and the block worker's protocol (its entry
// file: electron/workers/block-worker.ts)
export { verifyBlockInWorkers, type VerifyBlockFn } from './block-pool'
export { CONTROL, type BlockTask, type BlockWorkerMessage, type BlockWorkerResult } from './block-messages'
// its channels' handlers, which electron/app/handlers.ts combines
export { emissionsHandlers } from './handlers'
