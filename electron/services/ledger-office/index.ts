/**
 * The ledger's own office (README.md beside this file): the only entrance from outside the folder.
 */
export { createLedgerOffice, type LedgerOffice } from './service'
export { createLedgerSettingService, type LedgerSettingService } from './setting'
export { runLedgerTask } from './task-runner'
export type { LedgerTaskData, LedgerTaskMessage } from './context'
// the whole check, backups and restores, as the command line and the task's worker run them
export { checkLedgerData } from './check'
export { DueClaims, compareClaims } from './check-claims'
export { backupLedger, checkLedger, checkSummary, restoreFiles, restoreReport, stageFileRestore } from './integrity'
export { integrityOf } from './integrity.sqlite'
export type { RestoreOptions } from './context'
export { commitFileRestore, discardFileRestore, finishInterruptedRestore, restoreStage } from './restore.sqlite'
// its channels' handlers, which electron/app/handlers.ts combines
export { ledgerOfficeHandlers } from './handlers'
