/**
 * Managers' reports (README.md beside this file): the only entrance from outside the folder.
 */
export { createReports, type Reports } from './service'
// its channels' handlers, which electron/app/handlers.ts combines
export { reportsHandlers } from './handlers'
