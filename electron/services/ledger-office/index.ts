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
export {
  backupLedger,
  checkLedger,
  checkSummary,
  integrityOf,
  restoreFiles,
  restoreReport,
  stageFileRestore,
  type RestoreOptions,
} from './integrity'
export { commitFileRestore, discardFileRestore, finishInterruptedRestore, restoreStage } from './restore'
// its channels' handlers, which electron/app/handlers.ts combines
export { ledgerOfficeHandlers } from './handlers'
