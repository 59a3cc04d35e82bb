/**
 * The audit log and the rows sealed to it (README.md beside this file): the only entrance from
 * outside the folder.
 */
export { createAuditService, type AuditService } from './service'
export { entryHash, GENESIS_HASH } from './chain'
export type { AuditRow } from './context'
// its channels' handlers, which electron/app/handlers.ts combines
export { auditHandlers } from './handlers'
