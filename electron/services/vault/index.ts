/**
 * The regulator's vault (README.md beside this file): the only entrance from outside the folder.
 */
export { createVaultService, type VaultService } from './service'
export { verifyVault, type VaultVerification } from './verify'
export { witnessInit, witnessCosign } from './witness'
export { exportVault, purgeVault, RETENTION_YEARS } from './export'
// its channels' handlers, which electron/app/handlers.ts combines
export { vaultHandlers } from './handlers'
