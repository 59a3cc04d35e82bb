/**
 * Sales and the inspection of a unit (README.md beside this file): the only entrance from outside
 * the folder.
 */
export { createSalesService } from './service'
export type { CheckedSales, CheckedStream, SaleInput, SalesService, UnitRun } from './context'
export { createTicketsService, parseSerialOrThrow, type TicketsService } from './tickets'
// a lease's heartbeat on the connection that sells keeps that connection's player cache valid
// its channels' handlers, which electron/app/handlers.ts combines
export { salesHandlers } from './handlers'
