/**
 * The sales simulator (README.md beside this file): the only entrance from outside the folder.
 */
export { createSimulator, defaultPlayers, type Simulator } from './service'
export {
  createSalesGenerator,
  inProcessDrafts,
  packDrafts,
  playerName,
  seededRng,
  type GeneratorOptions,
} from './drafts'
export { sellDrafts } from './selling'
// the threads it starts, and what their entry files (electron/workers) take from it
export { workerSeller, type SimulateWorkerData, type SimulateWorkerMessage } from './seller-thread'
export { workerDrafts, type SalesWorkerMessage } from './drafts-thread'
// its channels' handlers, which electron/app/handlers.ts combines
export { simulatorHandlers } from './handlers'
