/**
 * Managers' reports (README.md beside this file): the only entrance from outside the folder.
 */
export { createReports, type Reports } from './service'
// the prize liability's identity, which the ledger check holds too
export { liabilityReport } from './liability'
// its channels' handlers, which electron/app/handlers.ts combines
export { reportsHandlers } from './handlers'
